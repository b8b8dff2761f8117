"""Ten real concurrent raters on side-by-side tasks against PostgreSQL: nothing lost, nothing
twice, never more verdicts on a task than it needs, and every verdict on its leased side."""

from __future__ import annotations

import random
import threading
from collections import Counter

import pytest
from django.db import connection, connections
from django.db.models import Count

from annotate.judging.sxs import VerdictRefused, candidate_side_for, sxs_queue, verdict_submit
from annotate.models import Side, SxsTask, Verdict
from tests.annotate.queue_helpers import make_raters
from tests.annotate.sxs_helpers import distinct_lists, make_comparison

RATERS = 10
PER_TASK = 3


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("unit", ["list", "position"])
def test_ten_concurrent_raters_fill_every_task_exactly(personas, unit):
    assert connection.vendor == "postgresql"
    lists = distinct_lists(12, depth=2)
    lists["same"] = (["s1", "s2"], ["s1", "s2"])  # identical: nobody may get it
    comparison = make_comparison(
        personas.campaign, lists, unit=unit, raters_per_task=PER_TASK, seed=11
    )
    raters = make_raters(personas.campaign, RATERS)
    stored: Counter = Counter()
    errors: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(RATERS)

    def work(rater, seed: int) -> None:
        rng = random.Random(seed)
        try:
            start.wait(timeout=30)
            while held := sxs_queue(rater=rater, comparison=comparison, look_ahead=True):
                for task, _ in held:
                    chosen = rng.choice(["left", "right", "same"])
                    # Every verdict is sent twice, as a double click or a network retry would.
                    for _ in range(2):
                        try:
                            outcome = verdict_submit(
                                rater=rater, comparison=comparison, task_id=task.pk, chosen=chosen
                            )
                        except VerdictRefused:
                            continue
                        if outcome.created:
                            with lock:
                                stored[(task.pk, rater.pk)] += 1
        except BaseException as exc:  # the assertion below reports it
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(r, i)) for i, r in enumerate(raters)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    assert all(count == 1 for count in stored.values())  # created once, never twice
    in_db = set(Verdict.objects.values_list("task_id", "rater_id"))
    assert in_db == set(stored)  # nothing lost, nothing extra
    # Mirrored duplicates (#18) are their raters' own, offered later: the originals are exact.
    real = SxsTask.objects.filter(mirror_of__isnull=True)
    counts = real.annotate(n=Count("verdicts")).values_list("identical", "n")
    assert {n for identical, n in counts if not identical} == {PER_TASK}
    assert {n for identical, n in counts if identical} == {0}
    for mirror in SxsTask.objects.filter(mirror_of__isnull=False):
        assert Verdict.objects.filter(task=mirror.mirror_of, rater=mirror.mirror_rater).exists()
    for verdict in Verdict.objects.all():
        side = candidate_side_for(
            secret=comparison.side_secret, rater_id=verdict.rater_id, task_id=verdict.task_id
        )
        assert verdict.candidate_side == side
        assert verdict.candidate_side in (Side.LEFT, Side.RIGHT)
