"""The per-rater quality figures (#18) cost a fixed number of queries: the rules' figures for
one rater (read every few answers) and the managers' page alike, whatever the number of
comparisons, raters and answers; and the counts the database now takes match hand counts
over graded items and side-by-side tasks of several comparisons."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotate.models import Comparison, Side, SxsTask, Verdict
from annotate.selectors.quality import campaign_labels, rater_quality, rater_rule_figures
from annotate.services.gold import gold_item_set, gold_task_set
from tests.annotate.judgment_data import grade, make_run, pool_item, query
from tests.annotate.queue_helpers import make_raters

pytestmark = pytest.mark.django_db


def _comparison(campaign, name: str) -> Comparison:
    """A comparison made directly (its tasks are added by hand below)."""
    baseline = make_run(campaign, f"{name}-base", [("q0", "d0", 1, 1.0)])
    candidate = make_run(campaign, f"{name}-cand", [("q0", "d1", 1, 1.0)])
    return Comparison.objects.create(
        campaign=campaign, name=name, baseline=baseline, candidate=candidate
    )


def _task(comparison, qid: str, *, mirror_of=None, rater=None) -> SxsTask:
    extra = {"mirror_of": mirror_of, "mirror_rater": rater, "mirror_side": Side.RIGHT}
    return SxsTask.objects.create(
        comparison=comparison, query=query(comparison.campaign, qid), **(extra if rater else {})
    )


def _verdict(task, rater, value: str | None, seconds: float = 4.0) -> Verdict:
    """A verdict in the candidate's terms; None means "can't judge"."""
    return Verdict.objects.create(
        task=task,
        rater=rater,
        value=value or "",
        cant_judge=value is None,
        candidate_side=Side.LEFT,
        seconds=seconds,
    )


def _grow(campaign, rater, tag: str, others: int) -> None:
    """One more comparison with a gold task, a plain task and the rater's mirror of it, a gold
    pool item and a plain one, all answered by the rater and by `others` new raters."""
    comparison = _comparison(campaign, tag)
    gold, plain = _task(comparison, f"{tag}-q1"), _task(comparison, f"{tag}-q2")
    mirror = _task(comparison, f"{tag}-q2", mirror_of=plain, rater=rater)
    items = [pool_item(campaign, f"{tag}-q3", f"{tag}-d{i}") for i in range(2)]
    for i, user in enumerate([rater, *make_raters(campaign, others, prefix=f"{tag}-r")]):
        _verdict(gold, user, "GB"[i % 2])
        _verdict(plain, user, "S")
        for item in items:
            grade(item, user, ("Good", "Bad")[i % 2], seconds=3.0 + i)
    _verdict(mirror, rater, "B")
    gold_task_set(comparison=comparison, manager=None, task_id=gold.pk, value="G")
    good = campaign.labels.get(name="Good")
    gold_item_set(campaign=campaign, manager=None, item_id=items[0].pk, label_id=good.pk)


def _queries(call) -> int:
    with CaptureQueriesContext(connection) as captured:
        call()
    return len(captured.captured_queries)


def test_the_rules_figures_cost_the_same_queries_for_1_or_5_comparisons(
    personas, django_assert_num_queries
):
    campaign, rater = personas.campaign, personas.rater
    _grow(campaign, rater, "c0", others=1)
    small = _queries(lambda: rater_rule_figures(campaign, rater.pk))
    for n in range(1, 5):
        _grow(campaign, rater, f"c{n}", others=3)
    with django_assert_num_queries(small):
        figures = rater_rule_figures(campaign, rater.pk)
    # Hand counts: the rater said G (right) on each of 5 gold tasks, graded the 5 gold items
    # Good (right), and said B on each mirror of an S (inconsistent).
    assert (figures.sxs_gold.k, figures.sxs_gold.n) == (5, 5)
    assert (figures.gold_exact.k, figures.gold_within.k, figures.gold_exact.n) == (5, 5, 5)
    assert (figures.consistency.k, figures.consistency.n) == (0, 5)


def test_the_quality_page_figures_cost_the_same_queries_for_1_or_5_comparisons(
    personas, django_assert_num_queries
):
    campaign, rater = personas.campaign, personas.rater
    _grow(campaign, rater, "c0", others=1)
    small = _queries(lambda: rater_quality(campaign))
    for n in range(1, 5):
        _grow(campaign, rater, f"c{n}", others=3)
    with django_assert_num_queries(small):
        rows = rater_quality(campaign)
    assert len(rows) == 1 + 1 + 4 * 3


