"""Measure names and parameters; convenience functions; degenerate input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from metrics.core import (
    Qrels,
    Run,
    bpref,
    cg,
    err,
    evaluate,
    judged,
    ndcg,
    output_names,
    parse_measures,
    precision,
    r_precision,
    recall,
    reciprocal_rank,
    success,
)


@pytest.mark.parametrize(
    ("request_", "names"),
    [
        ("map", ["map"]),
        ("P.5,10", ["P_5", "P_10"]),
        ("P_10", ["P_10"]),
        ("ndcg_cut.1-3,10", ["ndcg_cut_1", "ndcg_cut_2", "ndcg_cut_3", "ndcg_cut_10"]),
        ("success", ["success_1", "success_5", "success_10"]),
        ("ndcg.1=1,2=3,3=7", ["ndcg_1=1,2=3,3=7"]),
        (["P.10", "P.5", "P_10", "map"], ["map", "P_5", "P_10"]),
        (["err_cut.5", "judged.10", "cg_cut.3"], ["cg_cut_3", "err_cut_5", "judged_10"]),
    ],
)
def test_measure_names(request_, names):
    assert output_names(request_) == names


def test_sets_expand():
    assert output_names("official")[:3] == ["runid", "num_q", "num_ret"]
    assert "ndcg_cut_10" in output_names("standard")


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        ("mapp", "unknown measure 'mapp'; valid measures: runid, num_q"),
        ("P.", "empty parameter list"),
        ("P.a", "bad cut-off 'a'"),
        ("P.0", "must be positive"),
        ("P.5-3", "ranges increasing"),
        ("recip_rank.5", "takes no parameters"),
        ("ndcg.1:2", "bad gain pair"),
        ("ndcg.-1=2", "grades must be >= 0"),
        ("P.99999999999", "larger than"),
    ],
)
def test_bad_requests_raise_value_error(request_, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        parse_measures(request_)


def test_options_are_validated():
    q, r = {"q": {"a": 1}}, {"q": {"a": 1.0}}
    for bad in (
        {"gain": "cubic"},
        {"gain": {1: "x"}},
        {"discount": "ln"},
        {"ideal": "best"},
        {"depth": 0},
        {"relevance_level": "high"},
    ):
        with pytest.raises(ValueError):
            evaluate(q, r, "ndcg", **bad)
    with pytest.raises(ValueError, match="k must be a positive"):
        ndcg(q, r, k=0)


def test_degenerate_queries_score_zero_not_nan():
    qrels = {
        "no_relevant": {"a": 0, "b": 0},
        "only_unjudged": {"a": -1},
        "fine": {"a": 2},
    }
    run = {
        "no_relevant": {"a": 1.0},
        "only_unjudged": {"a": 1.0, "z": 0.5},
        "fine": {"z": 1.0, "a": 0.5},
    }
    res = evaluate(qrels, run, "standard")
    for name in res.names:
        assert np.all(np.isfinite(res.per_query[name])), name
    values = res.to_dict()
    for q in ("no_relevant", "only_unjudged"):
        assert values[q]["ndcg"] == 0 and values[q]["map"] == 0 and values[q]["recip_rank"] == 0
    assert values["only_unjudged"]["num_rel"] == 0
    # "a" (grade 2) at rank 2: DCG = 2 / log2(3), IDCG = 2.
    assert values["fine"]["ndcg_cut_5"] == pytest.approx((2 / math.log2(3)) / 2)


def test_negative_grades_are_pooled_but_unjudged():
    qrels = {"q": {"a": -1, "b": 1, "c": 0}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}}
    # judged@k counts grades >= 0: b and c among the top 3 (a is pooled, d unknown).
    assert judged(qrels, run, 3) == pytest.approx(2 / 3)
    assert judged(qrels, run, 10) == pytest.approx(2 / 10)
    # a has gain 0 and stays out of the ideal list: IDCG@3 = 1 (b alone).
    assert ndcg(qrels, run, 3) == pytest.approx(1 / math.log2(3))


def test_relevance_level_never_changes_ndcg_but_changes_binary_measures():
    qrels = {"q": {"a": 1, "b": 2, "c": 3}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    assert ndcg(qrels, run, 3, relevance_level=3) == ndcg(qrels, run, 3)
    assert precision(qrels, run, 3, relevance_level=3) == pytest.approx(1 / 3)
    assert reciprocal_rank(qrels, run, relevance_level=2) == 0.5
    assert recall(qrels, run, 2, relevance_level=2) == 0.5
    assert r_precision(qrels, run, relevance_level=2) == 0.5
    assert success(qrels, run, 1, relevance_level=2) == 0.0


def test_err_by_hand():
    # Grades 2, 0, 1 with g_max 2: R = 3/4, 0, 1/4.
    qrels = {"q": {"a": 2, "b": 0, "c": 1}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    expected = 3 / 4 + 0 + (1 / 4) * (1 / 4) * 1 / 3
    assert err(qrels, run, 3) == pytest.approx(expected)
    assert err(qrels, run, 1) == pytest.approx(3 / 4)
    # With a label scale whose top grade is 3: R = (2^g - 1) / 8.
    assert err(qrels, run, 1, max_grade=3) == pytest.approx(3 / 8)
    with pytest.raises(ValueError, match="above the top grade"):
        err(qrels, run, 3, max_grade=1)


def test_bpref_by_hand():
    # R = 2 (b, d), N = 2 (a, c); ranking a b c d: b has 1 non-relevant above, d has 2.
    qrels = {"q": {"a": 0, "b": 1, "c": 0, "d": 1, "e": -1}}
    run = {"q": {"a": 5.0, "e": 4.5, "b": 4.0, "c": 3.0, "x": 2.5, "d": 2.0}}
    assert bpref(qrels, run) == pytest.approx(((1 - 1 / 2) + (1 - 2 / 2)) / 2)


def test_real_grades_and_gain_maps():
    qrels = {"q": {"a": 1.5, "b": 0.5, "c": 2.0}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    assert cg(qrels, run, 2) == 2.0
    got = ndcg(qrels, run, None, gain={1.5: 10.0})
    dcg = 10 + 0.5 / math.log2(3) + 2 / 2
    ideal = 10 + 2 / math.log2(3) + 0.5 / 2
    assert got == pytest.approx(dcg / ideal)


def test_per_query_and_array_constructors():
    qrels = Qrels.from_arrays(np.array(["q1", "q1", "q2"]), ["a", "b", "a"], np.array([1, 0, 2]))
    run = Run.from_arrays(["q1", "q1", "q2"], ["b", "a", "a"], [2.0, 1.0, 1.0])
    assert precision(qrels, run, 1, per_query=True) == {"q1": 0.0, "q2": 1.0}
    assert len(qrels) == 3 and qrels.max_grade == 2.0
    res = evaluate(qrels, run, ["map", "P.1"])
    assert res.to_dict() == {"q1": {"map": 0.5, "P_1": 0.0}, "q2": {"map": 1.0, "P_1": 1.0}}


def test_bpref_is_trec_evals_variant_and_its_row_says_so():
    # R = 3 relevant, N = 1 judged non-relevant, run n1 r1 r2 r3: trec_eval (min(N, R) = 1 in the
    # denominator) gives 0; Buckley & Voorhees 2004 (denominator R) would give 1 − 1/3 = 2/3.
    from pytrec_eval_ext import RelevanceEvaluator

    from metrics.core import evaluate
    from metrics.core.measures import MEASURES

    qrels = {"q": {"n1": 0, "r1": 1, "r2": 1, "r3": 1}}
    run = {"q": {"n1": 4.0, "r1": 3.0, "r2": 2.0, "r3": 1.0}}
    ref = RelevanceEvaluator(qrels, {"bpref"}).evaluate(run)["q"]["bpref"]
    assert ref == 0.0
    assert evaluate(qrels, run, ["bpref"]).mean["bpref"] == ref
    doc = MEASURES["bpref"].doc
    assert "trec_eval" in doc and "min(N, R)" in doc
