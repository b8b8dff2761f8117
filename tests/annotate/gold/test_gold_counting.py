"""Gold answers never count: not toward a task's needed raters (the triggers, counted_check),
not in aggregation, GSB or the exports of real work; a gold item's answer is its label."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from annotate.judging.graded import grade_submit, queue_items
from annotate.judging.sxs import sxs_queue, verdict_submit
from annotate.models import GoldItem, Grade, Lease, PoolItem, SxsTask, TaskLease, Verdict
from annotate.services.aggregation import aggregate_qrels, qrels_stream
from annotate.services.exports import grade_rows
from annotate.services.gold import (
    GoldRefused,
    gold_from_adjudications,
    gold_item_clear,
    gold_item_set,
    gold_task_clear,
    gold_task_set,
    labels_in_range,
)
from tests.annotate.queue_helpers import queue_setup
from tests.annotate.sxs_helpers import distinct_lists, make_comparison


@pytest.fixture
def setup(personas):
    campaign, items, raters, good, bad = queue_setup(
        personas.campaign, overlap=1, queries=3, docs_per_query=2, raters=3
    )
    campaign.honeypot_share = 0.0
    campaign.save()
    return campaign, items, raters, good, bad, personas.manager


def _counted(item) -> int:
    return PoolItem.objects.get(pk=item.pk).counted


def _check_clean() -> str:
    out = StringIO()
    call_command("counted_check", stdout=out)
    return out.getvalue()


def test_answers_to_a_gold_item_leave_its_counters_and_come_back_when_unmarked(setup):
    campaign, items, raters, good, bad, manager = setup
    item = items[0]
    queue_items(rater=raters[0], campaign=campaign)  # leases q0, whose first item this is
    grade_submit(rater=raters[0], campaign=campaign, item_id=item.pk, label_id=good.pk)
    assert _counted(item) == 1
    gold_item_set(campaign=campaign, manager=manager, item_id=item.pk, label_id=bad.pk)
    assert _counted(item) == 0
    assert Grade.objects.get(pool_item=item).gold
    _check_clean()  # exits 1 (raises) when a counter is off
    gold_item_clear(campaign=campaign, item_id=item.pk)
    assert _counted(item) == 1
    assert not Grade.objects.get(pool_item=item).gold
    _check_clean()


def test_counted_check_sees_a_gold_answer_counted(setup):
    campaign, items, raters, good, bad, manager = setup
    item = items[0]
    gold_item_set(campaign=campaign, manager=manager, item_id=item.pk, label_id=bad.pk)
    Grade.objects.create(pool_item=item, rater=raters[1], label=good, gold=True)
    assert _counted(item) == 0
    PoolItem.objects.filter(pk=item.pk).update(counted=1)  # as if a trigger had counted it
    with pytest.raises(CommandError):
        call_command("counted_check", stdout=StringIO())
    call_command("counted_check", "--fix", stdout=StringIO())
    assert _counted(item) == 0
    # An answer to gold that lost its flag (a hand-made SQL session) is found and mended.
    Grade.objects.filter(pool_item=item).update(gold=False)
    assert _counted(item) == 1
    with pytest.raises(CommandError):
        call_command("counted_check", stdout=(out := StringIO()))
    assert "gold flag" in out.getvalue()
    call_command("counted_check", "--fix", stdout=StringIO())
    assert Grade.objects.get(pool_item=item).gold and _counted(item) == 0


def test_gold_answers_are_taken_beyond_the_needed_raters(setup):
    campaign, items, raters, good, bad, manager = setup
    item = items[0]
    gold_item_set(campaign=campaign, manager=manager, item_id=item.pk, label_id=good.pk)
    for rater in raters:  # overlap is 1; gold takes every rater it is leased to
        Lease.objects.create(
            pool_item=item, rater=rater, expires_at=timezone.now() + timedelta(minutes=5)
        )
        outcome = grade_submit(rater=rater, campaign=campaign, item_id=item.pk, label_id=bad.pk)
        assert outcome.created
    assert Grade.objects.filter(pool_item=item, gold=True).count() == 3
    assert _counted(item) == 0


def test_the_walk_never_offers_gold(setup):
    campaign, items, raters, good, bad, manager = setup
    gold_item_set(campaign=campaign, manager=manager, item_id=items[0].pk, label_id=good.pk)
    held = queue_items(rater=raters[0], campaign=campaign)
    assert [t.pk for t in held] == [items[1].pk]  # q0 without its gold item


def test_a_gold_items_answer_is_its_label_and_gold_answers_stay_out_of_qrels(setup):
    campaign, items, raters, good, bad, manager = setup
    item, other = items[2], items[3]  # q1
    queue_items(rater=raters[0], campaign=campaign)  # q0
    queue_items(rater=raters[1], campaign=campaign)  # q1
    grade_submit(rater=raters[1], campaign=campaign, item_id=item.pk, label_id=good.pk)
    grade_submit(rater=raters[1], campaign=campaign, item_id=other.pk, label_id=good.pk)
    gold_item_set(
        campaign=campaign, manager=manager, item_id=item.pk, label_id=bad.pk, explanation="off"
    )
    table = aggregate_qrels(campaign=campaign)
    rows = {(q, d): (g, n) for q, d, g, n in table.rows()}
    assert rows[("q1", "q1-d0")] == (bad.grade, 0)  # the gold label; the gold answer left out
    assert rows[("q1", "q1-d1")] == (good.grade, 1)
    streamed = {(q, d): (g, n) for q, d, g, n in qrels_stream(campaign=campaign).rows()}
    assert streamed == rows
    exported = [row for row in grade_rows(campaign=campaign)]
    assert len(exported) == 1  # the real answer only


def test_unmarking_removes_only_the_ruling_gold_made(setup):
    from annotate.services.adjudication import adjudication_set

    campaign, items, raters, good, bad, manager = setup
    gold_item_set(campaign=campaign, manager=manager, item_id=items[0].pk, label_id=bad.pk)
    adjudication_set(campaign=campaign, manager=manager, item_id=items[1].pk, label_id=good.pk)
    gold_item_set(campaign=campaign, manager=manager, item_id=items[1].pk, label_id=bad.pk)
    gold_item_clear(campaign=campaign, item_id=items[0].pk)
    gold_item_clear(campaign=campaign, item_id=items[1].pk)
    assert not hasattr(PoolItem.objects.get(pk=items[0].pk), "adjudication")
    assert PoolItem.objects.get(pk=items[1].pk).adjudication.label == bad


def test_gold_from_adjudications_in_one_action(setup):
    from annotate.services.adjudication import adjudication_set

    campaign, items, raters, good, bad, manager = setup
    adjudication_set(
        campaign=campaign, manager=manager, item_id=items[0].pk, label_id=good.pk, note="clear"
    )
    adjudication_set(campaign=campaign, manager=manager, item_id=items[1].pk, label_id=bad.pk)
    assert gold_from_adjudications(campaign=campaign, manager=manager) == 2
    golds = {g.pool_item_id: g for g in GoldItem.objects.all()}
    assert golds[items[0].pk].label == good and golds[items[0].pk].explanation == "clear"
    assert [label.pk for label in golds[items[1].pk].accepted.all()] == [bad.pk]
    assert gold_from_adjudications(campaign=campaign, manager=manager) == 0


def test_refusals_change_nothing(setup, personas):
    campaign, items, raters, good, bad, manager = setup
    foreign = personas.other_campaign.labels.first()
    cases = [
        dict(item_id=items[0].pk, label_id=foreign.pk),
        dict(item_id=10**9, label_id=good.pk),
        dict(item_id="x", label_id=good.pk),
        dict(item_id=items[0].pk, label_id=good.pk, purpose="nope"),
        dict(item_id=items[0].pk, label_id=good.pk, explanation="x" * 3000),
        dict(item_id=items[0].pk, label_id=good.pk, accepted=[foreign.pk]),
    ]
    for case in cases:
        with pytest.raises(GoldRefused):
            gold_item_set(campaign=campaign, manager=manager, **case)
    assert not GoldItem.objects.exists()
    assert not PoolItem.objects.filter(gold=True).exists()
    with pytest.raises(GoldRefused):
        labels_in_range(campaign=campaign, low=5, high=9)


def test_a_range_accepts_the_labels_inside_it(setup):
    campaign, items, raters, good, bad, manager = setup
    labels = labels_in_range(campaign=campaign, low=bad.grade, high=good.grade)
    assert {label.pk for label in labels} >= {good.pk, bad.pk}
    gold = gold_item_set(
        campaign=campaign,
        manager=manager,
        item_id=items[0].pk,
        label_id=good.pk,
        accepted=[label.pk for label in labels],
    )
    assert gold.accepted.count() == len(labels)


@pytest.fixture
def comparison(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(3), raters_per_task=1)
    personas.campaign.honeypot_share = 0.0
    personas.campaign.save()
    return comparison


def test_verdicts_on_a_gold_task_leave_its_counters_and_gsb(personas, comparison):
    from metrics.decide.gsb import verdict_arrays

    rater, manager = personas.rater, personas.manager
    task = SxsTask.objects.filter(comparison=comparison).order_by("query__external_id").first()
    held = sxs_queue(rater=rater, comparison=comparison)
    assert held[0][0].pk == task.pk
    verdict_submit(rater=rater, comparison=comparison, task_id=task.pk, chosen="same")
    assert SxsTask.objects.get(pk=task.pk).counted == 1
    assert len(verdict_arrays(comparison).task) == 1
    gold_task_set(comparison=comparison, manager=manager, task_id=task.pk, value="G")
    assert SxsTask.objects.get(pk=task.pk).counted == 0
    assert len(verdict_arrays(comparison).task) == 0
    assert Verdict.objects.get(task=task).gold
    _check_clean()
    gold_task_clear(comparison=comparison, task_id=task.pk)
    assert SxsTask.objects.get(pk=task.pk).counted == 1
    with pytest.raises(GoldRefused):
        gold_task_set(comparison=comparison, manager=manager, task_id=task.pk, value="X")


def test_answers_to_gold_have_their_own_export_and_only_there(setup, personas):
    from annotate.services.exports import verdict_rows
    from annotate.services.gold_exports import GOLD_FIELDS, gold_answer_rows

    campaign, items, raters, good, bad, manager = setup
    queue_items(rater=raters[0], campaign=campaign)  # q0
    for item, label in ((items[0], good), (items[1], bad)):
        grade_submit(rater=raters[0], campaign=campaign, item_id=item.pk, label_id=label.pk)
    gold_item_set(campaign=campaign, manager=manager, item_id=items[0].pk, label_id=good.pk)
    gold_item_set(campaign=campaign, manager=manager, item_id=items[1].pk, label_id=good.pk,
                  accepted=[good.pk])  # fmt: skip
    lists = {"sx1": (["sx1-a"], ["sx1-b"])}  # the pool's queries are q0..q2
    comparison = make_comparison(campaign, lists, raters_per_task=1)
    task = comparison.tasks.get(query__external_id="sx1")
    TaskLease.objects.create(
        task=task, rater=raters[0], candidate_side="L",
        expires_at=timezone.now() + timedelta(minutes=5),
    )  # fmt: skip
    verdict = verdict_submit(rater=raters[0], comparison=comparison, task_id=task.pk, chosen="same")
    gold_task_set(comparison=comparison, manager=manager, task_id=task.pk, value="S")
    rows = [dict(zip(GOLD_FIELDS, row, strict=True)) for row in gold_answer_rows(campaign=campaign)]
    right = {(r["kind"], r["doc_id"], r["answer"]): r["right"] for r in rows}
    assert right == {
        ("graded", "q0-d0", "Good"): True,
        ("graded", "q0-d1", "Bad"): False,
        ("side-by-side", None, verdict.verdict.value): True,
    }
    assert list(grade_rows(campaign=campaign)) == []
    assert list(verdict_rows(campaign=campaign)) == []
