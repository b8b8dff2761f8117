"""The launch memo: the launch review as Markdown, to paste into a launch review document as it
is: the plan, the data coverage (with the answers of excluded raters and who excluded them),
the decision and which path declared it, the verdict counts (the page's chart as a table), the
graded comparison beside it and the caveats."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from annotate.models import Comparison
from metrics.decide.gsb import SxsReport
from metrics.decide.launch import LaunchState
from metrics.decide.plan import plan_change_rows, primary_words
from metrics.decide.review import LaunchReview


def _path(path: str) -> str:
    """Which rule declared the decision."""
    return {
        "sequence": _("the always-valid confidence sequence, before all planned queries were in"),
        "fixed": _("the fixed-sample rule (interval and sign test, read once) at the planned size"),
    }.get(path, _("nothing yet: still collecting answers"))


def _provisional(flag: bool) -> str:
    return _(" (provisional)") if flag else ""


def _plan(comparison: Comparison, planned: int) -> list[str]:
    margin = comparison.equivalence_margin
    heading = (
        _("## Plan (fixed when the comparison was created)")
        if comparison.plan_fixed
        else _("## No plan (made before plans existed: the fixed-sample rule decides)")
    )
    lines = [
        heading,
        "",
        _("- Created: %(when)s UTC") % {"when": f"{comparison.created_at:%Y-%m-%d %H:%M}"},
        _("- Primary measure: %(measure)s") % {"measure": primary_words(comparison)},
        _("- Bar: above %(bar)s") % {"bar": f"{comparison.min_gsb:+.2f}"},
        _("- No meaningful difference within: ±%(margin)s") % {"margin": f"{margin:.2f}"}
        if margin else _("- No meaningful difference: not part of the plan"),
        _("- Confidence: %(confidence)s") % {"confidence": f"{comparison.confidence:g}"},
        _("- Minimum informative queries: %(n)s") % {"n": comparison.min_queries},
        ngettext(
            "- Planned queries: %(planned)s, %(raters)s rater each",
            "- Planned queries: %(planned)s, %(raters)s raters each",
            comparison.raters_per_task,
        ) % {"planned": planned, "raters": comparison.raters_per_task},
    ]  # fmt: skip
    rows = plan_change_rows(comparison)
    if not rows:
        return [*lines, _("- Plan changes: none"), ""]
    lines += [_("- Plan changes:")]
    for row in rows:
        what = "; ".join(f"{label}: {old} → {new}" for label, old, new in row.changes)
        values = {
            "when": f"{row.when:%Y-%m-%d %H:%M}",
            "who": row.who,
            "answers": row.answers_in,
            "what": what,
            "why": row.reason,
        }
        if row.reason:
            text = _(
                "  - %(when)s UTC by %(who)s, with %(answers)s answers in: %(what)s (why: %(why)s)"
            )
        else:
            text = _("  - %(when)s UTC by %(who)s, with %(answers)s answers in: %(what)s")
        lines.append(text % values)
    return [*lines, ""]


def _primary(review: LaunchReview) -> list[str]:
    p = review.primary_graded
    if p is None:
        return []
    low, high = p.sequence if p.path != "fixed" else p.fixed
    return [
        _("## Decision on the primary measure (%(measure)s)") % {"measure": p.measure_label},
        "",
        f"**{p.headline}**{_provisional(p.provisional)}",
        "",
        p.sentence,
        "",
        _("- Declared by: %(path)s") % {"path": _path(p.path)},
        _("- Range: [%(low)s, %(high)s]") % {"low": f"{low:+.4f}", "high": f"{high:+.4f}"},
        _("- Planned queries with all their grades: %(completed)s of %(planned)s")
        % {"completed": p.completed, "planned": p.planned},
        "",
        _("The GSB decision below is exploratory under this plan."),
        "",
    ]


def _decision(review: LaunchReview, report: SxsReport) -> list[str]:
    d = review.launch
    if d is None:
        return [_("## Decision"), "", _("No answers yet."), ""]
    r = report.result
    fixed = {"low": f"{d.fixed_low:+.4f}", "high": f"{d.fixed_high:+.4f}"}
    lines = [
        _("## Decision"),
        "",
        f"**{d.headline}**{_provisional(d.state == LaunchState.COLLECTING)}",
        "",
        d.sentence,
        "",
        _("- Declared by: %(path)s") % {"path": _path(d.path)},
        _("- GSB: %(gsb)s (G %(good)s, S %(same)s, B %(bad)s)")
        % {"gsb": f"{d.gsb:+.4f}", "good": r.good, "same": r.same, "bad": r.bad},
        _("- Always-valid range: [%(low)s, %(high)s]")
        % {"low": f"{d.sequence_low:+.4f}", "high": f"{d.sequence_high:+.4f}"},
        _("- Range at the planned size (provisional): [%(low)s, %(high)s]") % fixed
        if d.provisional
        else _("- Range at the planned size: [%(low)s, %(high)s]") % fixed,
        "",
    ]
    return lines


def _graded(review: LaunchReview) -> list[str]:
    g = review.graded
    if g is None:
        return [_("## Graded measures"), "", review.graded_error or _("Not available."), ""]
    low, high = g.ci_t
    # Under a GSB plan every graded measure is exploratory, the one shown first included.
    primary = review.primary_graded is not None
    lines = [
        _("## Graded measures (from the raters' labels): %(measure)s")
        % {"measure": g.measure_label},
        "",
        g.sentence,
        "",
        _("| Measure | B − A | p | p, Holm-adjusted | |"),
        "| --- | --- | --- | --- | --- |",
    ]
    for f in g.family:
        role = pgettext("measure role", "primary") if f.primary and primary else _("exploratory")
        lines.append(f"| {f.label} | {f.diff:+.4f} | {f.p_t:.4f} | {f.p_t_holm:.4f} | {role} |")
    values = {"low": f"{low:+.4f}", "high": f"{high:+.4f}", "measure": g.measure_label}
    lines += [
        "",
        _("Primary range: [%(low)s, %(high)s].") % values
        if primary
        else _(
            "Range of %(measure)s: [%(low)s, %(high)s] (exploratory: GSB is the plan's "
            "primary measure)."
        )
        % values,
        "",
    ]
    if review.agreement_text:
        title = _("GSB and %(measure)s:") % {"measure": g.measure_label}
        lines += [f"**{title}** {review.agreement_text}", ""]
    if review.disagreements:
        lines += [_("Queries that disagree most:"), ""]
        lines += [
            f"- {r.external_id} ({r.text}): GSB {r.gsb:+.2f}, {g.measure_label} {r.graded:+.4f}"
            for r in review.disagreements
        ]
        lines.append("")
    return lines


def _excluded(review: LaunchReview) -> list[str]:
    """The excluded raters' answers left out, each rater with who excluded them and when."""
    if not review.excluded:
        return [_("- Answers excluded by rater quality: none")]
    lines = [
        _(
            "- Answers excluded by rater quality (left out of every figure): %(verdicts)s "
            "side-by-side answers, %(grades)s grades"
        )
        % {"verdicts": review.excluded_verdicts, "grades": review.excluded_grades}
    ]
    for r in review.excluded:
        values = {"rater": r.rater, "verdicts": r.verdicts, "grades": r.grades, "by": r.by,
                  "when": f"{r.at:%Y-%m-%d %H:%M}" if r.at else "?"}  # fmt: skip
        text = (
            _("  - %(rater)s: %(verdicts)s answers, %(grades)s grades; excluded by %(by)s on "
              "%(when)s UTC")
            if r.by
            else _("  - %(rater)s: %(verdicts)s answers, %(grades)s grades; excluded on "
                   "%(when)s UTC (by a removed account)")
        )  # fmt: skip
        lines.append(text % values)
    return lines


