"""Grades into qrels: mean, median and majority, computed by hand (scale Good 3 / Fair 2 /
Bad 1)."""

from __future__ import annotations

import numpy as np
import pytest
from django.contrib.auth import get_user_model

from annotate.models import Aggregation, LabelSource, SourceLabel
from annotate.services.aggregation import (
    aggregate_qrels,
    qrels_stream,
    rule_note,
    source_qrels,
    source_qrels_stream,
)
from metrics.core.aggregate import aggregate
from tests.annotate.judgment_data import document, grade, pool_item, query

NAMES = {3: "Good", 2: "Fair", 1: "Bad", None: None}


@pytest.fixture
def raters(db):
    return [get_user_model().objects.create_user(username=f"r{i}") for i in range(5)]


def judge(campaign, raters, qid, did, grades):
    item = pool_item(campaign, qid, did)
    for rater, g in zip(raters, grades, strict=False):
        grade(item, rater, NAMES[g])
    return item


@pytest.fixture
def judged(personas, raters):
    c = personas.campaign
    judge(c, raters, "q1", "d1", [3, 2])  # mean 2.5, median 2.5, majority 2 (tie: lower)
    judge(c, raters, "q1", "d2", [3, 1, 1])  # mean 5/3, median 1, majority 1
    judge(c, raters, "q1", "d3", [3, 3, 2, 1])  # mean 2.25, median 2.5, majority 3
    judge(c, raters, "q2", "d1", [3, 2, 2, 1, 1])  # mean 1.8, median 2, majority 1 (2-2 tie)
    judge(c, raters, "q2", "d4", [3, None])  # can't judge left out: every rule 3, n 1
    judge(c, raters, "q2", "d5", [None, None])  # no counted grade: no line
    pool_item(c, "q3", "d1")  # never graded: no line
    # Another campaign with the same external ids: must never leak in.
    judge(personas.other_campaign, raters, "q1", "d1", [1, 1, 1])
    return c


@pytest.fixture(params=[aggregate_qrels, qrels_stream], ids=["columns", "stream"])
def make(request):
    """Both forms of the qrels (numpy columns for reports, streamed lines for exports) must
    give the hand-computed lines."""
    return request.param


def table(make, campaign, rule):
    qrels = make(campaign=campaign, rule=rule)
    return {(q, d): (round(g, 12), n) for q, d, g, n in qrels.rows()}


def test_mean(judged, make):
    assert table(make, judged, "mean") == {
        ("q1", "d1"): (2.5, 2),
        ("q1", "d2"): (round(5 / 3, 12), 3),
        ("q1", "d3"): (2.25, 4),
        ("q2", "d1"): (1.8, 5),
        ("q2", "d4"): (3.0, 1),
    }


def test_median_takes_the_mean_of_the_two_middle_grades_for_an_even_count(judged, make):
    assert table(make, judged, "median") == {
        ("q1", "d1"): (2.5, 2),
        ("q1", "d2"): (1.0, 3),
        ("q1", "d3"): (2.5, 4),
        ("q2", "d1"): (2.0, 5),
        ("q2", "d4"): (3.0, 1),
    }


def test_majority_breaks_ties_toward_the_lower_grade(judged, make):
    assert table(make, judged, "majority") == {
        ("q1", "d1"): (2.0, 2),
        ("q1", "d2"): (1.0, 3),
        ("q1", "d3"): (3.0, 4),
        ("q2", "d1"): (1.0, 5),
        ("q2", "d4"): (3.0, 1),
    }


def test_the_campaigns_rule_is_the_default(judged, make):
    judged.aggregation = Aggregation.MAJORITY
    judged.save()
    qrels = make(campaign=judged)
    assert qrels.rule == "majority"
    assert table(make, judged, None) == table(make, judged, "majority")


def test_it_refuses_an_unknown_rule(judged, make):
    with pytest.raises(ValueError, match="unknown aggregation rule 'mode'"):
        make(campaign=judged, rule="mode")
    with pytest.raises(ValueError, match="unknown aggregation rule"):
        make(campaign=judged, rule="source")


def test_rows_come_sorted_by_query_then_document_in_byte_order(personas, raters, make):
    c = personas.campaign
    for qid, did in [("q2", "a"), ("q1", "é"), ("q1", "b"), ("q1", "B"), ("Q9", "z")]:
        judge(c, raters, qid, did, [2])
    rows = [(q, d) for q, d, _, _ in make(campaign=c, rule="mean").rows()]
    assert rows == [("Q9", "z"), ("q1", "B"), ("q1", "b"), ("q1", "é"), ("q2", "a")]


def test_internal_ids_line_up_with_external_ids(judged):
    qrels = aggregate_qrels(campaign=judged, rule="mean")
    i = list(qrels.document_external_id).index("d4")
    assert qrels.query_id[i] == query(judged, "q2").pk
    assert qrels.document_id[i] == document(judged, "d4").pk


def test_a_campaign_without_grades_has_empty_qrels(personas, make):
    qrels = make(campaign=personas.campaign, rule="median")
    assert len(qrels) == 0
    assert list(qrels.rows()) == []


def test_the_rule_is_described_with_its_tie_rule():
    assert rule_note("majority") == (
        "most frequent grade; a tie goes to the lower grade; can't-judge answers left out"
    )
    assert "mean of the two middle grades" in rule_note("median")


@pytest.mark.parametrize(
    ("rule", "expected"),
    [("mean", [2.0, 4.0]), ("median", [2.0, 4.0]), ("majority", [1.0, 4.0])],
)
def test_the_kernel_on_arrays(rule, expected):
    # Item 7: grades 1, 2, 3 (one each: majority takes the lowest); item 5: a single 4.
    items, values, counts = aggregate(np.array([7, 5, 7, 7]), np.array([3.0, 4.0, 1.0, 2.0]), rule)
    assert items.tolist() == [5, 7]
    assert values[::-1].tolist() == expected
    assert counts.tolist() == [1, 3]


@pytest.mark.parametrize("make_source", [source_qrels, source_qrels_stream])
def test_source_qrels_are_the_imported_labels(personas, make_source):
    c = personas.campaign
    source = LabelSource.objects.create(campaign=c, name="team-x")
    for qid, did, g in [("q2", "d1", 0.0), ("q1", "d2", -1.0), ("q1", "d1", 2.5)]:
        SourceLabel.objects.create(
            source=source, query=query(c, qid), document=document(c, did), grade=g
        )
    other = LabelSource.objects.create(campaign=c, name="team-y")
    SourceLabel.objects.create(
        source=other, query=query(c, "q1"), document=document(c, "d9"), grade=3
    )
    qrels = make_source(source=source)
    assert (qrels.rule, qrels.source, len(qrels)) == ("source", "team-x", 3)
    assert list(qrels.rows()) == [
        ("q1", "d1", 2.5, 1),
        ("q1", "d2", -1.0, 1),
        ("q2", "d1", 0.0, 1),
    ]
