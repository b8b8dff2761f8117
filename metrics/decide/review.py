"""One launch review per side-by-side comparison: the GSB decision beside the graded comparison
of the same two runs on the same queries (NDCG@depth from the raters' labels), the other graded
measures as an exploratory Holm-adjusted family, coverage, and, when the two point different
ways, that said in words with the queries that disagree most.

No figure is computed here: GSB comes from metrics.decide.gsb/launch, the graded comparison from
metrics.decide.ndcg on the campaign's scores snapshot.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from annotate.models import Comparison
from annotate.selectors.real import ExcludedRater, comparison_exclusions
from metrics.core.stats.cluster import MIN_RATER_CLUSTERS
from metrics.decide.graded_launch import GradedDecision, graded_decision
from metrics.decide.gsb import SxsReport, page_warnings
from metrics.decide.launch import LaunchDecision, LaunchState, launch_decision
from metrics.decide.ndcg import ComparisonReport
from metrics.decide.ndcg import comparison_report as graded_report
from metrics.decide.plan import graded_settings, primary_key
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
    # The decision on the graded measure when the plan makes it primary (then GSB is
    # exploratory); None when GSB is primary.
    primary_graded: GradedDecision | None = None
    # The comparison's queries with no judgment at all (the graded measures leave them out).
    unjudged: int = 0
    # Excluded raters' answers to this comparison, left out of every figure (#18).
    excluded: tuple[ExcludedRater, ...] = ()
    caveats: tuple[str, ...] = ()

    @property
    def excluded_verdicts(self) -> int:
        return sum(r.verdicts for r in self.excluded)

    @property
    def excluded_grades(self) -> int:
        return sum(r.grades for r in self.excluded)

    @property
    def holm_p(self) -> float | None:
        """The graded measure's Holm-adjusted p within the family (shown beside its raw p:
        without it a p of 0.0485 reads as a finding when it is 0.24 after adjustment)."""
        if self.graded is None:
            return None
        return next((f.p_t_holm for f in self.graded.family if f.primary), None)


def _graded(
    comparison: Comparison, query_ids: set[str]
) -> tuple[ComparisonReport | None, str, tuple[float, float] | None, int]:
    """The graded comparison of the comparison's two runs restricted to its queries, why not,
    the mean judged@k of A and B there, and how many of its queries have no judged document
    in either top k (coverage)."""
    form = ScoresForm({"k": comparison.depth}, campaign=comparison.campaign)
    if not form.is_valid():  # the campaign's own defaults: only fails on a broken campaign
        return None, _("The campaign's score settings are not valid."), None, 0
    fresh = scores_snapshot(
        campaign=comparison.campaign,
        settings=graded_settings(comparison),  # the plan's k, gain, discount and ideal
        rule=form.rule,
        light=False,
    )
    per_query = fresh.snapshot.per_query
    keep = [i for i, q in enumerate(per_query.get("qids", [])) if q in query_ids]
    runs = {}
    for run_id in (comparison.baseline_id, comparison.candidate_id):
        values = per_query.get("runs", {}).get(str(run_id))
        if values is None:
            return None, _("The scores do not include both runs yet."), None, 0
        runs[str(run_id)] = {k: [v[i] for i in keep] for k, v in values.items()}
    filtered = {"qids": [per_query["qids"][i] for i in keep], "runs": runs}
    summary = {**fresh.summary, "n_queries": len(keep)}
    report, error = graded_report(
        summary=summary,
        per_query=filtered,
        a=str(comparison.baseline_id),
        b=str(comparison.candidate_id),
        measure=primary_key(comparison),  # None: NDCG@k, shown beside a GSB primary
        confidence=comparison.confidence,
    )
    judged_key = next((k for k in runs[str(comparison.baseline_id)] if k.startswith("judged_")), "")
    judged, unjudged = None, len(query_ids) - len(keep)
    if judged_key and keep:
        pair = [runs[str(r)][judged_key] for r in (comparison.baseline_id, comparison.candidate_id)]
        judged = tuple(sum(values) / len(keep) for values in pair)  # type: ignore[assignment]
        unjudged += sum(a == 0 and b == 0 for a, b in zip(*pair, strict=True))
    return report, error, judged, unjudged


def _direction(low: float, high: float, point: float) -> tuple[int, bool]:
    """(sign of the estimate, whether the interval excludes 0)."""
    sign = (point > 0) - (point < 0)
    return sign, low > 0 or high < 0


def _favours(sign: int, candidate: str, baseline: str) -> str:
    """The sentence for the side a sign favours: each side has its own whole sentence."""
    return candidate if sign > 0 else baseline


def _gsb_interval(launch: LaunchDecision) -> tuple[float, float]:
    """The GSB interval the launch decision stands on: the sequence's while it collects or
    when it decided, otherwise the fixed-sample one."""
    if launch.state == LaunchState.COLLECTING or launch.path == "sequence":
        return launch.sequence_low, launch.sequence_high
    return launch.fixed_low, launch.fixed_high


def agreement_words(launch: LaunchDecision, graded: ComparisonReport) -> tuple[str, str]:
    """(case, sentence): whether GSB and the graded measure agree, and the words saying so.

    The case is "disagree", "agree", "gsb_only", "graded_only" or "neither".
    """
    gsb_sign, gsb_clear = _direction(*_gsb_interval(launch), launch.gsb)
    low, high = graded.ci_t
    m_sign, m_clear = _direction(low, high, graded.result.diff)
    values = {
        "measure": graded.measure_label,
        "gsb": f"{launch.gsb:+.3f}",
        "diff": f"{graded.result.diff:+.4f}",
        "low": f"{low:+.4f}",
        "high": f"{high:+.4f}",
    }
    if gsb_sign * m_sign < 0:
        return "disagree", _case_words("disagree", gsb_sign) % values
    if gsb_clear and m_clear:
        return "agree", _case_words("agree", gsb_sign) % values
    if gsb_clear:
        return "gsb_only", _case_words("gsb_only", gsb_sign) % values
    if m_clear:
        return "graded_only", _case_words("graded_only", m_sign) % values
    return "neither", _("Neither GSB nor %(measure)s shows a clear difference.") % values


def _case_words(case: str, sign: int) -> str:
    """The sentence of one case of :func:`agreement_words` for the side ``sign`` favours, its
    %(...)s still to fill. Each side has its own whole sentence, for the translators."""
    if case == "disagree":
        return _favours(
            sign,
            _(
                "GSB and %(measure)s point different ways: side by side the raters preferred "
                "the candidate (GSB %(gsb)s), but by their labels %(measure)s favours the "
                "baseline (%(diff)s). Read the queries below before deciding."
            ),
            _(
                "GSB and %(measure)s point different ways: side by side the raters preferred "
                "the baseline (GSB %(gsb)s), but by their labels %(measure)s favours the "
                "candidate (%(diff)s). Read the queries below before deciding."
            ),
        )
    if case == "agree":
        return _favours(
            sign,
            _("GSB and %(measure)s agree: both clearly favour the candidate."),
            _("GSB and %(measure)s agree: both clearly favour the baseline."),
        )
    if case == "gsb_only":
        return _favours(
            sign,
            _(
                "GSB clearly favours the candidate; %(measure)s leans the same way but does "
                "not confirm it (its interval [%(low)s, %(high)s] includes 0)."
            ),
            _(
                "GSB clearly favours the baseline; %(measure)s leans the same way but does "
                "not confirm it (its interval [%(low)s, %(high)s] includes 0)."
            ),
        )
    return _favours(
        sign,
        _(
            "%(measure)s clearly favours the candidate; GSB leans the same way or not at "
            "all and does not confirm it yet."
        ),
        _(
            "%(measure)s clearly favours the baseline; GSB leans the same way or not at "
            "all and does not confirm it yet."
        ),
    )


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


def launch_caveats(report: SxsReport, launch: LaunchDecision | None) -> list[str]:
    """What the reader of a decision must keep in mind, only the caveats that apply."""
    result = report.result
    caveats = page_warnings(result) if result else []
    weighted = launch.query_weighted_gsb if launch is not None else None
    if weighted is not None and abs(weighted - launch.gsb) > 5e-5:  # differs as shown (4 places)
        caveats.append(
            _(
                "The always-valid range runs over the completed queries, each query's mean "
                "answer counted once: it estimates the query-weighted GSB (%(weighted)s), not "
                "GSB over all answers (%(gsb)s)."
            )
            % {"weighted": f"{weighted:+.4f}", "gsb": f"{launch.gsb:+.4f}"}
        )
    if result is not None and result.n_raters is not None and result.n_raters < MIN_RATER_CLUSTERS:
        caveats.append(
            _(
                "Few raters (%(raters)s) judged every query: the always-valid range treats "
                "queries as independent given these raters, so it describes them, not raters "
                "in general."
            )
            % {"raters": result.n_raters}
        )
    return caveats


def launch_review(comparison: Comparison, report: SxsReport) -> LaunchReview:
    launch = launch_decision(comparison, report)
    graded, error, judged, unjudged = _graded(comparison, {row.external_id for row in report.rows})
    agreement, text, rows = "unknown", "", []
    if graded is not None and launch is not None:
        agreement, text = agreement_words(launch, graded)
        rows = disagreeing_queries(report, graded)
    sequence, primary = None, None
    if graded is not None and primary_key(comparison) is not None:
        primary = graded_decision(comparison, graded)
        sequence = primary.sequence
    elif graded is not None:
        # Exploratory beside a GSB plan, but on the primary's basis: over the queries with all
        # their grades, in the order their last grade came in, so it stays valid however often
        # the page is read (in query-id order it would not: a query's value changes as its
        # grades arrive). Only the range is used; the bar is GSB's.
        sequence = graded_decision(comparison, graded).sequence
    return LaunchReview(
        launch, graded, error, agreement, text, rows, judged, sequence, primary, unjudged,
        excluded=tuple(comparison_exclusions(comparison)),
        caveats=tuple(launch_caveats(report, launch)),
    )  # fmt: skip