@pytest.fixture
def by_hand(personas):
    """Three raters, three pool items (two gold) and two comparisons (a gold task in each),
    answers written so each figure can be counted by hand (see the tests)."""
    campaign, rater = personas.campaign, personas.rater
    r0, r1 = make_raters(campaign, 2)
    items = [pool_item(campaign, "q1", f"d{i}") for i in range(3)]
    for item, labels in zip(
        items, [("Good", "Good", "Bad"), ("Fair", None, "Fair"), ("Bad",)], strict=True
    ):
        for user, label in zip((rater, r0, r1), labels, strict=False):
            grade(item, user, label, seconds=5.0)
    good = campaign.labels.get(name="Good").pk
    for item in items:
        gold_item_set(campaign=campaign, manager=None, item_id=item.pk, label_id=good)
    first, second = _comparison(campaign, "one"), _comparison(campaign, "two")
    t1, t2 = _task(first, "s1"), _task(first, "s2")
    t3, t4 = _task(second, "s3"), _task(second, "s4")
    answers = {
        t1: [(rater, "G"), (r0, "B")],
        t2: [(rater, "S"), (r0, "S"), (r1, "G")],
        t3: [(rater, "G"), (r0, "B"), (r1, None)],
        t4: [(rater, "B"), (r0, "G")],
    }
    for task, verdicts in answers.items():
        for user, value in verdicts:
            _verdict(task, user, value)
    _verdict(_task(first, "s2", mirror_of=t2, rater=rater), rater, "S")  # consistent
    _verdict(_task(second, "s4", mirror_of=t4, rater=rater), rater, "G")  # not
    gold_task_set(comparison=first, manager=None, task_id=t1.pk, value="G")
    gold_task_set(comparison=second, manager=None, task_id=t3.pk, value="B")
    return campaign, rater, r0, r1


def test_the_figures_match_hand_counts_across_items_tasks_and_comparisons(by_hand):
    campaign, rater, r0, r1 = by_hand
    rows = {r.rater_id: r for r in rater_quality(campaign)}
    me, zero, one = rows[rater.pk], rows[r0.pk], rows[r1.pk]
    # Agreement, pairs with the others' answers on the same item or task (can't-judge and
    # mirrors apart): rater 1/2 + 1/1 on items, 0/1 + 1/2 + 0/1 + 0/1 on tasks; r0 1/2 on
    # items, 0/1 + 1/2 + 0/1 + 0/1 on tasks; r1 0/2 + 1/1 on items, 0/2 on tasks.
    assert [(x.agreement.k, x.agreement.n) for x in (me, zero, one)] == [(3, 8), (2, 7), (1, 5)]
    # Answers, can't-judge and mirrors included.
    assert [x.answers for x in (me, zero, one)] == [9, 6, 4]
    assert (me.consistency.k, me.consistency.n) == (1, 2)
    assert zero.consistency.n == 0
    # Gold, all accepting Good only: rater Good, Fair, Bad; r0 Good (and can't judge); r1 Bad,
    # Fair. Side by side: G right and G wrong; r0 B wrong and B right; r1 can't judge.
    assert [(x.gold_exact.k, x.gold_within.k, x.gold_exact.n) for x in (me, zero, one)] == [
        (1, 2, 3),
        (1, 1, 1),
        (0, 1, 2),
    ]
    assert [(x.sxs_gold.k, x.sxs_gold.n) for x in (me, zero, one)] == [(1, 2), (1, 2), (0, 0)]
    # Labels: two of each in the campaign; rater one of each, r0 Good alone, r1 Bad and Fair.
    names = [name for name, _ in campaign_labels(campaign)]
    assert dict(campaign_labels(campaign)) == pytest.approx({n: 1 / 3 for n in names})
    assert dict(zip(names, one.labels, strict=True)) == {"Bad": 0.5, "Fair": 0.5, "Good": 0.0}
    assert [x.label_distance for x in (me, zero, one)] == pytest.approx([0, 2 / 3, 1 / 3])
    rule = rater_rule_figures(campaign, rater.pk)
    assert (rule.gold_exact, rule.gold_within, rule.sxs_gold) == (
        me.gold_exact,
        me.gold_within,
        me.sxs_gold,
    )
    assert rule.consistency == me.consistency
