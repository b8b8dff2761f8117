"""The launch decision when the plan's primary measure is a graded one (#17): the per-query
difference candidate − baseline of that measure, from the raters' labels on the comparison's
queries, decided as GSB is (metrics.decide.launch):

- collecting while some planned query still lacks grades: only the always-valid confidence
  sequence over the completed queries, in the order their last grade came in, may declare an
  outcome, and never before the minimum number of informative queries (lists that differ);
- complete: the paired t interval of the mean difference (clipped to [−1, 1]) against the bar,
  and the equivalence margin when the plan has one;
- no plan: the fixed interval on what is there.

The differences of measures in [0, 1] lie in [−1, 1], so the betting sequence applies."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.db.models import (
    Count,
    ExpressionWrapper,
    F,
    IntegerField,
    Max,
    OuterRef,
    Q,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce
from django.utils.translation import gettext, pgettext

from annotate.models import Campaign, Comparison, Grade, PoolItem
from annotate.selectors.real import excluded_raters, real_grades
from metrics.core.stats import betting_confidence_sequence
from metrics.decide.launch import HEADLINES, LaunchState, early_headline
from metrics.decide.ndcg import ComparisonReport


@dataclass(frozen=True)
class GradedDecision:
    state: LaunchState
    path: str  # "sequence", "fixed" or ""
    tone: str
    headline: str
    sentence: str
    measure_label: str
    diff: float
    fixed: tuple[float, float]
    sequence: tuple[float, float]
    completed: int
    planned: int
    informative: int

    @property
    def provisional(self) -> bool:
        return self.state == LaunchState.COLLECTING

    def to_dict(self) -> dict:
        return {
            "state": self.state.value,
            "path": self.path,
            "headline": self.headline,
            "sentence": self.sentence,
            "measure": self.measure_label,
            "difference": self.diff,
            "fixed_interval": {"low": self.fixed[0], "high": self.fixed[1]},
            "sequence_interval": {"low": self.sequence[0], "high": self.sequence[1]},
            "completed_queries": self.completed,
            "planned_queries": self.planned,
        }


def graded_completion(comparison: Comparison) -> tuple[list[str], int, set[str]]:
    """(external ids of the comparison's queries whose every pool item has its grades, in the
    order their last grade came in; the planned number; the queries whose lists are identical)."""
    tasks = comparison.tasks.filter(mirror_of__isnull=True).values_list(
        "query__external_id", "identical"
    )
    planned: dict[str, bool] = {}
    for qid, identical in tasks:
        planned[qid] = planned.get(qid, True) and identical
    campaign = comparison.campaign
    done = _complete_queries(campaign, planned)
    last = dict(
        real_grades(Grade.objects.filter(pool_item__campaign=campaign, cant_judge=False), campaign)
        .filter(pool_item__query__external_id__in=done)
        .values_list("pool_item__query__external_id")
        .annotate(last=Max("created_at"))
    )
    order = sorted(done, key=lambda q: (last[q].timestamp() if q in last else 0.0, q))
    return order, len(planned), {q for q, same in planned.items() if same}


def _complete_queries(campaign: Campaign, queries: Iterable[str]) -> set[str]:
    """The queries among these whose every item (gold left out) has the grades it needs. An
    item's `counted` (kept by triggers) holds every rater's grades, an excluded rater's too
    (#18): those are taken off here, so that only the grades that count complete a query."""
    needed = Coalesce(F("raters_needed"), Value(campaign.overlap),
                      output_field=IntegerField())  # fmt: skip
    items = PoolItem.objects.filter(campaign=campaign, query__external_id__in=queries)
    excluded = excluded_raters(campaign)
    have = F("counted")
    if excluded.exists():
        theirs = (
            Grade.objects.filter(pool_item=OuterRef("pk"), rater_id__in=excluded)
            .filter(cant_judge=False, gold=False)
            .values("pool_item")
            .annotate(n=Count("pk"))
            .values("n")
        )
        have = F("counted") - Coalesce(Subquery(theirs), Value(0))
    rows = (
        items.annotate(needed=needed, have=ExpressionWrapper(have, output_field=IntegerField()))
        .values("query__external_id")
        .annotate(open=Count("pk", filter=Q(have__lt=F("needed"), gold=False)))
    )
    return {row["query__external_id"] for row in rows if row["open"] == 0}


def _sentence(state: LaunchState, report: ComparisonReport, low: float, high: float,
              tau: float, confidence: float) -> str:  # fmt: skip
    values = {
        "measure": report.measure_label,
        "diff": f"{report.result.diff:+.4f}",
        "pct": f"{confidence:.0%}",
        "low": f"{low:+.4f}",
        "high": f"{high:+.4f}",
        "bar": pgettext("launch bar", "the bar of %(bar)s") % {"bar": f"{tau:+.2f}"},
    }
    text = {
        LaunchState.LAUNCH: gettext(
            "On %(measure)s the candidate differs from the baseline by %(diff)s on average; "
            "with %(pct)s confidence the difference lies between %(low)s and %(high)s, above "
            "%(bar)s, so it may launch."
        ),
        LaunchState.DO_NOT_LAUNCH: gettext(
            "On %(measure)s the candidate differs from the baseline by %(diff)s on average; "
            "with %(pct)s confidence the difference lies between %(low)s and %(high)s, below "
            "%(bar)s: do not launch."
        ),
        LaunchState.NO_DIFFERENCE: gettext(
            "On %(measure)s the candidate differs from the baseline by %(diff)s on average; "
            "with %(pct)s confidence the difference lies between %(low)s and %(high)s, inside "
            "the margin the plan calls no meaningful difference."
        ),
        LaunchState.INCONCLUSIVE: gettext(
            "On %(measure)s the candidate differs from the baseline by %(diff)s on average; "
            "with %(pct)s confidence the difference lies between %(low)s and %(high)s, which "
            "straddles %(bar)s: inconclusive at the planned size."
        ),
        LaunchState.COLLECTING: gettext(
            "On %(measure)s the candidate differs from the baseline by %(diff)s on average; "
            "with %(pct)s confidence the difference lies between %(low)s and %(high)s so far. "
            "This is provisional: not all planned queries have their grades, and no outcome "
            "is clear yet."
        ),
    }[state]
    return text % values


def _state(low: float, high: float, tau: float, margin: float) -> LaunchState | None:
    if margin > 0 and -margin < low and high < margin:
        return LaunchState.NO_DIFFERENCE
    if low > tau:
        return LaunchState.LAUNCH
    if high < tau:
        return LaunchState.DO_NOT_LAUNCH
    return None


def graded_decision(comparison: Comparison, report: ComparisonReport) -> GradedDecision:
    order, planned, identical = graded_completion(comparison)
    diffs = {q: d for q, _a, _b, d in report.differences}
    values = np.clip([diffs.get(q, 0.0) for q in order], -1, 1)
    seq = betting_confidence_sequence(values, comparison.confidence).last
    fixed = report.ci_t
    tau, margin = comparison.min_gsb, comparison.equivalence_margin
    informative = sum(q not in identical for q in order)
    complete = len(order) >= planned or not comparison.plan_fixed
    if complete:
        state = _state(*fixed, tau, margin) or LaunchState.INCONCLUSIVE
        path, (low, high) = "fixed", fixed
    elif informative >= comparison.min_queries and (s := _state(*seq, tau, margin)):
        state, path, (low, high) = s, "sequence", seq
    else:
        state, path, (low, high) = LaunchState.COLLECTING, "", seq
    headline, tone = str(HEADLINES[state][0]), HEADLINES[state][1]
    if path == "sequence":
        headline = early_headline(headline)
    return GradedDecision(
        state=state,
        path=path,
        tone=tone,
        headline=headline,
        sentence=_sentence(state, report, low, high, tau, comparison.confidence),
        measure_label=report.measure_label,
        diff=report.result.diff,
        fixed=fixed,
        sequence=seq,
        completed=len(order),
        planned=planned,
        informative=informative,
    )
