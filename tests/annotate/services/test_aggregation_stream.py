"""Streamed qrels (exports): the lines are aggregated as the grades are read, never after
reading them all, and they are the lines of the column form (aggregate_qrels, which the reports
use) on data made to catch the edge cases: ties, can't judge, rulings, many raters, byte order
and batches that end inside a query."""

from __future__ import annotations

import numpy as np
import pytest
from django.contrib.auth import get_user_model

from annotate.models import Aggregation
from annotate.services import aggregation
from annotate.services.adjudication import adjudication_set
from annotate.services.aggregation import (
    QrelsLine,
    aggregate_qrels,
    aggregated_lines,
    qrels_stream,
)
from tests.annotate.judgment_data import grade, pool_item

RULES = [Aggregation.MEAN, Aggregation.MEDIAN, Aggregation.MAJORITY, Aggregation.DAWID_SKENE]
NAMES = {3: "Good", 2: "Fair", 1: "Bad", None: None}


def counted_rows(rows, seen):
    for row in rows:
        seen.append(row)
        yield row


def test_lines_come_out_before_the_input_is_read_to_the_end():
    # 1,000 items of 3 grades each; batches of about 10 rows.
    rows = [
        (f"q{i // 10:03d}", f"d{i:04d}", i + 1, float(g), None)
        for i in range(1000)
        for g in (1, 2, 2)
    ]
    seen: list = []
    lines = aggregated_lines(counted_rows(rows, seen), "majority", batch=10)
    first = next(lines)
    assert first == QrelsLine("q000", "d0000", 2.0, 3, False)
    # At most one batch and the first row of the next item were read: not the 3,000 rows.
    assert len(seen) <= 10 + 3
    assert sum(1 for _ in lines) == 999
    assert len(seen) == len(rows)


def test_the_export_reads_the_grades_through_an_iterator(monkeypatch, personas):
    judged = personas.campaign
    raters = [get_user_model().objects.create_user(username=f"r{i}") for i in range(2)]
    for did in ("d1", "d2"):
        item = pool_item(judged, "q1", did)
        for rater in raters:
            grade(item, rater, "Good")
    kernel = aggregation.aggregated_lines
    given = []

    def spy(rows, rule, **kwargs):
        given.append(rows)
        return kernel(rows, rule, **kwargs)

    monkeypatch.setattr(aggregation, "aggregated_lines", spy)
    lines = list(qrels_stream(campaign=judged, rule="mean").lines())
    assert [line[:4] for line in lines] == [("q1", "d1", 3.0, 2), ("q1", "d2", 3.0, 2)]
    # An iterator is its own iter(): a list or tuple of every row (the whole campaign in
    # memory) is not.
    assert len(given) == 1 and iter(given[0]) is given[0]


def test_a_batch_never_splits_an_item():
    # Batch of 2 rows: item 1's three grades still make one line with n = 3.
    rows = [("q", "a", 1, 1.0, None), ("q", "a", 1, 3.0, None), ("q", "a", 1, 3.0, None)]
    rows += [("q", "b", 2, 2.0, None), ("q", "c", 3, None, 1.0), ("q", "d", 4, None, None)]
    assert list(aggregated_lines(rows, "median", batch=2)) == [
        QrelsLine("q", "a", 3.0, 3, False),
        QrelsLine("q", "b", 2.0, 1, False),
        QrelsLine("q", "c", 1.0, 0, True),  # a ruling and no counted grade: n = 0
    ]


@pytest.fixture
def raters(db):
    return [get_user_model().objects.create_user(username=f"r{i}") for i in range(6)]


@pytest.fixture
def tricky(personas, raters):
    """Ties for majority and even counts for median, can't judge mixed in, rulings on a graded
    pair, on a pair nobody could grade and on a pair never graded, ids whose byte order is not
    their alphabetical order, and a second campaign with the same ids."""
    c = personas.campaign
    data = [
        ("q1", "d1", [3, 2]),
        ("q1", "d2", [3, 1, 1, None]),
        ("q1", "B", [3, 3, 2, 1, 1, 2]),
        ("q1", "b", [None, 1]),
        ("q1", "é", [2, 2, 3, 3]),
        ("Q9", "z", [1]),
        ("q2", "d1", [3, 2, 2, 1, 1]),
        ("q2", "d5", [None, None]),
        ("q2", "d6", []),
        ("q2", "d7", [None]),
        ("q10", "d1", [2, 3, None, 3, 2, 1]),
    ]
    for qid, did, grades in data:
        item = pool_item(c, qid, did)
        for rater, g in zip(raters, grades, strict=False):
            grade(item, rater, NAMES[g])
    for qid, did, label in [("q1", "d2", "Good"), ("q2", "d5", "Fair"), ("q2", "d6", "Bad")]:
        adjudication_set(
            campaign=c,
            manager=personas.manager,
            item_id=pool_item(c, qid, did).pk,
            label_id=c.labels.get(name=label).pk,
        )
    item = pool_item(personas.other_campaign, "q1", "d1")
    for rater in raters[:3]:
        grade(item, rater, "Bad")
    return c


