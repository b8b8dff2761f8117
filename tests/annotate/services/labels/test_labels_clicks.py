"""Clicks over expected clicks (the earlier `ctr` model, kept as `--model ctr`) and purchases,
against hand-computed examples.

The log below has, over all its rows (the filler query "zz" included):

    position 1: 1000 impressions, 400 clicks -> CTR 0.40
    position 2: 1000 impressions, 200 clicks -> CTR 0.20
    position 10: 1000 impressions, 20 clicks -> CTR 0.02

    pair     shown               clicks  raw CTR  expected                   ratio   grade
    q1 d1    100 at 1            30      0.30     100 * 0.4 = 40             0.75    Fair (>= 0.75)
    q1 d2    100 at 10           6       0.06     100 * 0.02 = 2             3.0     Good
    q1 d3    50 at 2, 50 at 10   5       0.05     50 * 0.2 + 50 * 0.02 = 11  0.4545  Bad
    q2 d4    10 at 1             10      1.00     (10 < 20 impressions)      -       no label
    q2 d5    40 at 1             24      0.60     40 * 0.4 = 16              1.5     Good (>= 1.5)

d2 is the document shown only low on the page: its raw CTR (0.06) is a fifth of d1's (0.30),
yet it earns twice as many clicks as an average result there would, and d1 fewer.
"""

from __future__ import annotations

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from annotate.models import BehaviourLog, Document, LabelSource, SourceLabel
from annotate.services.campaigns import campaign_create
from annotate.services.imports import ImportFailed
from annotate.services.labels.clicks import (
    click_scores,
    default_thresholds,
    derive_clicks,
    parse_thresholds,
    ratio_grades,
)
from annotate.services.labels.logs import import_log
from annotate.services.labels.purchases import derive_purchases
from tests.annotate.import_support import add_queries, write

pytestmark = pytest.mark.django_db

LOG = """qid,docno,position,impressions,clicks,purchases
q1,d1,1,100,30,1
q1,d2,10,100,6,0
q1,d3,2,50,5,0
q1,d3,10,50,0,2
q2,d4,1,10,10,0
q2,d5,1,40,24,0
zz,x,1,850,336,0
zz,x,2,950,195,0
zz,x,10,850,14,0
"""


def labels(name: str) -> dict[tuple[str, str], float]:
    rows = SourceLabel.objects.filter(source__name=name).values_list(
        "query__external_id", "document__external_id", "grade"
    )
    return {(q, d): g for q, d, g in rows}


@pytest.fixture
def log(tmp_path):
    campaign = campaign_create(name="Clicks", slug="clicks")
    add_queries(campaign, "q1", "q2")
    Document.objects.bulk_create(
        Document(campaign=campaign, external_id=f"d{i}") for i in range(1, 6)
    )
    import_log(campaign=campaign, file=write(tmp_path, "log.csv", LOG), name="week")
    return BehaviourLog.objects.get(name="week")


def test_clicks_over_expected_grades_the_hand_computed_example(log):
    summary = derive_clicks(log=log, name="week", model="ctr")
    assert labels("clicks:week") == {
        ("q1", "d1"): 2.0,
        ("q1", "d2"): 3.0,
        ("q1", "d3"): 1.0,
        ("q2", "d5"): 3.0,
    }
    assert summary.created == 4
    params = LabelSource.objects.get(name="clicks:week").params
    assert params["ctr_by_position"] == {"1": 0.4, "2": 0.2, "10": 0.02}
    assert params["min_impressions"] == 20
    assert params["thresholds"] == [
        {"ratio_at_least": 1.5, "grade": 3.0},
        {"ratio_at_least": 0.75, "grade": 2.0},
    ]
    assert params["below_min_impressions"] == 1
    assert "expected" in params["formula"] and params["method"].startswith("clicks over")
    assert LabelSource.objects.get(name="clicks:week").kind == "clicks"


def test_a_document_shown_low_beats_a_document_shown_on_top(log):
    derive_clicks(log=log, name="week", model="ctr")
    got = labels("clicks:week")
    assert 6 / 100 < 30 / 100  # raw CTR: d2 looks worse than d1...
    assert got[("q1", "d2")] > got[("q1", "d1")]  # ...corrected for position, it is better


