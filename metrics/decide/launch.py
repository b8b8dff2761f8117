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
from dataclasses import dataclass

import numpy as np

from annotate.models import Comparison, Verdict, VerdictValue
from metrics.core.stats import Decision, GsbResult, betting_confidence_sequence
from metrics.decide.gsb import SxsReport, decision_text

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
        }


def completed_queries(comparison: Comparison) -> CompletedQueries:
    """The queries whose every task has all its answers, ordered by when the last one came in
    (queries with identical lists only are complete from the start)."""
    need: dict[int, int] = {}
    identical_only: dict[int, bool] = {}
    for query_id, identical in comparison.tasks.values_list("query_id", "identical"):
        need[query_id] = need.get(query_id, 0) + (0 if identical else comparison.raters_per_task)
        identical_only[query_id] = identical_only.get(query_id, True) and identical
    got: dict[int, list[int]] = {}
    last: dict[int, float] = {}
    verdicts = Verdict.objects.filter(task__comparison=comparison, cant_judge=False).values_list(
        "task__query_id", "value", "created_at"
    )
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
    return f"the bar of {threshold:+.2f}"


def _sentence(result: GsbResult, state: LaunchState, low: float, high: float) -> str:
    """The plain-words sentence: counts first, then what the interval allows."""
    pct = f"{result.confidence:.0%}"
    counts = (
        f"The candidate was preferred on {result.good} of {result.n_verdicts} answers and lost "
        f"on {result.bad}"
    )
    bar = _bar(result.threshold)
    if state == LaunchState.LAUNCH:
        return f"{counts}; with {pct} confidence it is better than {bar}, so it may launch."
    if state == LaunchState.DO_NOT_LAUNCH:
        if high < result.threshold:
            return f"{counts}; with {pct} confidence it is not better than {bar}: do not launch."
        return f"{counts}; it did not beat {bar}, so it should not launch."
    if state == LaunchState.NO_DIFFERENCE:
        return (
            f"{counts}; with {pct} confidence its GSB lies between {low:+.2f} and {high:+.2f}, "
            "inside the margin the plan calls no meaningful difference."
        )
    if state == LaunchState.INCONCLUSIVE:
        return (
            f"{counts}; at the planned size the data cannot tell: its GSB lies somewhere between "
            f"{low:+.2f} and {high:+.2f} ({pct} confidence), which straddles {bar}."
        )
    return (
        f"{counts} so far. This is provisional: not all planned queries are in, and no outcome "
        f"is clear yet at {pct} confidence."
    )


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
    return _decision(comparison, result, done, state, path, (seq_low, seq_high), cs.n)


HEADLINES = {
    LaunchState.LAUNCH: ("Launch", "launch"),
    LaunchState.DO_NOT_LAUNCH: ("Do not launch", "stop"),
    LaunchState.INCONCLUSIVE: ("Inconclusive at the planned size", "wait"),
    LaunchState.NO_DIFFERENCE: ("No meaningful difference", "wait"),
    LaunchState.COLLECTING: ("Collecting answers: no decision yet", "provisional"),
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
    headline, tone = HEADLINES[state]
    if path == "fixed" and state in (LaunchState.LAUNCH, LaunchState.DO_NOT_LAUNCH):
        headline = decision_text(result).headline  # says conclusive or not
    elif path == "sequence":
        headline += " (declared before all planned queries were in)"
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