def columns(campaign, rule):
    """The reference: the column form's lines with their flags."""
    table = aggregate_qrels(campaign=campaign, rule=rule)
    return [
        QrelsLine(q, d, g, n, bool(a))
        for (q, d, g, n), a in zip(table.rows(), table.adjudicated, strict=True)
    ], table


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("batch", [1, 2, 5, 5000])
def test_the_stream_gives_the_column_forms_lines_on_tricky_data(tricky, monkeypatch, rule, batch):
    monkeypatch.setattr(aggregation, "_CHUNK", batch)
    expected, table = columns(tricky, rule)
    stream = qrels_stream(campaign=tricky, rule=rule)
    assert list(stream.lines()) == expected  # exact floats, flags and order
    assert (len(stream), stream.settled, stream.note) == (len(table), 3, table.note)
    assert "3 pairs settled by a manager" in stream.note
    assert list(stream.rows()) == list(table.rows())


def test_the_tricky_data_by_hand(tricky):
    # A few lines checked against hand computation, so the reference is not only itself.
    got = {
        (line.query, line.document): line[2:]
        for line in qrels_stream(campaign=tricky, rule="majority").lines()
    }
    assert got[("q1", "B")] == (1.0, 6, False)  # 3,3,2,2,1,1: a three-way tie, lowest wins
    assert got[("q1", "d2")] == (3.0, 3, True)  # raters 1,1,3: the ruling says Good
    assert got[("q2", "d5")] == (2.0, 0, True)  # nobody could judge: the ruling alone
    assert got[("q2", "d6")] == (1.0, 0, True)  # never graded: the ruling alone
    assert ("q2", "d7") not in got  # can't judge only, no ruling: no line
    assert list(got) == [  # byte order: upper case first, "q10" before "q2", "é" last
        ("Q9", "z"),
        ("q1", "B"),
        ("q1", "b"),
        ("q1", "d1"),
        ("q1", "d2"),
        ("q1", "é"),
        ("q10", "d1"),
        ("q2", "d1"),
        ("q2", "d5"),
        ("q2", "d6"),
    ]


def test_the_stream_matches_the_columns_on_random_data(personas, raters, monkeypatch):
    monkeypatch.setattr(aggregation, "_CHUNK", 7)
    c = personas.campaign
    rng = np.random.default_rng(7)
    labels = list(c.labels.order_by("grade"))
    for q in range(12):
        for d in rng.choice(40, size=6, replace=False):
            item = pool_item(c, f"q{q}", f"d{d}")
            for rater in raters[: rng.integers(0, len(raters) + 1)]:
                pick = rng.integers(-1, len(labels))
                grade(item, rater, None if pick < 0 else labels[pick].name)
            if rng.random() < 0.15:
                adjudication_set(
                    campaign=c,
                    manager=personas.manager,
                    item_id=item.pk,
                    label_id=labels[rng.integers(len(labels))].pk,
                )
    for rule in RULES:
        expected, table = columns(c, rule)
        assert len(expected) > 30
        stream = qrels_stream(campaign=c, rule=rule)
        assert list(stream.lines()) == expected
        assert (len(stream), stream.note) == (len(table), table.note)


def test_dawid_skene_qrels_are_crowd_kits_labels_of_the_campaigns_grades(personas, raters):
    """The database path (every counted grade with its rater) gives crowd-kit's Dawid-Skene
    labels: the reference library, not our kernel, decides the expected grades."""
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    import pandas as pd

    c = personas.campaign
    rng = np.random.default_rng(3)
    labels = list(c.labels.order_by("grade"))
    answers = []
    for q in range(10):
        for d in range(6):
            item = pool_item(c, f"q{q}", f"d{d}")
            truth = int(rng.integers(len(labels)))
            for r, rater in enumerate(raters):
                # The last rater answers the next label up: adversarial.
                pick = (truth + 1) % len(labels) if r == len(raters) - 1 else truth
                if rng.random() < 0.25 and r != len(raters) - 1:
                    pick = int(rng.integers(len(labels)))
                grade(item, rater, labels[pick].name)
                answers.append((f"q{q}/d{d}", rater.pk, labels[pick].grade))
    frame = pd.DataFrame(answers, columns=["task", "worker", "label"])
    expected = crowdkit.DawidSkene(n_iter=100, tol=1e-5).fit_predict(frame)
    got = {
        f"{q}/{d}": g
        for q, d, g, _ in aggregate_qrels(campaign=c, rule=Aggregation.DAWID_SKENE).rows()
    }
    assert len(got) == 60
    agree = np.mean([got[task] == float(expected[task]) for task in got])
    assert agree >= 0.99
