"""The report's numbers: what it hands to metrics.core.stats and what comes back, seed 002's
example, identical tasks counted once per rater, per-position clustering and agreement, the
words of the decision, and the chart."""

from __future__ import annotations

import math

import pytest

from annotate.judging.sxs import sxs_queue, verdict_submit
from annotate.models import Side, Verdict
from metrics.core.stats import (
    gsb_from_counts,
    gsb_from_verdicts,
    krippendorff_alpha,
    pairwise_agreement,
    reliability_matrix,
)
from metrics.decide.gsb import (
    comparison_report,
    decision_text,
    verdict_arrays,
)
from metrics.reports.charts import strength_svg, verdict_bar_svg
from tests.annotate.queue_helpers import make_raters
from tests.annotate.sxs_helpers import distinct_lists, make_comparison


def _equal_floats_close(a: object, b: object) -> bool:
    """a == b, but floats within 1e-12 of each other (relative) count as equal."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal_floats_close(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        if len(a) != len(b):
            return False
        return all(_equal_floats_close(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def give(rater, comparison, wanted: dict[str, str], strengths: dict[str, int] | None = None):
    """The rater answers so the candidate gets `wanted[query]` (G/S/B), pressing the side the
    lease says the candidate is on (or the other one)."""
    strengths = strengths or {}
    while held := sxs_queue(rater=rater, comparison=comparison):
        for task, side in held:
            key = task.query.external_id + (f"@{task.position}" if task.position else "")
            value = wanted[key]
            cand = "left" if side == Side.LEFT else "right"
            chosen = {"G": cand, "B": "right" if cand == "left" else "left", "S": "same"}[value]
            verdict_submit(rater=rater, task_id=task.pk, chosen=chosen, strength=strengths.get(key))


def test_seed_002_gives_minus_a_quarter_and_do_not_launch(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(4))
    give(personas.rater, comparison, {"q0": "G", "q1": "S", "q2": "B", "q3": "B"})
    report = comparison_report(comparison)
    r = report.result
    assert (r.good, r.same, r.bad, r.n_queries) == (1, 1, 2, 4)
    assert r.gsb == pytest.approx(-0.25)
    assert r.se == pytest.approx(0.4146, abs=1e-4)
    assert (r.ci_low, r.ci_high) == (
        pytest.approx(-0.7783, abs=1e-4),
        pytest.approx(0.5047, abs=1e-4),
    )
    assert r.sign_p == pytest.approx(1.0)
    assert r.decision.value == "do_not_launch" and not r.conclusive
    text = decision_text(r)
    assert text.headline.startswith("Do not launch")
    assert text.tone == "stop"


def test_seed_002_as_its_own_query_doc_table_per_position(personas):
    lists = {f"q{i}": ([f"a{i}"], [f"b{i}"]) for i in range(1, 5)}
    comparison = make_comparison(personas.campaign, lists, unit="position", depth=1)
    give(personas.rater, comparison, {"q1@1": "G", "q2@1": "S", "q3@1": "B", "q4@1": "B"})
    r = comparison_report(comparison).result
    assert (r.good, r.same, r.bad, r.gsb) == (1, 1, 2, -0.25)
    assert r.decision.value == "do_not_launch"


def test_the_report_equals_the_core_on_the_same_verdicts(personas):
    """Three raters per task, strengths, an identical task: the report's result is exactly
    gsb_from_verdicts on rows written out here by hand from the database."""
    lists = distinct_lists(6)
    lists["q5"] = (["same1", "same2"], ["same1", "same2"])  # identical
    comparison = make_comparison(
        personas.campaign, lists, raters_per_task=3, min_gsb=0.05, confidence=0.9, min_queries=4
    )
    raters = make_raters(personas.campaign, 3)
    plans = [
        {"q0": "G", "q1": "G", "q2": "S", "q3": "B", "q4": "G"},
        {"q0": "G", "q1": "S", "q2": "S", "q3": "B", "q4": "G"},
        {"q0": "S", "q1": "G", "q2": "B", "q3": "B", "q4": "G"},
    ]
    for rater, plan in zip(raters, plans, strict=True):
        give(rater, comparison, plan, strengths={"q0": 2, "q1": 1, "q3": 3, "q4": 2})
    report = comparison_report(comparison)

    rows = list(
        Verdict.objects.values_list(
            "task__query__external_id", "value", "rater__username", "candidate_side", "strength"
        )
    )
    q = [r[0] for r in rows] + ["q5"] * 3
    expected = gsb_from_verdicts(
        q,
        [r[1] for r in rows] + ["S"] * 3,
        raters=[r[2] for r in rows] + ["x1", "x2", "x3"],
        candidate_sides=[r[3] for r in rows] + [""] * 3,
        strengths=[r[4] or "" for r in rows] + [""] * 3,
        identical=[False] * len(rows) + [True] * 3,
        confidence=0.9,
        threshold=0.05,
        min_queries=4,
    )
    got = report.result.to_dict()
    # Equal to the last few ulps: the report sums its clusters in its own order (query and
    # rater ids, which tasks made in a random order do not keep), and float sums in another
    # order may differ in the last bit (seen: deff ...133 against ...137).
    assert _equal_floats_close(got, expected.to_dict()), (got, expected.to_dict())
    assert (got["good"], got["same"], got["bad"]) == (7, 7, 4)  # 3 implied Sames for q5
    assert got["identical_verdicts"] == 3 and got["identical_queries"] == 1
    assert got["alpha"] is not None and got["strength_distribution"]["2"] == 5
    assert report.identical_tasks == 1 and report.rated_verdicts == 15


def test_identical_tasks_count_once_per_rater_they_would_have_had(personas):
    lists = {"q0": (["a"], ["b"]), "q1": (["c"], ["c"]), "q2": (["d"], ["d"])}
    comparison = make_comparison(personas.campaign, lists, raters_per_task=2)
    raters = make_raters(personas.campaign, 2)
    for rater in raters:
        give(rater, comparison, {"q0": "G"})
    r = comparison_report(comparison).result
    assert (r.good, r.same, r.bad) == (2, 4, 0)
    assert r.identical_queries == 2 and r.identical_verdicts == 4
    # Left out of the shuffle check and of position bias: only the two rated verdicts count.
    assert r.shuffle.tasks == 2
    assert r.position_bias.left + r.position_bias.right == 2
    rows = {row.external_id: row for row in comparison_report(comparison).rows}
    assert (rows["q1"].same, rows["q1"].identical_same, rows["q1"].majority) == (2, 2, "tie")
    assert (rows["q0"].good, rows["q0"].majority) == (2, "candidate")


def test_per_position_clusters_by_query_and_pairs_raters_by_task(personas):
    lists = {f"q{i}": ([f"a{i}", f"c{i}"], [f"b{i}", f"d{i}"]) for i in range(3)}
    comparison = make_comparison(personas.campaign, lists, unit="position", raters_per_task=2)
    raters = make_raters(personas.campaign, 2)
    plans = [
        {"q0@1": "G", "q0@2": "G", "q1@1": "S", "q1@2": "B", "q2@1": "G", "q2@2": "S"},
        {"q0@1": "G", "q0@2": "S", "q1@1": "S", "q1@2": "B", "q2@1": "B", "q2@2": "S"},
    ]
    for rater, plan in zip(raters, plans, strict=True):
        give(rater, comparison, plan)
    report = comparison_report(comparison)
    r = report.result
    assert r.n_queries == 3 and r.n_verdicts == 12
    arrays = verdict_arrays(comparison)
    by_query = gsb_from_verdicts(arrays.query, arrays.value, min_queries=30)
    assert (r.gsb, r.ci_low, r.ci_high, r.deff) == (
        by_query.gsb,
        by_query.ci_low,
        by_query.ci_high,
        by_query.deff,
    )
    codes = {"G": 1.0, "S": 0.0, "B": -1.0}
    matrix, _, _ = reliability_matrix(arrays.task, arrays.rater, [codes[v] for v in arrays.value])
    assert r.alpha == pytest.approx(krippendorff_alpha(matrix, level="ordinal"))
    assert r.raw_agreement == pytest.approx(pairwise_agreement(matrix))


def test_no_verdicts_no_statistics(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(2))
    report = comparison_report(comparison)
    assert report.result is None and report.progress == {"counted": 0, "needed": 2, "identical": 0}


@pytest.mark.parametrize(
    ("counts", "threshold", "headline", "tone"),
    [
        ((70, 100, 30), 0.0, "Launch", "launch"),
        ((30, 100, 70), 0.0, "Do not launch — the candidate is worse, conclusively", "stop"),
        ((1, 1, 2), 0.0, "Do not launch — the candidate did not beat the bar", "stop"),
        (
            (60, 90, 50),
            0.0,
            "More data needed: at least 119 more queries, with no upper end (an estimate at 80%; "
            "central 1,525, set by the interval clearing the bar)",
            "wait",
        ),
        (
            (30, 100, 70),
            -0.1,
            "Do not launch — the candidate is below the bar, conclusively",
            "stop",
        ),
    ],
)
def test_the_decision_in_words(counts, threshold, headline, tone):
    result = gsb_from_counts(*counts, threshold=threshold)
    text = decision_text(result)
    assert (text.headline, text.tone) == (headline, tone)


def test_the_bar_chart_is_an_svg_with_a_title_and_its_numbers():
    svg = verdict_bar_svg(good=70, same_rated=90, same_identical=10, bad=30)
    assert svg.startswith("<svg ") and "<?xml" not in svg
    assert 'aria-label="Verdicts for the candidate (200 in all)"' in svg
    for text in ("Verdicts for the candidate (200 in all)", ">70<", ">90<", ">30<", "(10)"):
        assert text in svg, text
    # The same data draw the same bytes.
    assert svg == verdict_bar_svg(good=70, same_rated=90, same_identical=10, bad=30)
    strength = strength_svg({-3: 1, -2: 0, -1: 2, 0: 5, 1: 3, 2: 4, 3: 0})
    assert "How much better or worse" in strength and ">5<" in strength


def test_queries_without_verdicts_still_appear_in_the_table(personas):
    comparison = make_comparison(personas.campaign, distinct_lists(3))
    ((task, side),) = sxs_queue(rater=personas.rater, comparison=comparison)
    away = "left" if side == Side.RIGHT else "right"
    verdict_submit(rater=personas.rater, task_id=task.pk, chosen=away)
    rows = comparison_report(comparison).rows
    assert [(r.external_id, r.verdicts, r.y, r.majority) for r in rows] == [
        ("q0", 1, -1, "baseline"),
        ("q1", 0, 0, "no verdicts yet"),
        ("q2", 0, 0, "no verdicts yet"),
    ]
