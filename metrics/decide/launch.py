"""The launch decision of a side-by-side comparison, safe to read while answers arrive.

The plan is the comparison's settings fixed when it was created: every query of the comparison
answered by `raters_per_task` raters, the bar τ (`min_gsb`), the confidence and the minimum
number of informative queries. Four states:

- collecting: the planned queries are not all in. Only the always-valid confidence sequence
  (metrics.core.stats.sequence, over completed queries in the order they completed) may declare
  an outcome, and never before the minimum number of informative queries: its lower end above
  the bar is Launch, its upper end below the bar is Do not launch. The fixed-sample interval is
  shown marked provisional: read again and again it stops early on noise (benchmarks/README.md,
  "Looking early").
- Inside the plan's equivalence margin (when it has one), from either path: no meaningful
  difference.
- launch / do not launch / inconclusive at the planned size: when the plan is complete, the
  fixed-sample rule of STATISTICS.md section 3 decides (sign test included).

The sequence runs over queries, each query's mean verdict score y_i/m_i, so it estimates the
query-weighted GSB; it equals (G − B)/N when every query has the same number of answers.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

import numpy as np
from django.utils.translation import gettext, gettext_lazy, ngettext_lazy, pgettext, pgettext_lazy

from annotate.models import Comparison, Verdict, VerdictValue
from annotate.selectors.real import real_tasks, real_verdicts
from metrics.core.stats import Decision, GsbResult, betting_confidence_sequence
from metrics.decide.gsb import SxsReport, decision_text
from metrics.decide.plan import plan_change_rows, plan_note

SCORES = {VerdictValue.GOOD.value: 1, VerdictValue.SAME.value: 0, VerdictValue.BAD.value: -1}


class LaunchState(enum.StrEnum):
    COLLECTING = "collecting"
    LAUNCH = "launch"
    DO_NOT_LAUNCH = "do_not_launch"
    NO_DIFFERENCE = "no_meaningful_difference"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class CompletedQueries:
    """Per-query mean verdict scores y_i/m_i of the completed queries, in completion order."""

    values: np.ndarray
    informative: int  # completed queries whose two lists differ
    planned: int  # all queries of the comparison
    planned_informative: int


@dataclass(frozen=True)
class LaunchDecision:
    state: LaunchState
    path: str  # "sequence", "fixed" or "" (still collecting)
    tone: str  # banner colour: "launch", "stop", "wait" or "provisional"
    headline: str
    sentence: str  # one sentence a product manager reads correctly
    completed: int
    planned: int
    informative: int
    min_queries: int
    threshold: float
    margin: float
    confidence: float
    sequence_low: float
    sequence_high: float
    query_weighted_gsb: float | None
    fixed_low: float
    fixed_high: float
    gsb: float
    plan_note: str = ""  # no plan, or the plan changed after answers (metrics.decide.plan)
    no_plan: bool = False

    @property
    def provisional(self) -> bool:
        return self.state == LaunchState.COLLECTING

    def to_dict(self) -> dict:
        return {
            "state": self.state.value,
            "provisional": self.provisional,
            "path": self.path,
            "headline": self.headline,
            "sentence": self.sentence,
            "planned_queries": self.planned,
            "completed_queries": self.completed,
            "completed_informative_queries": self.informative,
            "min_queries": self.min_queries,
            "threshold": self.threshold,
            "equivalence_margin": self.margin,
            "confidence": self.confidence,
            "gsb": self.gsb,
            "query_weighted_gsb": self.query_weighted_gsb,
            "fixed_interval": {"low": self.fixed_low, "high": self.fixed_high},
            "sequence_interval": {"low": self.sequence_low, "high": self.sequence_high},
            "no_plan": self.no_plan,
            "plan_note": self.plan_note,
        }


def completed_queries(comparison: Comparison) -> CompletedQueries:
    """The queries whose every task has all its answers, ordered by when the last one came in
    (queries with identical lists only are complete from the start)."""
    need: dict[int, int] = {}
    identical_only: dict[int, bool] = {}
    for query_id, identical in real_tasks(comparison.tasks.all()).values_list(
        "query_id", "identical"
    ):
        need[query_id] = need.get(query_id, 0) + (0 if identical else comparison.raters_per_task)
        identical_only[query_id] = identical_only.get(query_id, True) and identical
    got: dict[int, list[int]] = {}
    last: dict[int, float] = {}
    verdicts = real_verdicts(
        Verdict.objects.filter(task__comparison=comparison, cant_judge=False),
        comparison.campaign_id,
    ).values_list("task__query_id", "value", "created_at")
    for query_id, value, created in verdicts:
        got.setdefault(query_id, []).append(SCORES[value])
        last[query_id] = max(last.get(query_id, 0.0), created.timestamp())
    done = [q for q, n in need.items() if len(got.get(q, [])) >= n]
    done.sort(key=lambda q: (last.get(q, 0.0), q))
    # An identical-only query has no verdicts: its value is 0 (all Same).
    values = np.array([np.mean(got[q]) if got.get(q) else 0.0 for q in done], dtype=np.float64)
    return CompletedQueries(
        values=values,
        informative=sum(not identical_only[q] for q in done),
        planned=len(need),
        planned_informative=sum(not v for v in identical_only.values()),
    )


def _bar(threshold: float) -> str:
    return pgettext("launch bar", "the bar of %(bar)s") % {"bar": f"{threshold:+.2f}"}


# One whole sentence per state (counts first, then what the interval allows), so a translation
# may put its parts in its own order; "below" is Do not launch with the interval under the bar.
_SENTENCES = {
    "launch": ngettext_lazy(
        "The candidate was preferred on %(good)s of %(n)s answer and lost on %(bad)s; with "
        "%(pct)s confidence it is better than %(bar)s, so it may launch.",
        "The candidate was preferred on %(good)s of %(n)s answers and lost on %(bad)s; with "
        "%(pct)s confidence it is better than %(bar)s, so it may launch.",
        "n",
    ),
    "below": ngettext_lazy(
        "The candidate was preferred on %(good)s of %(n)s answer and lost on %(bad)s; with "
        "%(pct)s confidence it is not better than %(bar)s: do not launch.",
        "The candidate was preferred on %(good)s of %(n)s answers and lost on %(bad)s; with "
        "%(pct)s confidence it is not better than %(bar)s: do not launch.",
        "n",
    ),
    "do_not_launch": ngettext_lazy(
        "The candidate was preferred on %(good)s of %(n)s answer and lost on %(bad)s; it did "
        "not beat %(bar)s, so it should not launch.",
        "The candidate was preferred on %(good)s of %(n)s answers and lost on %(bad)s; it did "
        "not beat %(bar)s, so it should not launch.",
        "n",
    ),
    "no_meaningful_difference": ngettext_lazy(
        "The candidate was preferred on %(good)s of %(n)s answer and lost on %(bad)s; with "
        "%(pct)s confidence its GSB lies between %(low)s and %(high)s, inside the margin the "
        "plan calls no meaningful difference.",
        "The candidate was preferred on %(good)s of %(n)s answers and lost on %(bad)s; with "
        "%(pct)s confidence its GSB lies between %(low)s and %(high)s, inside the margin the "
        "plan calls no meaningful difference.",
        "n",
    ),
    "inconclusive": ngettext_lazy(
        "The candidate was preferred on %(good)s of %(n)s answer and lost on %(bad)s; at the "
        "planned size the data cannot tell: its GSB lies somewhere between %(low)s and "
        "%(high)s (%(pct)s confidence), which straddles %(bar)s.",
        "The candidate was preferred on %(good)s of %(n)s answers and lost on %(bad)s; at the "
        "planned size the data cannot tell: its GSB lies somewhere between %(low)s and "
        "%(high)s (%(pct)s confidence), which straddles %(bar)s.",
        "n",
    ),
    "collecting": ngettext_lazy(
        "The candidate was preferred on %(good)s of %(n)s answer and lost on %(bad)s so far. "
        "This is provisional: not all planned queries are in, and no outcome is clear yet at "
        "%(pct)s confidence.",
        "The candidate was preferred on %(good)s of %(n)s answers and lost on %(bad)s so far. "
        "This is provisional: not all planned queries are in, and no outcome is clear yet at "
        "%(pct)s confidence.",
        "n",
    ),
}


def _sentence(result: GsbResult, state: LaunchState, low: float, high: float) -> str:
    """The plain-words sentence of a state, in the reader's language."""
    below = state == LaunchState.DO_NOT_LAUNCH and high < result.threshold
    return _SENTENCES["below" if below else state.value] % {
        "good": result.good,
        "n": result.n_verdicts,
        "bad": result.bad,
        "pct": f"{result.confidence:.0%}",
        "bar": _bar(result.threshold),
        "low": f"{low:+.2f}",
        "high": f"{high:+.2f}",
    }


