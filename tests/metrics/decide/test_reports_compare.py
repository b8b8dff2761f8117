"""The comparison of two systems on a snapshot's per-query values: STATISTICS.md section 6's
worked case, the Holm family, the histogram, the won and lost queries, and refusals."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.core.stats import holm, paired_t_test
from metrics.decide.ndcg import comparison_report, default_pair

A = [0.50, 0.60, 0.70, 0.40, 0.80, 0.30]
B = [0.60, 0.65, 0.68, 0.55, 0.80, 0.42]
MAP_A = [0.2, 0.4, 0.1, 0.3, 0.5, 0.6]
MAP_B = [0.3, 0.1, 0.2, 0.3, 0.6, 0.4]


def snapshot(a=A, b=B) -> tuple[dict, dict]:
    measures = [
        {"key": "ndcg_cut_10", "label": "NDCG@10"},
        {"key": "map", "label": "MAP"},
        {"key": "judged_10", "label": "judged@10"},
    ]
    systems = [
        {"run_id": 1, "run": "base", "system": "base"},
        {"run_id": 2, "run": "cand-v2", "system": "cand"},
    ]
    ones = [1.0] * len(a)
    per_query = {
        "qids": [f"q{i}" for i in range(1, len(a) + 1)],
        "runs": {
            "1": {"ndcg_cut_10": a, "map": MAP_A[: len(a)], "judged_10": ones},
            "2": {"ndcg_cut_10": b, "map": MAP_B[: len(a)], "judged_10": ones},
        },
    }
    return {"systems": systems, "measures": measures}, per_query


def test_statistics_section_6_worked_case():
    summary, per_query = snapshot()
    report, error = comparison_report(
        summary=summary, per_query=per_query, a="1", b="2", measure=None
    )
    assert error == ""
    r = report.result
    assert r.diff == pytest.approx(0.0667, abs=1e-4)
    assert r.t == pytest.approx(2.4008, abs=1e-4)
    assert r.p_t == pytest.approx(0.0616, abs=1e-4)
    assert (r.ci_t_low, r.ci_t_high) == (
        pytest.approx(-0.0047, abs=1e-4),
        pytest.approx(0.1380, abs=1e-4),
    )
    assert r.p_randomization == pytest.approx(0.1250) and r.randomization_exact
    assert r.ci_boot_low < r.diff < r.ci_boot_high
    assert (r.wins, r.losses, r.ties) == (4, 1, 1)
    assert [c.query for c in r.gained][:2] == ["q4", "q6"]
    assert [c.query for c in r.lost] == ["q3"]
    assert (report.a_name, report.b_name) == ("base", "cand (cand-v2)")


def test_the_family_is_holm_adjusted_and_leaves_judged_out():
    summary, per_query = snapshot()
    report, _ = comparison_report(summary=summary, per_query=per_query, a="1", b="2", measure="map")
    assert [f.key for f in report.family] == ["ndcg_cut_10", "map"]
    assert [f.primary for f in report.family] == [False, True]
    raw = [
        paired_t_test(np.array(A), np.array(B))[1],
        paired_t_test(np.array(MAP_A), np.array(MAP_B))[1],
    ]
    assert [f.p_t for f in report.family] == pytest.approx(raw)
    assert [f.p_t_holm for f in report.family] == pytest.approx(holm(np.array(raw)).tolist())
    assert max(f.p_t_holm for f in report.family) >= max(raw)
    assert report.measure_label == "MAP"


def test_the_histogram_counts_every_query_and_is_centred_on_zero():
    summary, per_query = snapshot()
    report, _ = comparison_report(summary=summary, per_query=per_query, a="1", b="2", measure=None)
    assert report.counts.sum() == 6
    assert report.edges[0] == pytest.approx(-report.edges[-1])
    middle = len(report.counts) // 2
    assert report.counts[middle] == 1  # the one tie (q5) sits in the bin around 0
    assert report.differences[0][0] == "q4" and report.differences[-1][0] == "q3"


@pytest.mark.parametrize(
    ("a", "b", "measure", "message"),
    [
        ("1", "1", None, "two different systems"),
        ("x", "2", None, "Choose systems A and B"),
        ("1", "7", None, "Choose systems A and B"),
        ("1", "2", "ndcg_cut_5", "Unknown measure"),
    ],
)
def test_it_refuses_bad_choices(a, b, measure, message):
    summary, per_query = snapshot()
    report, error = comparison_report(
        summary=summary, per_query=per_query, a=a, b=b, measure=measure
    )
    assert report is None and message in error


def test_it_needs_two_systems_and_two_queries():
    summary, per_query = snapshot()
    one = {**summary, "systems": summary["systems"][:1]}
    assert (
        "two systems"
        in comparison_report(summary=one, per_query=per_query, a=None, b=None, measure=None)[1]
    )
    summary, per_query = snapshot(a=[0.5], b=[0.6])
    assert (
        "two queries"
        in comparison_report(summary=summary, per_query=per_query, a=None, b=None, measure=None)[1]
    )


# ---- Which system is A by default (issue 17: the form was preset the wrong way round) ----------


def _three() -> list[dict]:
    # Table order puts the candidate first, as sorting by name or score may.
    return [
        {"run_id": 7, "run": "new-ranker", "system": "cand"},
        {"run_id": 3, "run": "prod", "system": "prod"},
        {"run_id": 5, "run": "other", "system": "other"},
    ]


def test_the_production_system_is_the_default_baseline_whatever_the_table_order():
    a, b = default_pair(_three(), production={"prod"})
    assert (a["run_id"], b["run_id"]) == (3, 7)


def test_a_declared_comparison_names_the_pair_when_nothing_is_in_production():
    a, b = default_pair(_three(), production=set(), declared=(5, 7))
    assert (a["run_id"], b["run_id"]) == (5, 7)


def test_production_wins_over_a_declared_baseline_and_the_candidate_is_never_a():
    a, b = default_pair(_three(), production={"prod"}, declared=(7, 3))
    # The declared candidate is the production system: B falls back to a non-production run.
    assert a["run_id"] == 3 and b["run_id"] != 3


def test_the_form_without_choices_compares_the_candidate_against_production():
    summary, per_query = snapshot()
    summary["systems"].reverse()  # candidate first in the table
    report, error = comparison_report(
        summary=summary, per_query=per_query, a=None, b=None, measure=None, production={"base"}
    )
    assert error == ""
    assert (report.a["system"], report.b["system"]) == ("base", "cand")
    assert report.result.diff > 0  # the candidate's gain reads as a gain


def test_choosing_only_a_leaves_b_a_different_system():
    summary, per_query = snapshot()
    report, error = comparison_report(
        summary=summary, per_query=per_query, a="2", b=None, measure=None, production={"base"}
    )
    assert error == "" and report.b["run_id"] != report.a["run_id"]


def test_the_sentence_reads_the_right_way_round_and_from_scipy():
    from scipy.stats import ttest_rel

    summary, per_query = snapshot()
    report, _ = comparison_report(summary=summary, per_query=per_query, a="1", b="2", measure=None)
    ci = ttest_rel(B, A).confidence_interval(0.95)
    assert "the candidate cand (cand-v2) scored 0.067 higher than the baseline base" in (
        report.sentence
    )
    assert f"between {ci.low:+.3f} and {ci.high:+.3f}" in report.sentence
    assert report.sentence.endswith("so the difference could be chance.")


def test_no_interval_of_a_difference_leaves_minus_one_to_one():
    # Two queries, huge spread: the raw t-interval runs far past ±1.
    summary, per_query = snapshot(a=[0.0, 1.0], b=[1.0, 0.9])
    report, _ = comparison_report(summary=summary, per_query=per_query, a="1", b="2", measure=None)
    assert report.result.ci_t_high > 1 or report.result.ci_t_low < -1
    low, high = report.ci_t
    assert -1 <= low <= high <= 1
    assert -1 <= report.ci_boot[0] <= report.ci_boot[1] <= 1
