"""The per-process cache of run orders behind the side-by-side lists (ranking.run_top_k_cached):
the same lists as run_top_k, no reads the second time, and a run replaced in place is read
again (its entries_version is part of the key)."""

from __future__ import annotations

import numpy as np
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.models import Query, Run
from annotate.ranking import run_top_k, run_top_k_cached
from annotate.services.imports import import_run
from tests.annotate.import_support import add_documents, add_queries, make_campaign, write

FIRST = "q1 Q0 d1 1 3 bm25\nq1 Q0 d2 2 2 bm25\nq1 Q0 d3 3 1 bm25\nq2 Q0 d2 1 5 bm25\n"
SECOND = "q1 Q0 d3 1 3 bm25\nq1 Q0 d1 2 2 bm25\nq2 Q0 d1 1 5 bm25\n"


def test_cached_lists_are_run_top_k_and_follow_a_replaced_run(db, tmp_path):
    campaign = make_campaign()
    add_queries(campaign, "q1", "q2", "q3")
    add_documents(campaign, "d1", "d2", "d3")
    import_run(campaign=campaign, file=write(tmp_path, "a.run", FIRST))
    run = Run.objects.get()
    ids = list(Query.objects.order_by("external_id").values_list("pk", flat=True))
    expected = run_top_k(run, 2, queries=ids)
    got = run_top_k_cached(run, 2, ids)
    assert got.keys() == expected.keys() and len(got) == 2  # q3 has no entries: left out
    assert all(np.array_equal(got[q], expected[q]) for q in got)
    with CaptureQueriesContext(connection) as reads:
        again = run_top_k_cached(run, 2, ids)
    assert len(reads) == 0 and all(np.array_equal(again[q], got[q]) for q in got)
    import_run(campaign=campaign, file=write(tmp_path, "b.run", SECOND), replace=True)
    run = Run.objects.get()  # as the next request loads it: entries_version raised
    assert run.entries_version == 1
    fresh = run_top_k_cached(run, 2, ids)
    replaced = run_top_k(run, 2, queries=ids)
    assert all(np.array_equal(fresh[q], replaced[q]) for q in replaced)
    assert not np.array_equal(fresh[ids[0]], got[ids[0]])
