"""A delete racing a run import, on PostgreSQL: with no database constraint on the entries'
keys, the import's locks and the statement triggers of migration 0026 must still leave no
entry pointing at a deleted document."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import IntegrityError, connection, connections, transaction

from annotate.models import Document, RunEntry
from annotate.services.imports import import_run
from tests.annotate.import_support import add_documents, add_queries, make_campaign, write

pytestmark = [
    pytest.mark.postgres,  # row locks of PostgreSQL
    pytest.mark.django_db(transaction=True),
]


def _wait_until_someone_waits_for_a_lock(deadline_s: float = 60.0) -> None:
    """Poll until another session of this database waits for a lock (the delete, blocked by
    the import's FOR KEY SHARE); fail if it never does."""
    stop = time.monotonic() + deadline_s
    with connection.cursor() as cursor:
        while time.monotonic() < stop:
            # Inside a transaction the activity view is a snapshot taken at its first read.
            cursor.execute("SELECT pg_stat_clear_snapshot()")
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.05)
    pytest.fail("the delete never waited for the import's lock")


def test_a_document_deleted_during_an_import_that_points_at_it_is_refused(tmp_path):
    campaign = make_campaign()
    add_queries(campaign, "q1")
    add_documents(campaign, "d1", "d2")
    outcome: dict[str, object] = {}

    def delete_d1() -> None:
        try:
            # Django's cascade: the entries of d1 it can see (none yet), then d1 itself, which
            # waits for the import's lock and must then fail on the trigger.
            with transaction.atomic():
                Document.objects.filter(campaign=campaign, external_id="d1").delete()
            outcome["result"] = "deleted"
        except IntegrityError as exc:
            outcome["result"] = exc
        finally:
            connections.close_all()

    deleter = threading.Thread(target=delete_d1)
    with transaction.atomic():
        import_run(campaign=campaign, file=write(tmp_path, "r", "q1 Q0 d1 1 2 r\n"))
        deleter.start()
        _wait_until_someone_waits_for_a_lock()
    deleter.join(timeout=60)
    assert not deleter.is_alive()
    assert isinstance(outcome["result"], IntegrityError), outcome
    assert "pointing at id" in str(outcome["result"])
    entry = RunEntry.objects.get()
    assert Document.objects.filter(pk=entry.document_id, external_id="d1").exists()