def _counts(report: SxsReport) -> list[str]:
    """The verdict chart of the pages as a table: counts and shares of all answers."""
    r = report.result
    if r is None or not r.n_verdicts:
        return []
    rows = [(_("Good: the candidate is better"), r.good), (_("Same"), r.same)]
    if r.identical_verdicts:
        rows.append((_("Same, of which identical lists"), r.identical_verdicts))
    rows += [(_("Bad: the candidate is worse"), r.bad), (_("All"), r.n_verdicts)]
    head = f"| {_('Verdict for the candidate')} | {_('Count')} | {_('Share')} |"
    lines = [_("## Verdicts"), "", head, "| --- | ---: | ---: |"]
    lines += [f"| {label} | {n} | {n / r.n_verdicts:.0%} |" for label, n in rows]
    return [*lines, ""]


def launch_memo(comparison: Comparison, report: SxsReport, review: LaunchReview) -> str:
    planned = review.launch.planned if review.launch else len(report.rows)
    lines = [
        _("# Launch memo: %(name)s") % {"name": comparison.name},
        "",
        _("Baseline (A): %(a)s · Candidate (B): %(b)s")
        % {"a": comparison.baseline.name, "b": comparison.candidate.name},
        "",
        *_plan(comparison, planned),
        _("## Data coverage"),
        "",
        _("- Answers: %(counted)s of %(needed)s planned") % report.progress,
        _("- Queries with identical lists (counted as Same): %(n)s")
        % {"n": report.identical_tasks},
    ]
    if review.judged:
        lines.append(
            _("- Share of top results judged: A %(a)s, B %(b)s")
            % {"a": f"{review.judged[0]:.3f}", "b": f"{review.judged[1]:.3f}"}
        )
    lines.append(
        _("- Queries without any judgment (left out of the graded measures): %(n)s")
        % {"n": review.unjudged}
    )
    lines += [*_excluded(review), ""]
    if review.launch and review.launch.plan_note:
        lines += [f"**{review.launch.plan_note}**", ""]
    lines += _primary(review) + _decision(review, report) + _counts(report) + _graded(review)
    caveats = [f"- {c}" for c in review.caveats] or [_("None.")]
    lines += [_("## Caveats"), "", *caveats, ""]
    return "\n".join(lines)
