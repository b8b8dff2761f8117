"""A comparison's plan in words (#17): the primary measure with its settings, the bar, the
margin, the confidence, the minimum number of informative queries, and the plan's recorded
changes. The decide modules (launch, review, memo) and the pages read the plan from here, so
the page, the memo and the API describe it the same way."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from annotate.models import Comparison, PlanChange, PrimaryMeasure
from metrics.services.scores import MeasureSettings

FIELD_LABELS = {
    "primary": gettext_lazy("Primary measure"),
    "graded_settings": gettext_lazy("Settings of the graded measures"),
    "min_gsb": pgettext_lazy("launch bar", "Bar"),
    "equivalence_margin": gettext_lazy("No meaningful difference within ±"),
    "confidence": gettext_lazy("Confidence"),
    "min_queries": gettext_lazy("Minimum informative queries"),
}


def graded_settings(comparison: Comparison) -> MeasureSettings:
    """The graded measures' settings of the plan: as recorded, else the campaign's defaults at
    k = the comparison's depth."""
    if comparison.graded_settings:
        return MeasureSettings.from_key(comparison.graded_settings)
    return MeasureSettings(k=comparison.depth)


def primary_key(comparison: Comparison) -> str | None:
    """The engine output name of a graded primary measure (None when GSB is primary)."""
    if comparison.primary == PrimaryMeasure.GSB:
        return None
    k = graded_settings(comparison).k
    return {
        PrimaryMeasure.NDCG: f"ndcg_cut_{k}",
        PrimaryMeasure.ERR: f"err_cut_{k}",
        PrimaryMeasure.PRECISION: f"P_{k}",
        PrimaryMeasure.MAP: "map",
        PrimaryMeasure.MRR: "recip_rank",
    }[PrimaryMeasure(comparison.primary)]


def primary_words(comparison: Comparison) -> str:
    """The primary measure with all its settings, in words."""
    if comparison.primary == PrimaryMeasure.GSB:
        return _("GSB = (Good − Bad) / all answers, side by side")
    label = PrimaryMeasure(comparison.primary).label
    return _("%(measure)s, candidate minus baseline per query, from the raters' labels (%(s)s)") % {
        "measure": label.replace("@k", f"@{graded_settings(comparison).k}"),
        "s": graded_settings(comparison).describe(),
    }


def value_words(field: str, value) -> str:
    """A plan field's value as a manager reads it."""
    if field == "primary":
        return str(PrimaryMeasure(value).label) if value in PrimaryMeasure.values else str(value)
    if field == "graded_settings":
        return MeasureSettings.from_key(value).describe() if value else _("the defaults")
    if field in ("min_gsb",):
        return f"{value:+.2f}"
    if field == "equivalence_margin":
        return f"±{value:.2f}" if value else _("none")
    return f"{value:g}" if isinstance(value, float) else str(value)


def plan_rows(comparison: Comparison, planned: int) -> list[tuple[str, str]]:
    """The plan as (label, value) rows for a page, worded as the memo words it."""
    margin = comparison.equivalence_margin
    return [
        (str(FIELD_LABELS["primary"]), primary_words(comparison)),
        (str(FIELD_LABELS["min_gsb"]), _("above %(bar)s") % {"bar": f"{comparison.min_gsb:+.2f}"}),
        (str(FIELD_LABELS["equivalence_margin"]),
         f"{margin:.2f}" if margin else _("not part of the plan")),
        (str(FIELD_LABELS["confidence"]), f"{comparison.confidence:g}"),
        (str(FIELD_LABELS["min_queries"]), str(comparison.min_queries)),
        (_("Planned queries"), str(planned)),
        (_("Raters per query"), str(comparison.raters_per_task)),
    ]  # fmt: skip


@dataclass(frozen=True)
class PlanChangeRow:
    who: str
    when: datetime
    answers_in: int
    changes: list[tuple[str, str, str]]  # (field's label, old, new)
    reason: str

    @property
    def after_answers(self) -> bool:
        return self.answers_in > 0


def plan_change_rows(comparison: Comparison) -> list[PlanChangeRow]:
    rows = []
    for change in PlanChange.objects.filter(comparison=comparison).select_related("changed_by"):
        who = change.changed_by.get_username() if change.changed_by else _("a removed account")
        rows.append(
            PlanChangeRow(
                who=who,
                when=change.changed_at,
                answers_in=change.answers_in,
                changes=[
                    (str(FIELD_LABELS.get(f, f)), value_words(f, old), value_words(f, new))
                    for f, old, new in change.changes
                ],
                reason=change.reason,
            )
        )
    return rows


def plan_note(comparison: Comparison, rows: list[PlanChangeRow]) -> str:
    """What the decision must say about the plan: none at all, or changed after answers."""
    if not comparison.plan_fixed:
        return _(
            "No plan: this comparison was made before plans existed, so the fixed-sample rule "
            "decides it on the answers so far (no early decision, no planned size)."
        )
    late = [r for r in rows if r.after_answers]
    if not late:
        return ""
    last = late[-1]
    return _(
        "The plan was changed after answers came in (%(n)s time(s); last by %(who)s on "
        "%(when)s, with %(answers)s answers in): read the decision with that in mind."
    ) % {
        "n": len(late),
        "who": last.who,
        "when": f"{last.when:%Y-%m-%d %H:%M}",
        "answers": last.answers_in,
    }