def launch_decision(comparison: Comparison, report: SxsReport) -> LaunchDecision | None:
    """The decision in its four states; None before any answer."""
    result = report.result
    if result is None:
        return None
    done = completed_queries(comparison)
    cs = betting_confidence_sequence(done.values, comparison.confidence)
    seq_low, seq_high = cs.last
    complete = report.progress["counted"] >= report.progress["needed"]
    tau, margin = result.threshold, comparison.equivalence_margin
    enough = done.informative >= result.min_queries
    if not comparison.plan_fixed:
        # No plan: the fixed-sample rule on the answers so far, as `python -m metrics gsb`.
        complete, enough = True, False
    if complete and margin > 0 and -margin < result.ci_low and result.ci_high < margin:
        state, path = LaunchState.NO_DIFFERENCE, "fixed"
    elif complete:
        state = {
            Decision.LAUNCH: LaunchState.LAUNCH,
            Decision.DO_NOT_LAUNCH: LaunchState.DO_NOT_LAUNCH,
            Decision.MORE_DATA: LaunchState.INCONCLUSIVE,
        }[result.decision]
        path = "fixed"
    elif enough and margin > 0 and -margin < seq_low and seq_high < margin:
        # Checked before the bar: "better, but by less than matters" is no reason to launch.
        state, path = LaunchState.NO_DIFFERENCE, "sequence"
    elif enough and seq_low > tau:
        state, path = LaunchState.LAUNCH, "sequence"
    elif enough and seq_high < tau:
        state, path = LaunchState.DO_NOT_LAUNCH, "sequence"
    else:
        state, path = LaunchState.COLLECTING, ""
    decision = _decision(comparison, result, done, state, path, (seq_low, seq_high), cs.n)
    note = plan_note(comparison, plan_change_rows(comparison))
    return replace(decision, plan_note=note, no_plan=not comparison.plan_fixed)