def test_the_kernel_gives_the_hand_computed_ratios():
    scores = click_scores(
        query=np.array([1, 1, 1, 1]),
        document=np.array([1, 2, 3, 3]),
        position=np.array([1, 10, 2, 10]),
        impressions=np.array([100, 100, 50, 50]),
        clicks=np.array([30, 6, 5, 0]),
        ctr_positions=np.array([1, 2, 10]),
        ctr=np.array([0.4, 0.2, 0.02]),
    )
    assert scores.expected.tolist() == pytest.approx([40.0, 2.0, 11.0])
    assert scores.ratio.tolist() == pytest.approx([0.75, 3.0, 5 / 11])
    assert scores.impressions.tolist() == [100, 100, 100]


def test_thresholds_and_the_minimum_are_parameters(log):
    derive_clicks(log=log, name="strict", model="ctr", min_impressions=50, thresholds=[3.5, 0.5])
    assert labels("clicks:strict") == {
        ("q1", "d1"): 2.0,  # 0.75
        ("q1", "d2"): 2.0,  # 3.0 < 3.5
        ("q1", "d3"): 1.0,  # 0.45 < 0.5
    }  # d5: 40 impressions < 50


def test_default_thresholds_adapt_to_the_scale_size():
    assert default_thresholds(2) == [1.5]
    assert default_thresholds(3) == [1.5, 0.75]
    assert default_thresholds(4) == [1.5, 0.75, 0.375]
    grades = np.array([3.0, 2.0, 1.0, 0.0])
    got = ratio_grades(np.array([2.0, 1.5, 1.0, 0.75, 0.5, 0.375, 0.1]), [1.5, 0.75, 0.375], grades)
    assert got.tolist() == [3.0, 3.0, 2.0, 2.0, 1.0, 1.0, 0.0]


@pytest.mark.parametrize(
    ("text", "problem"), [("1,2", "go down"), ("a,b", "numbers"), ("1.5,-1", "positive")]
)
def test_bad_thresholds_are_refused(text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_thresholds(text)


def test_the_number_of_thresholds_must_fit_the_scale(log):
    with pytest.raises(ValueError, match="2 thresholds are needed"):
        derive_clicks(log=log, name="x", thresholds=[1.0])
    assert not LabelSource.objects.filter(name="clicks:x").exists()


def test_purchases_are_binary_top_grade_or_zero(log):
    derive_purchases(log=log, name="week")
    assert labels("purchases:week") == {
        ("q1", "d1"): 3.0,  # bought once
        ("q1", "d2"): 0.0,
        ("q1", "d3"): 3.0,  # bought at position 10
        ("q2", "d4"): 0.0,
        ("q2", "d5"): 0.0,
    }
    source = LabelSource.objects.get(name="purchases:week")
    assert source.kind == "purchases"
    assert source.params["bought"] == 2 and source.params["bought_grade"] == 3.0


def test_purchases_need_a_purchases_column(tmp_path):
    campaign = campaign_create(name="No purchases", slug="np")
    add_queries(campaign, "q1")
    Document.objects.create(campaign=campaign, external_id="d1")
    text = "qid,docno,position,impressions,clicks\nq1,d1,1,5,1\n"
    import_log(campaign=campaign, file=write(tmp_path, "l.csv", text), name="w")
    with pytest.raises(ValueError, match="no purchases"):
        derive_purchases(log=BehaviourLog.objects.get(name="w"), name="w")


def test_a_source_name_taken_is_refused(log):
    derive_clicks(log=log, name="week")
    with pytest.raises(ImportFailed, match="already exists"):
        derive_clicks(log=log, name="week")
    derive_clicks(log=log, name="week", thresholds=[9, 8], replace=True)
    assert set(labels("clicks:week").values()) == {1.0}


def test_the_command_derives_both_kinds(log, capsys):
    call_command(
        "derive_labels", "clicks", campaign="clicks", log="week", thresholds="1.5,0.75", model="ctr"
    )
    call_command("derive_labels", "purchases", campaign="clicks", log="week", name="buys")
    out = capsys.readouterr().out
    assert "4 labels created" in out and "label source: clicks:week" in out
    assert len(labels("purchases:buys")) == 5
    with pytest.raises(CommandError, match="no log 'nope'"):
        call_command("derive_labels", "clicks", campaign="clicks", log="nope")
    with pytest.raises(CommandError, match="already exists"):
        call_command("derive_labels", "clicks", campaign="clicks", log="week")
