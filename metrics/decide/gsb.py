"""The data of a comparison's report: its verdicts as the arrays metrics.core.stats reads, the
statistics it returns, and the per-query table. No formula is computed here: every figure comes
from `gsb_from_verdicts`; this module only counts rows and words the outcome.

Identical tasks are Same verdicts no rater made: one row per rater the task would have had
(`raters_per_task`), counted in G/S/B and in the clustering, left out of the position-bias test,
the shuffle check and agreement (the core knows them by the `identical` flag).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from django.utils.translation import gettext, ngettext, pgettext

from annotate.models import Comparison, ComparisonUnit, Document, Verdict, VerdictValue
from annotate.ranking import ranked_entries
from annotate.selectors.real import excluded_raters, real_tasks, real_verdicts
from annotate.selectors_sxs import comparison_progress
from metrics.core.stats import Decision, GsbResult, gsb_from_verdicts
from metrics.decide.words import more_queries_words, reason_words, warning_words

# Below this many queries the cluster bootstrap is not read (STATISTICS.md §1).
BOOTSTRAP_MIN_QUERIES = 30


@dataclass
class VerdictArrays:
    """One entry per verdict, rater-made first, then the identical tasks' implied Sames."""

    query: np.ndarray
    task: np.ndarray
    value: list[str]
    rater: list[str]
    candidate_side: list[str]
    strength: list[str]
    identical: np.ndarray
    has_strengths: bool

    def __len__(self) -> int:
        return int(self.query.size)


# The CSV download's words (machine-read, English); the page shows `value_label`.
VALUE_WORDS = {"G": "Good", "S": "Same", "B": "Bad"}


def _value_labels() -> dict[str, str]:
    return {
        "G": pgettext("GSB verdict", "Good"),
        "S": pgettext("GSB verdict", "Same"),
        "B": pgettext("GSB verdict", "Bad"),
    }


@dataclass
class ReasonRow:
    rater: str
    value: str
    strength: int | None
    reason: str
    position: int | None

    @property
    def value_word(self) -> str:
        # Words, not letters: "B" would read as system B on a page that names A and B.
        return VALUE_WORDS.get(self.value, self.value)

    @property
    def value_label(self) -> str:
        """The verdict in the reader's language, for the page."""
        return _value_labels().get(self.value, self.value)


@dataclass
class QueryRow:
    query_id: int
    external_id: str
    text: str
    tasks: int = 0
    good: int = 0
    same: int = 0
    bad: int = 0
    identical_same: int = 0  # of `same`, the Sames counted for identical lists
    reasons: list[ReasonRow] = field(default_factory=list)

    @property
    def verdicts(self) -> int:
        return self.good + self.same + self.bad

    @property
    def y(self) -> int:
        return self.good - self.bad

    @property
    def majority(self) -> str:
        """The sign of y_i (STATISTICS.md §2), as the API and the CSV name it (English)."""
        if not self.verdicts:
            return "no verdicts yet"
        return "candidate" if self.y > 0 else "baseline" if self.y < 0 else "tie"

    @property
    def majority_label(self) -> str:
        """`majority` in the reader's language, for the page."""
        return {
            "no verdicts yet": gettext("no verdicts yet"),
            "candidate": pgettext("majority", "candidate"),
            "baseline": pgettext("majority", "baseline"),
            "tie": pgettext("majority", "tie"),
        }[self.majority]


@dataclass
class SxsReport:
    comparison: Comparison
    result: GsbResult | None
    rows: list[QueryRow]
    progress: dict
    identical_tasks: int
    rated_verdicts: int
    has_strengths: bool


