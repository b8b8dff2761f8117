"""The side-by-side queue and verdicts, through the services: leases with a recorded side, the
mapping of Left/Right to Good/Bad, overlap, double submits, changes, late verdicts, refusals."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import Count
from django.utils import timezone

from annotate.judging.sxs import (
    VerdictRefused,
    candidate_side_for,
    sxs_queue,
    verdict_submit,
    verdict_value,
)
from annotate.models import Side, SxsTask, TaskLease, Verdict, VerdictChange
from tests.annotate.queue_helpers import make_raters
from tests.annotate.sxs_helpers import distinct_lists, make_comparison


def snapshot() -> tuple:
    return (
        sorted(Verdict.objects.values_list("task_id", "rater_id", "value", "strength", "reason")),
        VerdictChange.objects.count(),
    )


def answer_all(rater, comparison, chosen: str) -> list[Verdict]:
    """The rater answers every task they are given with the same button."""
    verdicts = []
    while held := sxs_queue(rater=rater, comparison=comparison):
        for task, _ in held:
            outcome = verdict_submit(rater=rater, task_id=task.pk, chosen=chosen)
            verdicts.append(outcome.verdict)
    return verdicts


def test_a_lease_records_the_side_and_the_queue_hands_it_out(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(3))
    held = sxs_queue(rater=personas.rater, comparison=comparison)
    assert len(held) == 1  # one query at a time
    task, side = held[0]
    lease = TaskLease.objects.get(task=task, rater=personas.rater)
    assert lease.candidate_side == side
    assert side == candidate_side_for(
        secret=comparison.side_secret, rater_id=personas.rater.pk, task_id=task.pk
    )
    # Asking again gives the same task and side (the lease is renewed, not replaced).
    assert sxs_queue(rater=personas.rater, comparison=comparison) == held
    # Look-ahead: down to one task, the next query is leased too.
    ahead = sxs_queue(rater=personas.rater, comparison=comparison, look_ahead=True)
    assert [t.query.external_id for t, _ in ahead] == ["q0", "q1"]


def test_always_pressing_left_gives_good_where_the_candidate_was_left_and_bad_where_right(
    personas,
):
    comparison = make_comparison(personas.campaign, distinct_lists(40), seed=5)
    verdicts = answer_all(personas.rater, comparison, "left")
    assert len(verdicts) == 40
    sides = {v.candidate_side for v in verdicts}
    assert sides == {Side.LEFT, Side.RIGHT}  # both cases occur
    for verdict in Verdict.objects.filter(rater=personas.rater):
        expected = "G" if verdict.candidate_side == Side.LEFT else "B"
        assert verdict.value == expected
        # The stored side is the one the lease recorded for this rater and task.
        assert verdict.candidate_side == candidate_side_for(
            secret=comparison.side_secret, rater_id=personas.rater.pk, task_id=verdict.task_id
        )


def test_always_pressing_right_is_the_mirror_and_same_is_same(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(20), raters_per_task=2)
    (second,) = make_raters(personas.campaign, 1)
    answer_all(personas.rater, comparison, "right")
    answer_all(second, comparison, "same")
    for verdict in Verdict.objects.filter(rater=personas.rater):
        assert verdict.value == ("G" if verdict.candidate_side == Side.RIGHT else "B")
    assert set(Verdict.objects.filter(rater=second).values_list("value", flat=True)) == {"S"}


def test_the_mapping_table():
    assert verdict_value("left", Side.LEFT) == "G"
    assert verdict_value("left", Side.RIGHT) == "B"
    assert verdict_value("right", Side.RIGHT) == "G"
    assert verdict_value("right", Side.LEFT) == "B"
    assert verdict_value("same", Side.LEFT) == verdict_value("same", Side.RIGHT) == "S"


SECRET = "5e" * 32


def test_sides_are_shuffled_per_rater_and_task(personas):
    sides = [
        candidate_side_for(secret=SECRET, rater_id=r, task_id=t)
        for r in range(20)
        for t in range(50)
    ]
    share = sides.count(Side.LEFT) / len(sides)
    assert 0.45 < share < 0.55
    # Different raters see different sides on the same task.
    assert len({candidate_side_for(secret=SECRET, rater_id=r, task_id=7) for r in range(20)}) == 2


def test_a_double_submit_stores_one_verdict(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(2))
    ((task, _),) = sxs_queue(rater=personas.rater, comparison=comparison)
    first = verdict_submit(rater=personas.rater, task_id=task.pk, chosen="left", strength=2)
    again = verdict_submit(rater=personas.rater, task_id=task.pk, chosen="left", strength=2)
    assert first.created and not again.created and not again.changed
    assert Verdict.objects.count() == 1 and VerdictChange.objects.count() == 0


def test_a_change_keeps_the_earlier_answer_and_the_recorded_side(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(2))
    ((task, side),) = sxs_queue(rater=personas.rater, comparison=comparison)
    verdict_submit(rater=personas.rater, task_id=task.pk, chosen="left", strength=3, reason="a")
    # From a page that had not shown "left, much" (a second tab): a conflict, shown in the
    # page's own terms whichever side the candidate was on.
    with pytest.raises(VerdictRefused) as refused:
        verdict_submit(rater=personas.rater, task_id=task.pk, chosen="same")
    assert refused.value.status == 409
    assert refused.value.details["conflict"] == {
        "stored": {"chosen": "left", "strength": 3},
        "replaces": "left:3",
    }
    outcome = verdict_submit(
        rater=personas.rater, task_id=task.pk, chosen="same", strength=3, replaces="left:3"
    )
    assert outcome.changed
    verdict = Verdict.objects.get()
    assert (verdict.value, verdict.strength, verdict.candidate_side) == ("S", None, side)
    (earlier,) = VerdictChange.objects.all()
    assert earlier.value == ("G" if side == Side.LEFT else "B")
    assert (earlier.strength, earlier.reason) == (3, "a")
    # The same answer with a new reason only updates the reason.
    verdict_submit(rater=personas.rater, task_id=task.pk, chosen="same", reason="b")
    assert Verdict.objects.get().reason == "b" and VerdictChange.objects.count() == 1


def test_no_task_gets_more_verdicts_than_raters_per_task(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(6), raters_per_task=2)
    raters = make_raters(personas.campaign, 5)
    # Interleave: everyone takes a query before anyone answers.
    held = {r.pk: sxs_queue(rater=r, comparison=comparison) for r in raters}
    for rater in raters:
        for task, _ in held[rater.pk]:
            verdict_submit(rater=rater, task_id=task.pk, chosen="same")
        answer_all(rater, comparison, "left")
    real = SxsTask.objects.filter(mirror_of__isnull=True)  # not the mirrored duplicates (#18)
    counts = real.annotate(n=Count("verdicts")).values_list("n", flat=True)
    assert list(counts) == [2] * 6


def test_identical_tasks_are_never_handed_out(personas):
    lists = {"q0": (["a"], ["a"]), "q1": (["b"], ["c"])}
    comparison = make_comparison(personas.campaign, lists)
    answer_all(personas.rater, comparison, "left")
    assert list(Verdict.objects.values_list("task__query__external_id", flat=True)) == ["q1"]
    identical = comparison.tasks.get(identical=True)
    with pytest.raises(VerdictRefused) as refused:
        verdict_submit(rater=personas.rater, task_id=identical.pk, chosen="same")
    assert refused.value.status == 409


def test_a_late_verdict_counts_if_the_task_still_needs_it(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(1))
    ((task, _),) = sxs_queue(rater=personas.rater, comparison=comparison)
    TaskLease.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    assert verdict_submit(rater=personas.rater, task_id=task.pk, chosen="right").created


def test_a_late_verdict_for_a_task_others_finished_is_refused(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(1))
    (other,) = make_raters(personas.campaign, 1)
    ((task, _),) = sxs_queue(rater=personas.rater, comparison=comparison)
    TaskLease.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    answer_all(other, comparison, "left")
    before = snapshot()
    with pytest.raises(VerdictRefused) as refused:
        verdict_submit(rater=personas.rater, task_id=task.pk, chosen="left")
    assert refused.value.status == 409
    assert snapshot() == before
    assert not TaskLease.objects.filter(rater=personas.rater).exists()


@pytest.mark.parametrize(
    ("case", "status"),
    [
        ("not_leased", 403),
        ("other_comparison", 404),
        ("unknown_task", 404),
        ("bad_choice", 400),
        ("bad_strength", 400),
        ("not_a_rater", 403),
    ],
)
def test_refusals_change_nothing(personas, case, status):
    comparison = make_comparison(personas.campaign, distinct_lists(3))
    ((held, _),) = sxs_queue(rater=personas.rater, comparison=comparison)
    other_task = comparison.tasks.exclude(pk=held.pk).first()
    kwargs = {"rater": personas.rater, "task_id": held.pk, "chosen": "left"}
    if case == "not_leased":
        kwargs["task_id"] = other_task.pk
    elif case == "other_comparison":
        from annotate.services.sxs_setup import comparison_create

        second = comparison_create(
            campaign=personas.campaign,
            name="second",
            baseline=comparison.candidate,
            candidate=comparison.baseline,
        )
        kwargs["comparison"] = second
    elif case == "unknown_task":
        kwargs["task_id"] = 10**9
    elif case == "bad_choice":
        kwargs["chosen"] = "candidate"
    elif case == "bad_strength":
        kwargs["strength"] = 4
    elif case == "not_a_rater":
        kwargs["rater"] = personas.other_rater
    before = snapshot()
    with pytest.raises(VerdictRefused) as refused:
        verdict_submit(**kwargs)
    assert refused.value.status == status
    assert snapshot() == before


def test_a_strength_with_about_the_same_is_dropped(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(1))
    ((task, _),) = sxs_queue(rater=personas.rater, comparison=comparison)
    verdict_submit(rater=personas.rater, task_id=task.pk, chosen="same", strength=3)
    assert Verdict.objects.get().strength is None


def test_only_raters_of_the_campaign_get_a_queue(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(1))
    for user in (personas.manager, personas.other_rater, personas.outsider):
        with pytest.raises(VerdictRefused):
            sxs_queue(rater=user, comparison=comparison)
    assert not TaskLease.objects.exists()
