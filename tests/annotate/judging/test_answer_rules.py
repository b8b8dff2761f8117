"""The rules of "Only the answers a rater means", for both kinds through the shared mechanism:
one answer per rater and task (a database constraint), skips that can be undone, side-by-side
skip and can't-judge, and no change of a stored answer from a page that had not shown it."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from annotate.judging.graded import GradeRefused, grade_submit, queue_items
from annotate.judging.kinds import SKIP_TOKEN
from annotate.judging.progress import rater_sxs_progress
from annotate.judging.screens import judgment_record, sxs_record
from annotate.judging.sxs import SXS, VerdictRefused, sxs_queue, verdict_submit
from annotate.models import (
    AnswerClaim,
    Grade,
    Lease,
    PoolItem,
    Skip,
    SxsTask,
    TaskLease,
    TaskSkip,
    Verdict,
)
from metrics.decide.gsb import verdict_arrays
from tests.annotate.queue_helpers import handle, make_raters, queue_setup
from tests.annotate.sxs_helpers import distinct_lists, make_comparison, task_handle

pytestmark = pytest.mark.django_db


@pytest.fixture
def graded(personas):
    return queue_setup(personas.campaign, overlap=1, queries=2, docs_per_query=2, raters=2)


@pytest.fixture
def comparison(personas):
    return make_comparison(personas.campaign, distinct_lists(3))


def skip(kind: str, rater, scope, task_id, undo: bool = False):
    """A skip as a screen sends it: naming the task by the rater's handle (#24)."""
    action = "unskip" if undo else "skip"
    if kind == "graded":
        data = {"item": handle(rater, task_id), "action": action}
        return judgment_record(rater=rater, campaign=scope, data=data)
    data = {"task": task_handle(rater, task_id), "action": action}
    return sxs_record(rater=rater, comparison=scope, data=data)


# ---- The database constraint --------------------------------------------------------------