def verdict_arrays(comparison: Comparison) -> VerdictArrays:
    """The comparison's verdicts as arrays for gsb_from_verdicts."""
    rows = list(
        real_verdicts(
            Verdict.objects.filter(task__comparison=comparison, cant_judge=False),
            comparison.campaign_id,
        )
        .order_by("task__query_id", "task__position", "task_id", "rater_id")
        .values_list("task__query_id", "task_id", "rater_id", "value", "candidate_side", "strength")
    )
    identical = list(
        comparison.tasks.filter(identical=True)
        .order_by("query_id", "position", "pk")
        .values_list("query_id", "pk")
    )
    k = comparison.raters_per_task
    query = [r[0] for r in rows] + [q for q, _ in identical for _ in range(k)]
    task = [r[1] for r in rows] + [t for _, t in identical for _ in range(k)]
    # Implied Sames get rater names no user can have, so they never pair with a real rater.
    raters = [f"u{r[2]}" for r in rows] + [
        f"identical:{t}:{i}" for _, t in identical for i in range(k)
    ]
    n_implied = len(identical) * k
    return VerdictArrays(
        query=np.array(query, dtype=np.int64),
        task=np.array(task, dtype=np.int64),
        value=[r[3] for r in rows] + [VerdictValue.SAME.value] * n_implied,
        rater=raters,
        candidate_side=[r[4] for r in rows] + [""] * n_implied,
        strength=["" if r[5] is None else str(r[5]) for r in rows] + [""] * n_implied,
        identical=np.array([False] * len(rows) + [True] * n_implied, dtype=bool),
        has_strengths=any(r[5] is not None for r in rows),
    )


def comparison_statistics(comparison: Comparison, arrays: VerdictArrays) -> GsbResult | None:
    """gsb_from_verdicts on the comparison's verdicts with its settings; None without any.

    Verdicts are clustered by query and by rater. Per position, one rater answers several tasks
    of a query, so agreement (which pairs raters on the same task) comes from a second call keyed
    by task.
    """
    if not len(arrays):
        return None
    per_position = comparison.unit == ComparisonUnit.POSITION
    n_queries = int(np.unique(arrays.query).size)
    strengths = arrays.strength if arrays.has_strengths else None
    result = gsb_from_verdicts(
        arrays.query,
        arrays.value,
        raters=arrays.rater,
        agreement=not per_position,
        candidate_sides=arrays.candidate_side,
        strengths=strengths,
        identical=arrays.identical,
        confidence=comparison.confidence,
        threshold=comparison.min_gsb,
        min_queries=comparison.min_queries,
        bootstrap=n_queries >= BOOTSTRAP_MIN_QUERIES,
        seed=comparison.seed,
    )
    rated = ~arrays.identical
    if per_position and rated.any():
        pick = np.flatnonzero(rated).tolist()
        by_task = gsb_from_verdicts(
            arrays.task[rated],
            [arrays.value[i] for i in pick],
            raters=[arrays.rater[i] for i in pick],
            strengths=None if strengths is None else [strengths[i] for i in pick],
            confidence=comparison.confidence,
            threshold=comparison.min_gsb,
            min_queries=0,
        )
        result.alpha, result.raw_agreement = by_task.alpha, by_task.raw_agreement
    return result


def query_rows(comparison: Comparison) -> list[QueryRow]:
    """One row per query of the comparison: its tasks, verdict counts and reasons."""
    rows: dict[int, QueryRow] = {}
    tasks = (
        real_tasks(comparison.tasks.all())
        .values_list("query_id", "query__external_id", "query__text", "identical")
        .order_by("query__external_id", "position")
    )
    identical_per_query: dict[int, int] = defaultdict(int)
    for query_id, external_id, text, identical in tasks:
        row = rows.setdefault(query_id, QueryRow(query_id, external_id, text))
        row.tasks += 1
        if identical:
            identical_per_query[query_id] += 1
    for query_id, n in identical_per_query.items():
        rows[query_id].same += n * comparison.raters_per_task
        rows[query_id].identical_same += n * comparison.raters_per_task
    verdicts = (
        real_verdicts(
            Verdict.objects.filter(task__comparison=comparison, cant_judge=False),
            comparison.campaign_id,
        )
        .order_by("task__position", "rater__username", "pk")
        .values_list(
            "task__query_id", "value", "strength", "reason", "rater__username", "task__position"
        )
    )
    for query_id, value, strength, reason, username, position in verdicts:
        row = rows[query_id]
        if value == VerdictValue.GOOD:
            row.good += 1
        elif value == VerdictValue.BAD:
            row.bad += 1
        else:
            row.same += 1
        if reason:
            row.reasons.append(ReasonRow(username, value, strength, reason, position))
    return list(rows.values())


SORT_KEYS = {
    "query": lambda r: r.external_id,
    "verdicts": lambda r: r.verdicts,
    "good": lambda r: r.good,
    "same": lambda r: r.same,
    "bad": lambda r: r.bad,
    "y": lambda r: r.y,
}


