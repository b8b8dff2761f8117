"""The launch memo: the launch review as Markdown, to paste into a launch review document as it
is: the plan, the data coverage, the decision and which path declared it, the graded
comparison beside it and the caveats."""

from __future__ import annotations

from annotate.models import Comparison
from metrics.decide.gsb import SxsReport
from metrics.decide.launch import LaunchState
from metrics.decide.review import LaunchReview

PATHS = {
    "sequence": "the always-valid confidence sequence, before all planned queries were in",
    "fixed": "the fixed-sample rule (STATISTICS.md section 3) at the planned size",
    "": "nothing yet: still collecting answers",
}


def _plan(comparison: Comparison, planned: int) -> list[str]:
    margin = comparison.equivalence_margin
    return [
        "## Plan (fixed when the comparison was created)",
        "",
        f"- Created: {comparison.created_at:%Y-%m-%d %H:%M} UTC",
        "- Primary measure: GSB = (Good − Bad) / all answers, side by side",
        f"- Bar: GSB above {comparison.min_gsb:+.2f}",
        f"- No meaningful difference within: ±{margin:.2f}" if margin else
        "- No meaningful difference: not part of the plan",
        f"- Confidence: {comparison.confidence:g}",
        f"- Minimum informative queries: {comparison.min_queries}",
        f"- Planned queries: {planned}, {comparison.raters_per_task} rater(s) each",
        "- Plan changes: none (the plan cannot change once raters have answered)",
        "",
    ]  # fmt: skip


def _decision(review: LaunchReview, report: SxsReport) -> list[str]:
    d = review.launch
    if d is None:
        return ["## Decision", "", "No answers yet.", ""]
    lines = [
        "## Decision",
        "",
        f"**{d.headline}**{' (provisional)' if d.state == LaunchState.COLLECTING else ''}",
        "",
        d.sentence,
        "",
        f"- Declared by: {PATHS[d.path]}",
        f"- GSB: {d.gsb:+.4f} (G {report.result.good}, S {report.result.same}, "
        f"B {report.result.bad})",
        f"- Always-valid range: [{d.sequence_low:+.4f}, {d.sequence_high:+.4f}]",
        f"- Range at the planned size{' (provisional)' if d.provisional else ''}: "
        f"[{d.fixed_low:+.4f}, {d.fixed_high:+.4f}]",
        "",
    ]
    return lines


def _graded(review: LaunchReview) -> list[str]:
    g = review.graded
    if g is None:
        return ["## Graded measures", "", review.graded_error or "Not available.", ""]
    low, high = g.ci_t
    lines = [
        f"## Graded measures (from the raters' labels): {g.measure_label}",
        "",
        g.sentence,
        "",
        "| Measure | B − A | p | p, Holm-adjusted | |",
        "| --- | --- | --- | --- | --- |",
    ]
    for f in g.family:
        role = "primary" if f.primary else "exploratory"
        lines.append(f"| {f.label} | {f.diff:+.4f} | {f.p_t:.4f} | {f.p_t_holm:.4f} | {role} |")
    lines += ["", f"Primary range: [{low:+.4f}, {high:+.4f}].", ""]
    if review.agreement_text:
        lines += [f"**GSB and {g.measure_label}:** {review.agreement_text}", ""]
    if review.disagreements:
        lines += ["Queries that disagree most:", ""]
        lines += [
            f"- {r.external_id} ({r.text}): GSB {r.gsb:+.2f}, {g.measure_label} {r.graded:+.4f}"
            for r in review.disagreements
        ]
        lines.append("")
    return lines


def launch_memo(comparison: Comparison, report: SxsReport, review: LaunchReview) -> str:
    planned = review.launch.planned if review.launch else len(report.rows)
    lines = [
        f"# Launch memo: {comparison.name}",
        "",
        f"Baseline (A): {comparison.baseline.name} · Candidate (B): {comparison.candidate.name}",
        "",
        *_plan(comparison, planned),
        "## Data coverage",
        "",
        f"- Answers: {report.progress['counted']} of {report.progress['needed']} planned",
        f"- Queries with identical lists (counted as Same): {report.identical_tasks}",
    ]
    if review.judged:
        lines.append(
            f"- Share of top results judged: A {review.judged[0]:.3f}, B {review.judged[1]:.3f}"
        )
    lines.append("- Answers excluded by rater-quality rules: none (no such rules yet)")
    lines.append("")
    lines += _decision(review, report) + _graded(review)
    caveats = list(report.result.warnings) if report.result else []
    caveats.append(
        "The always-valid range runs over queries (each query's mean answer), so it estimates "
        "the query-weighted GSB; it treats queries as independent given the raters."
    )
    lines += ["## Caveats", "", *[f"- {c}" for c in caveats], ""]
    return "\n".join(lines)