def test_the_database_refuses_a_skip_beside_a_grade_on_every_path(graded):
    campaign, items, (r0, _), good, _ = graded
    Grade.objects.create(pool_item=items[0], rater=r0, label=good)
    with pytest.raises(IntegrityError), transaction.atomic():
        Skip.objects.create(pool_item=items[0], rater=r0)  # the ORM, past every service
    Skip.objects.create(pool_item=items[1], rater=r0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Grade.objects.create(pool_item=items[1], rater=r0, label=good)
    assert set(AnswerClaim.objects.values_list("kind", "task_id", "rater_id")) == {
        ("g", items[0].pk, r0.pk),
        ("g", items[1].pk, r0.pk),
    }
    Grade.objects.all().delete()
    Skip.objects.all().delete()
    assert not AnswerClaim.objects.exists()  # the claims go with their rows


def test_the_database_refuses_a_task_skip_beside_a_verdict(personas, comparison):
    task = SxsTask.objects.first()
    Verdict.objects.create(task=task, rater=personas.rater, value="S", candidate_side="L")
    with pytest.raises(IntegrityError), transaction.atomic():
        TaskSkip.objects.create(task=task, rater=personas.rater)
    # Another rater, or another kind's task with the same id, is no conflict.
    TaskSkip.objects.create(task=task, rater=personas.other_rater)
    assert AnswerClaim.objects.filter(kind="s").count() == 2


# ---- Skips, and undoing them ------------------------------------------------------------------


def test_a_graded_skip_is_undone_and_the_item_comes_back(graded):
    campaign, items, (r0, _), good, _ = graded
    held = queue_items(rater=r0, campaign=campaign)
    target = held[0]
    assert skip("graded", r0, campaign, target.pk).result == "skipped"
    assert not Lease.objects.filter(pool_item=target, rater=r0).exists()
    # Grading it from a page that did not know of the skip is refused, and says so.
    with pytest.raises(GradeRefused) as refused:
        grade_submit(rater=r0, campaign=campaign, item_id=target.pk, label_id=good.pk)
    assert refused.value.status == 409
    assert refused.value.details["conflict"] == {"stored": {"skipped": True}, "replaces": "skip"}
    undone = skip("graded", r0, campaign, target.pk, undo=True)
    assert (undone.result, undone.leased) == ("unskipped", True)
    assert target.pk in [item.pk for item in queue_items(rater=r0, campaign=campaign)]
    grade_submit(rater=r0, campaign=campaign, item_id=target.pk, label_id=good.pk)
    assert Grade.objects.filter(pool_item=target, rater=r0, label=good).exists()
    assert not Skip.objects.exists()


def test_grading_a_skipped_item_from_a_page_that_showed_the_skip_replaces_it(graded):
    campaign, items, (r0, _), good, _ = graded
    target = queue_items(rater=r0, campaign=campaign)[0]
    skip("graded", r0, campaign, target.pk)
    outcome = grade_submit(
        rater=r0, campaign=campaign, item_id=target.pk, label_id=good.pk, replaces=SKIP_TOKEN
    )
    assert outcome.created
    assert not Skip.objects.exists()
    assert PoolItem.objects.get(pk=target.pk).counted == 1


def test_a_skip_undone_after_others_filled_the_item_is_not_leased_again(graded):
    campaign, items, (r0, r1), good, _ = graded
    target = queue_items(rater=r0, campaign=campaign)[0]
    skip("graded", r0, campaign, target.pk)
    # r1 takes and grades the item (overlap 1): it needs nobody else.
    while target.pk not in [item.pk for item in queue_items(rater=r1, campaign=campaign)]:
        for item in queue_items(rater=r1, campaign=campaign):
            grade_submit(rater=r1, campaign=campaign, item_id=item.pk, label_id=good.pk)
    grade_submit(rater=r1, campaign=campaign, item_id=target.pk, label_id=good.pk)
    undone = skip("graded", r0, campaign, target.pk, undo=True)
    assert (undone.result, undone.leased) == ("unskipped", False)
    assert not Lease.objects.filter(pool_item=target, rater=r0).exists()


def test_a_skip_of_a_graded_item_is_a_conflict(graded):
    campaign, items, (r0, _), good, _ = graded
    target = queue_items(rater=r0, campaign=campaign)[0]
    grade_submit(rater=r0, campaign=campaign, item_id=target.pk, label_id=good.pk)
    with pytest.raises(GradeRefused) as refused:
        skip("graded", r0, campaign, target.pk)
    assert refused.value.status == 409
    assert refused.value.details["conflict"]["stored"] == {"label": good.pk, "cant_judge": False}


def test_a_side_by_side_skip_is_not_offered_again_until_undone(personas, comparison):
    rater = personas.rater
    ((task, _),) = sxs_queue(rater=rater, comparison=comparison)
    assert skip("sxs", rater, comparison, task.pk).result == "skipped"
    assert skip("sxs", rater, comparison, task.pk).result == "unchanged"  # a resend
    assert not TaskLease.objects.filter(task=task, rater=rater).exists()
    seen = set()
    while held := sxs_queue(rater=rater, comparison=comparison):
        for held_task, _ in held:
            seen.add(held_task.pk)
            verdict_submit(rater=rater, comparison=comparison, task_id=held_task.pk, chosen="same")
    assert task.pk not in seen
    progress = rater_sxs_progress(
        rater=rater, comparison=comparison, now=task.comparison.created_at
    )
    assert (progress["skipped"], progress["verdicts"]) == (1, 2)
    undone = skip("sxs", rater, comparison, task.pk, undo=True)
    assert undone.leased
    assert [t.pk for t, _ in sxs_queue(rater=rater, comparison=comparison)] == [task.pk]


# ---- Side-by-side can't-judge ---------------------------------------------------------------


def test_a_side_by_side_cant_judge_counts_toward_nothing_and_frees_the_task(personas, comparison):
    rater, other = personas.rater, make_raters(personas.campaign, 1)[0]
    ((task, _),) = sxs_queue(rater=rater, comparison=comparison)
    outcome = verdict_submit(
        rater=rater, comparison=comparison, task_id=task.pk, chosen="cant_judge", reason="blank"
    )
    verdict = outcome.verdict
    assert (verdict.cant_judge, verdict.value, verdict.reason) == (True, "", "blank")
    assert SxsTask.objects.get(pk=task.pk).counted == 0
    assert len(verdict_arrays(comparison)) == 0  # GSB does not see it
    offered = set()
    while held := sxs_queue(rater=other, comparison=comparison):
        for held_task, _ in held:
            offered.add(held_task.pk)
            verdict_submit(rater=other, comparison=comparison, task_id=held_task.pk, chosen="left")
    assert task.pk in offered  # another rater gets the task
    # Changing the can't-judge into a verdict, from a page that showed it, counts again... but
    # the task has all it needs now: refused.
    with pytest.raises(VerdictRefused) as refused:
        verdict_submit(
            rater=rater,
            comparison=comparison,
            task_id=task.pk,
            chosen="left",
            replaces="cant_judge",
        )
    assert refused.value.status == 409
    assert SXS.token(Verdict.objects.get(task=task, rater=rater)) == "cant_judge"