def sorted_rows(rows: list[QueryRow], sort: str) -> tuple[list[QueryRow], str]:
    """Rows sorted by a column name ("-" prefix: descending); unknown names sort by query."""
    key = sort.lstrip("-")
    if key not in SORT_KEYS:
        key, sort = "query", "query"
    rows = sorted(rows, key=lambda r: (SORT_KEYS[key](r), r.external_id))
    if sort.startswith("-"):
        rows.reverse()
    return rows, sort


def comparison_report(comparison: Comparison) -> SxsReport:
    arrays = verdict_arrays(comparison)
    progress = comparison_progress(comparison)
    return SxsReport(
        comparison=comparison,
        result=comparison_statistics(comparison, arrays),
        rows=query_rows(comparison),
        progress=progress,
        identical_tasks=progress["identical"],
        rated_verdicts=int((~arrays.identical).sum()),
        has_strengths=arrays.has_strengths,
    )


# ---- Words -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DecisionText:
    headline: str
    detail: str
    tone: str  # "launch", "stop" or "wait": the colour of the banner


def _bar_words(threshold: float) -> str:
    """The bar as a noun phrase ("the bar of +0.10", or "zero" when the bar is 0)."""
    if threshold:
        return pgettext("launch bar", "the bar of %(bar)s") % {"bar": f"{threshold:+.2f}"}
    return pgettext("launch bar", "zero")


def interval_words(confidence: float, low: float, high: float) -> str:
    """The interval as a noun phrase: "95% interval [+0.012, +0.220]"."""
    return gettext("%(pct)s interval [%(low)s, %(high)s]") % {
        "pct": f"{confidence:.0%}",
        "low": f"{low:+.3f}",
        "high": f"{high:+.3f}",
    }


def decision_text(result: GsbResult) -> DecisionText:
    """The decision as a product manager would read it."""
    values = {
        "gsb": f"{result.gsb:+.3f}",
        "interval": interval_words(result.confidence, result.ci_low, result.ci_high),
        "bar": _bar_words(result.threshold),
        "n": result.n_queries,
    }
    if result.decision == Decision.LAUNCH:
        detail = ngettext(
            "The candidate beats %(bar)s: GSB %(gsb)s, %(interval)s, over %(n)s query.",
            "The candidate beats %(bar)s: GSB %(gsb)s, %(interval)s, over %(n)s queries.",
            result.n_queries,
        )
        return DecisionText(pgettext("decision", "Launch"), detail % values, "launch")
    if result.decision == Decision.DO_NOT_LAUNCH:
        if result.conclusive:
            headline = (
                gettext("Do not launch — the candidate is worse, conclusively")
                if result.threshold == 0
                else gettext("Do not launch — the candidate is below the bar, conclusively")
            )
            detail = gettext("GSB %(gsb)s; the whole %(interval)s lies below %(bar)s.")
            return DecisionText(headline, detail % values, "stop")
        detail = gettext(
            "GSB %(gsb)s is not above %(bar)s. Not conclusive: the %(interval)s still reaches "
            "above it, so more data could change the picture, but it does not point to a launch."
        )
        return DecisionText(
            gettext("Do not launch — the candidate did not beat the bar"), detail % values, "stop"
        )
    headline = gettext("More data needed: %(more)s") % {"more": more_queries_words(result)}
    detail = gettext(
        "GSB %(gsb)s, %(interval)s: %(reason)s. The range allows for how uncertain the rates "
        "seen so far still are."
    )
    return DecisionText(headline, detail % {**values, "reason": reason_words(result)}, "wait")


def page_warnings(result: GsbResult) -> list[str]:
    """The result's warnings for a page, in the reader's language where the page can word
    them (metrics.core has no Django, so its warnings are English)."""
    return warning_words(result)


# ---- Downloads and the manager's look at one query ------------------------------------------


def _flatten(prefix: str, value) -> list[tuple[str, object]]:
    if isinstance(value, dict):
        return [row for k, v in value.items() for row in _flatten(f"{prefix}.{k}", v)]
    if isinstance(value, list):
        return [(prefix, "; ".join(str(v) for v in value))]
    return [(prefix, "" if value is None else value)]


