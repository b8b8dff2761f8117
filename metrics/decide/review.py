"""One launch review per side-by-side comparison: the GSB decision beside the graded comparison
of the same two runs on the same queries (NDCG@depth from the raters' labels), the other graded
measures as an exploratory Holm-adjusted family, coverage, and, when the two point different
ways, that said in words with the queries that disagree most.

No figure is computed here: GSB comes from metrics.decide.gsb/launch, the graded comparison from
metrics.decide.ndcg on the campaign's scores snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotate.models import Comparison
from metrics.core.stats import betting_confidence_sequence
from metrics.decide.gsb import SxsReport
from metrics.decide.launch import LaunchDecision, LaunchState, launch_decision
from metrics.decide.ndcg import ComparisonReport
from metrics.decide.ndcg import comparison_report as graded_report
from metrics.reports.forms import ScoresForm
from metrics.services.snapshots import scores_snapshot

TOP_DISAGREEMENTS = 10


@dataclass(frozen=True)
class Disagreement:
    query_id: int
    external_id: str
    text: str
    gsb: float  # the query's mean verdict score y_i/m_i
    graded: float  # B − A on the primary graded measure


@dataclass(frozen=True)
class LaunchReview:
    launch: LaunchDecision | None
    graded: ComparisonReport | None
    graded_error: str
    agreement: str  # agree, disagree, gsb_only, graded_only, neither, unknown
    agreement_text: str
    disagreements: list[Disagreement]
    judged: tuple[float, float] | None  # mean judged@k of A and B over the queries
    graded_sequence: tuple[float, float] | None = None  # always-valid range of the mean B − A


def _graded(
    comparison: Comparison, query_ids: set[str]
) -> tuple[ComparisonReport | None, str, tuple[float, float] | None]:
    """The graded comparison of the comparison's two runs restricted to its queries, why not,
    and the mean judged@k of A and B there (coverage)."""
    form = ScoresForm({"k": comparison.depth}, campaign=comparison.campaign)
    if not form.is_valid():  # the campaign's own defaults: only fails on a broken campaign
        return None, "The campaign's score settings are not valid.", None
    fresh = scores_snapshot(
        campaign=comparison.campaign, settings=form.settings, rule=form.rule, light=False
    )
    per_query = fresh.snapshot.per_query
    keep = [i for i, q in enumerate(per_query.get("qids", [])) if q in query_ids]
    runs = {}
    for run_id in (comparison.baseline_id, comparison.candidate_id):
        values = per_query.get("runs", {}).get(str(run_id))
        if values is None:
            return None, "The scores do not include both runs yet.", None
        runs[str(run_id)] = {k: [v[i] for i in keep] for k, v in values.items()}
    filtered = {"qids": [per_query["qids"][i] for i in keep], "runs": runs}
    summary = {**fresh.summary, "n_queries": len(keep)}
    report, error = graded_report(
        summary=summary,
        per_query=filtered,
        a=str(comparison.baseline_id),
        b=str(comparison.candidate_id),
        measure=None,
    )
    judged_key = next((k for k in runs[str(comparison.baseline_id)] if k.startswith("judged_")), "")
    judged = None
    if judged_key and keep:
        judged = tuple(  # type: ignore[assignment]
            sum(runs[str(r)][judged_key]) / len(keep)
            for r in (comparison.baseline_id, comparison.candidate_id)
        )
    return report, error, judged


def _direction(low: float, high: float, point: float) -> tuple[int, bool]:
    """(sign of the estimate, whether the interval excludes 0)."""
    sign = (point > 0) - (point < 0)
    return sign, low > 0 or high < 0


def agreement_words(launch: LaunchDecision, graded: ComparisonReport) -> tuple[str, str]:
    label = graded.measure_label
    g_low, g_high = (
        (launch.sequence_low, launch.sequence_high)
        if launch.state == LaunchState.COLLECTING or launch.path == "sequence"
        else (launch.fixed_low, launch.fixed_high)
    )
    gsb_sign, gsb_clear = _direction(g_low, g_high, launch.gsb)
    low, high = graded.ci_t
    m_sign, m_clear = _direction(low, high, graded.result.diff)
    side = {1: "the candidate", -1: "the baseline", 0: "neither"}
    if gsb_sign * m_sign < 0:
        return "disagree", (
            f"GSB and {label} point different ways: side by side the raters preferred "
            f"{side[gsb_sign]} (GSB {launch.gsb:+.3f}), but by their labels {label} favours "
            f"{side[m_sign]} ({graded.result.diff:+.4f}). Read the queries below before deciding."
        )
    if gsb_clear and m_clear:
        return "agree", f"GSB and {label} agree: both clearly favour {side[gsb_sign]}."
    if gsb_clear:
        return "gsb_only", (
            f"GSB clearly favours {side[gsb_sign]}; {label} leans the same way but does not "
            f"confirm it (its interval [{low:+.4f}, {high:+.4f}] includes 0)."
        )
    if m_clear:
        return "graded_only", (
            f"{label} clearly favours {side[m_sign]}; GSB leans the same way or not at all and "
            "does not confirm it yet."
        )
    return "neither", f"Neither GSB nor {label} shows a clear difference."


def disagreeing_queries(report: SxsReport, graded: ComparisonReport) -> list[Disagreement]:
    """Queries where GSB and the graded difference have opposite signs, largest gap first."""
    diff = {q: d for q, _a, _b, d in graded.differences}
    rows = []
    for row in report.rows:
        if not row.verdicts or row.external_id not in diff:
            continue
        score, d = row.y / row.verdicts, diff[row.external_id]
        if score * d < 0:
            rows.append(Disagreement(row.query_id, row.external_id, row.text, score, d))
    rows.sort(key=lambda r: (-abs(r.gsb - r.graded), r.external_id))
    return rows[:TOP_DISAGREEMENTS]


def launch_review(comparison: Comparison, report: SxsReport) -> LaunchReview:
    launch = launch_decision(comparison, report)
    graded, error, judged = _graded(comparison, {row.external_id for row in report.rows})
    agreement, text, rows = "unknown", "", []
    if graded is not None and launch is not None:
        agreement, text = agreement_words(launch, graded)
        rows = disagreeing_queries(report, graded)
    sequence = None
    if graded is not None:
        # Per-query differences of a measure in [0, 1] lie in [−1, 1]: the same betting
        # sequence applies (over queries in the order of their ids; labels have no completion
        # order that the snapshot keeps).
        d = np.clip([x for *_q, x in sorted(graded.differences)], -1, 1)
        sequence = betting_confidence_sequence(d, comparison.confidence).last
    return LaunchReview(launch, graded, error, agreement, text, rows, judged, sequence)
