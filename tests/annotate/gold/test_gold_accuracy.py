"""Each rater's accuracy on gold: counts, exact and within-one-grade shares, and Wilson's 95%
interval, checked against statsmodels."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from django.utils import timezone
from statsmodels.stats.proportion import proportion_confint

from annotate.judging.graded import grade_submit
from annotate.judging.sxs import verdict_submit
from annotate.models import Lease, SxsTask, TaskLease
from annotate.selectors.gold import graded_gold_accuracy, sxs_gold_accuracy
from annotate.services.gold import gold_item_set, gold_task_set
from tests.annotate.queue_helpers import queue_setup
from tests.annotate.sxs_helpers import distinct_lists, make_comparison


def _lease(item, rater) -> None:
    Lease.objects.create(
        pool_item=item, rater=rater, expires_at=timezone.now() + timedelta(minutes=5)
    )


def test_graded_accuracy_counts_exact_and_within_one_grade(personas):
    campaign, items, raters, _good, _bad = queue_setup(
        personas.campaign, overlap=1, queries=3, docs_per_query=4, raters=2
    )
    scale = list(campaign.labels.order_by("grade"))
    assert len(scale) == 3  # Bad, Fair, Good
    # Gold: the first 8 items accept the scale's step 2; the next 4 accept steps 0 and 1.
    for item in items[:8]:
        gold_item_set(campaign=campaign, manager=None, item_id=item.pk, label_id=scale[2].pk)
    for item in items[8:12]:
        gold_item_set(
            campaign=campaign,
            manager=None,
            item_id=item.pk,
            label_id=scale[0].pk,
            accepted=[scale[1].pk],
        )
    # Rater 0: steps 2,2,1,0,1,2,0,2 on the first eight; 1,2,0,2 on the others.
    answers = [2, 2, 1, 0, 1, 2, 0, 2, 1, 2, 0, 2]
    for item, step in zip(items, answers, strict=True):
        _lease(item, raters[0])
        grade_submit(rater=raters[0], campaign=campaign, item_id=item.pk, label_id=scale[step].pk)
    # Rater 1 answers three, one of them can't-judge (left out).
    for item, step in zip(items[:3], [2, 0, None], strict=True):
        _lease(item, raters[1])
        if step is None:
            grade_submit(rater=raters[1], campaign=campaign, item_id=item.pk, cant_judge=True)
        else:
            label = scale[step].pk
            grade_submit(rater=raters[1], campaign=campaign, item_id=item.pk, label_id=label)
    rows = {row.username: row for row in graded_gold_accuracy(campaign=campaign)}
    first, second = rows[raters[0].username], rows[raters[1].username]
    # Exact: the four 2s of the first eight + the 1 and the 0 of the others = 6 of 12. Within
    # one: the first eight but their two 0s (6) + all four others (2 is next to 1) = 10 of 12.
    assert (first.answers, first.exact.k, first.within_one.k) == (12, 6, 10)
    assert (second.answers, second.exact.k, second.within_one.k) == (2, 1, 1)
    low, high = proportion_confint(6, 12, alpha=0.05, method="wilson")
    assert (first.exact.low, first.exact.high) == pytest.approx((low, high), abs=1e-12)
    low, high = proportion_confint(10, 12, alpha=0.05, method="wilson")
    assert (first.within_one.low, first.within_one.high) == pytest.approx((low, high), abs=1e-12)


def test_side_by_side_accuracy_is_the_share_of_accepted_verdicts(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(4), raters_per_task=1)
    tasks = list(SxsTask.objects.filter(comparison=comparison).order_by("pk"))
    for task, value in zip(tasks, "GSBG", strict=True):
        gold_task_set(comparison=comparison, manager=None, task_id=task.pk, value=value)
    rater = personas.rater
    right = 0
    for task, chosen in zip(tasks, itertools.cycle(["left", "same", "right"]), strict=False):
        TaskLease.objects.filter(task=task, rater=rater).delete()
        from annotate.judging.sxs import candidate_side_for

        side = candidate_side_for(secret=comparison.side_secret, rater_id=rater.pk, task_id=task.pk)
        TaskLease.objects.create(
            task=task,
            rater=rater,
            candidate_side=side,
            expires_at=timezone.now() + timedelta(minutes=5),
        )
        outcome = verdict_submit(rater=rater, comparison=comparison, task_id=task.pk, chosen=chosen)
        right += outcome.verdict.value == task.gold_entry.value
    (row,) = sxs_gold_accuracy(comparison=comparison)
    assert (row.answers, row.exact.k) == (4, right) and row.within_one is None
    low, high = proportion_confint(right, 4, alpha=0.05, method="wilson")
    assert (row.exact.low, row.exact.high) == pytest.approx((low, high), abs=1e-12)