HEADLINES = {
    LaunchState.LAUNCH: (pgettext_lazy("decision", "Launch"), "launch"),
    LaunchState.DO_NOT_LAUNCH: (gettext_lazy("Do not launch"), "stop"),
    LaunchState.INCONCLUSIVE: (gettext_lazy("Inconclusive at the planned size"), "wait"),
    LaunchState.NO_DIFFERENCE: (gettext_lazy("No meaningful difference"), "wait"),
    LaunchState.COLLECTING: (gettext_lazy("Collecting answers: no decision yet"), "provisional"),
}


def early_headline(headline: str) -> str:
    """A headline the always-valid sequence declared before the plan was complete."""
    return gettext("%(headline)s (declared before all planned queries were in)") % {
        "headline": headline
    }


def _decision(
    comparison: Comparison,
    result: GsbResult,
    done: CompletedQueries,
    state: LaunchState,
    path: str,
    sequence: tuple[float, float],
    completed: int,
) -> LaunchDecision:
    headline, tone = str(HEADLINES[state][0]), HEADLINES[state][1]
    if path == "fixed" and state in (LaunchState.LAUNCH, LaunchState.DO_NOT_LAUNCH):
        headline = decision_text(result).headline  # says conclusive or not
    elif path == "sequence":
        headline = early_headline(headline)
    if not comparison.plan_fixed:
        headline = gettext("%(headline)s (no plan: the fixed-sample rule decides)") % {
            "headline": decision_text(result).headline
        }
    low, high = (result.ci_low, result.ci_high) if path != "sequence" else sequence
    return LaunchDecision(
        state=state,
        path=path,
        tone=tone,
        headline=headline,
        sentence=_sentence(result, state, low, high),
        completed=completed,
        planned=done.planned,
        informative=done.informative,
        min_queries=result.min_queries,
        threshold=result.threshold,
        margin=comparison.equivalence_margin,
        confidence=comparison.confidence,
        sequence_low=sequence[0],
        sequence_high=sequence[1],
        query_weighted_gsb=float(done.values.mean()) if done.values.size else None,
        fixed_low=result.ci_low,
        fixed_high=result.ci_high,
        gsb=result.gsb,
    )
