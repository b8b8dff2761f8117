"""Adjudications: a manager's ruling wins over the raters' aggregate in the qrels (every rule,
hand-computed), a ruled pair without counted grades gets a line, the export says so, and the
service refuses what is not the campaign's."""

from __future__ import annotations

import numpy as np
import pytest
from django.contrib.auth import get_user_model

from annotate.models import Adjudication
from annotate.services.adjudication import (
    AdjudicationRefused,
    adjudication_clear,
    adjudication_set,
)
from annotate.services.aggregation import aggregate_qrels, qrels_stream
from annotate.services.exports import export_qrels
from metrics.core.aggregate import apply_adjudications
from tests.annotate.judgment_data import grade, pool_item

NAMES = {3: "Good", 2: "Fair", 1: "Bad", None: None}


@pytest.fixture
def raters(db):
    return [get_user_model().objects.create_user(username=f"r{i}") for i in range(3)]


@pytest.fixture
def judged(personas, raters):
    """q1/d1: Good, Bad, Bad (mean 5/3, median 1, majority 1); q1/d2: Good, Fair (mean 2.5,
    median 2.5, majority 2); q2/d3: can't judge twice (no line); q2/d4: never graded."""
    c = personas.campaign
    for qid, did, grades in [
        ("q1", "d1", [3, 1, 1]),
        ("q1", "d2", [3, 2]),
        ("q2", "d3", [None, None]),
        ("q2", "d4", []),
    ]:
        item = pool_item(c, qid, did)
        for rater, g in zip(raters, grades, strict=False):
            grade(item, rater, NAMES[g])
    return c


def rule(campaign, manager, qid, did, label_name, note=""):
    item = pool_item(campaign, qid, did)
    label = campaign.labels.get(name=label_name)
    return adjudication_set(
        campaign=campaign, manager=manager, item_id=item.pk, label_id=label.pk, note=note
    )


def table(campaign, rule_name):
    """The qrels with their adjudicated flags; the streamed form (exports) must agree line for
    line with the columns (reports), and say as many lines and rulings up front."""
    qrels = aggregate_qrels(campaign=campaign, rule=rule_name)
    got = [
        (q, d, round(g, 12), n, bool(a))
        for (q, d, g, n), a in zip(qrels.rows(), qrels.adjudicated, strict=True)
    ]
    streamed = qrels_stream(campaign=campaign, rule=rule_name)
    assert [(q, d, round(g, 12), n, a) for q, d, g, n, a in streamed.lines()] == got
    assert (streamed.count, streamed.settled) == (len(got), sum(a for *_, a in got))
    assert streamed.note == qrels.note
    return {(q, d): (g, n, a) for q, d, g, n, a in got}


@pytest.mark.parametrize(("rule_name", "d2"), [("mean", 2.5), ("median", 2.5), ("majority", 2.0)])
def test_a_ruling_wins_over_every_rule_and_keeps_the_count(judged, personas, rule_name, d2):
    rule(judged, personas.manager, "q1", "d1", "Good")
    assert table(judged, rule_name) == {
        ("q1", "d1"): (3.0, 3, True),  # the raters said 5/3, 1 or 1: the manager says Good
        ("q1", "d2"): (d2, 2, False),
    }


def test_a_ruling_on_a_pair_nobody_could_grade_adds_a_line(judged, personas):
    rule(judged, personas.manager, "q2", "d3", "Fair")
    rule(judged, personas.manager, "q2", "d4", "Bad")
    got = table(judged, "mean")
    assert got[("q2", "d3")] == (2.0, 0, True)
    assert got[("q2", "d4")] == (1.0, 0, True)
    assert list(got) == [("q1", "d1"), ("q1", "d2"), ("q2", "d3"), ("q2", "d4")]


def test_a_second_ruling_replaces_the_first_and_clearing_restores_the_aggregate(judged, personas):
    first = rule(judged, personas.manager, "q1", "d1", "Good", note="clearly the product")
    second = rule(judged, personas.manager, "q1", "d1", "Fair", note="on reflection")
    assert first.pk == second.pk and Adjudication.objects.count() == 1
    assert table(judged, "median")[("q1", "d1")] == (2.0, 3, True)
    assert adjudication_clear(campaign=judged, item_id=first.pool_item_id) is True
    assert table(judged, "median")[("q1", "d1")] == (1.0, 3, False)
    assert adjudication_clear(campaign=judged, item_id=first.pool_item_id) is False


def test_the_qrels_export_carries_the_ruling_and_says_so(judged, personas):
    rule(judged, personas.manager, "q1", "d1", "Good")
    export = export_qrels(campaign=judged, rule="mean")
    assert "".join(export.chunks) == "q1 0 d1 3\nq1 0 d2 3\n"
    assert "1 pair settled by a manager" in export.headers["X-Aggregation-Note"]
    assert "settled by a manager" in export.note


def test_without_rulings_the_note_is_unchanged(judged):
    assert "settled" not in aggregate_qrels(campaign=judged, rule="mean").note


def test_it_refuses_an_item_or_label_of_another_campaign(judged, personas):
    other = personas.other_campaign
    foreign_item = pool_item(other, "q1", "d1")
    own_item = pool_item(judged, "q1", "d1")
    with pytest.raises(AdjudicationRefused, match="not part of this campaign"):
        adjudication_set(
            campaign=judged,
            manager=personas.manager,
            item_id=foreign_item.pk,
            label_id=judged.labels.first().pk,
        )
    with pytest.raises(AdjudicationRefused, match="campaign's labels"):
        adjudication_set(
            campaign=judged,
            manager=personas.manager,
            item_id=own_item.pk,
            label_id=other.labels.first().pk,
        )
    assert not Adjudication.objects.exists()


def test_the_pure_merge_on_arrays():
    rulings = np.array(
        [(5, 1, 50, 3.0), (9, 2, 90, 1.0)],
        dtype=[("item", "i8"), ("q", "i8"), ("d", "i8"), ("g", "f8")],
    )
    out = apply_adjudications(
        item=np.array([3, 5, 7]),
        query_id=np.array([1, 1, 2]),
        document_id=np.array([30, 50, 70]),
        grade=np.array([2.0, 1.5, 2.5]),
        n=np.array([2, 2, 3]),
        rulings=rulings,
    )
    assert out.item.tolist() == [3, 5, 7, 9]
    assert out.grade.tolist() == [2.0, 3.0, 2.5, 1.0]
    assert out.n.tolist() == [2, 2, 3, 0]
    assert out.adjudicated.tolist() == [False, True, False, True]
    assert out.document_id.tolist() == [30, 50, 70, 90]