def report_summary_rows(report: SxsReport) -> list[tuple[str, object]]:
    """The report's figures as (measure, value): the settings, then GsbResult.to_dict()."""
    c = report.comparison
    rows: list[tuple[str, object]] = [
        ("comparison", c.name),
        ("baseline_run", c.baseline.name),
        ("candidate_run", c.candidate.name),
        ("unit", c.unit),
        ("results_per_side", c.depth),
        ("raters_per_task", c.raters_per_task),
        ("seed", c.seed),
        ("tasks", c.tasks.count()),
        ("identical_tasks", report.identical_tasks),
        ("rated_verdicts", report.rated_verdicts),
        ("verdicts_needed", report.progress["needed"]),
    ]
    if report.result is not None:
        for key, value in report.result.to_dict().items():
            rows.extend(_flatten(key, value))
    return rows


def _ranked(run, comparison: Comparison, query) -> list[dict]:
    ranked = ranked_entries(run, k=comparison.depth, queries=[query.pk])
    docs = Document.objects.in_bulk(ranked.document_id.tolist())
    return [
        {
            "position": int(p),
            "rank": int(r),
            "score": None if np.isnan(s) else float(s),
            "score_text": "" if np.isnan(s) else f"{float(s):.10g}",
            "document": docs[int(d)],
        }
        for d, s, r, p in zip(
            ranked.document_id, ranked.score, ranked.rank, ranked.position, strict=True
        )
    ]


def manager_query_view(comparison: Comparison, query) -> dict:
    """A's and B's lists of one query (named, with ranks and scores) and its verdicts."""
    baseline = _ranked(comparison.baseline, comparison, query)
    candidate = _ranked(comparison.candidate, comparison, query)
    shared = {e["document"].pk for e in baseline} & {e["document"].pk for e in candidate}
    for entry in (*baseline, *candidate):
        entry["shared"] = entry["document"].pk in shared
    tasks = list(comparison.tasks.filter(query=query).order_by("position"))
    verdicts = list(
        Verdict.objects.filter(task__in=tasks)
        .select_related("rater", "task")
        .prefetch_related("history")
        .order_by("task__position", "rater__username")
    )
    return {
        "sides": [
            (gettext("Baseline (A)"), comparison.baseline, baseline),
            (gettext("Candidate (B)"), comparison.candidate, candidate),
        ],
        "tasks": tasks,
        "verdicts": verdicts,
        "identical_tasks": [t for t in tasks if t.identical],
    }


def gsb_cli_rows(comparison: Comparison) -> tuple[list[list[str]], list[str]]:
    """The comparison's verdicts as the CSV `python -m metrics gsb` reads (header first), and
    notes for the person running it. Identical tasks appear as their implied Sames.

    The CLI pairs raters by query, so per position (where one rater answers several tasks of a
    query) the rater column is left out: G/S/B, the interval and the decision are the same,
    agreement is then only on the report page.
    """
    per_position = comparison.unit == ComparisonUnit.POSITION
    rows = list(
        real_verdicts(
            Verdict.objects.filter(task__comparison=comparison, cant_judge=False),
            comparison.campaign_id,
        )
        .order_by("task__query__external_id", "task__position", "rater__username")
        .values_list(
            "task__query__external_id", "value", "rater__username", "candidate_side", "strength"
        )
    )
    with_strength = any(r[4] is not None for r in rows)
    header = ["query", "verdict", *([] if per_position else ["rater"]), "candidate_side"]
    header += ["strength"] if with_strength else []
    header.append("identical")
    out = [header]
    for query, value, rater, side, strength in rows:
        line = [query, value, *([] if per_position else [rater]), side]
        line += [str(strength or "")] if with_strength else []
        out.append([*line, "false"])
    identical = real_tasks(comparison.tasks.filter(identical=True)).order_by(
        "query__external_id", "position"
    )
    blank = ["", ""] if not per_position else [""]
    for query in identical.values_list("query__external_id", flat=True):
        for _ in range(comparison.raters_per_task):
            line = [query, "S", *blank] + ([""] if with_strength else [])
            out.append([*line, "true"])
    notes = [
        f"{len(rows)} verdicts and {len(out) - 1 - len(rows)} implied Sames of identical tasks; "
        f"read them with: python -m metrics gsb FILE --threshold {comparison.min_gsb:g} "
        f"--confidence {comparison.confidence:g} --min-queries {comparison.min_queries}"
    ]
    if per_position:
        notes.append("per position: no rater column (agreement is on the report page)")
    if excluded := excluded_raters(comparison.campaign_id).count():
        notes.append(f"the verdicts of {excluded} excluded rater(s) are left out")
    return out, notes
