"""Changing a comparison's plan (#17): allowed at any time, recorded with who, when, how many
answers were in and why, so the decision and the memo can say the plan moved after the data
began to arrive. A change after answers must give a reason."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from annotate.models import Comparison, PlanChange, Verdict
from annotate.services.sxs_setup import ComparisonRefused

# The plan's fields a manager may change, as the record names them. The queries (and so the
# planned number) are fixed by the tasks: a different set is a new comparison.
PLAN_FIELDS = ("primary", "graded_settings", "min_gsb", "equivalence_margin", "confidence",
               "min_queries")  # fmt: skip


class PlanRefused(ComparisonRefused):
    """A plan change that cannot be made: after the first verdict it needs a reason."""


@dataclass(frozen=True)
class PlanUpdate:
    primary: str
    graded_settings: str
    min_gsb: float
    equivalence_margin: float
    confidence: float
    min_queries: int


def plan_fields(comparison: Comparison) -> dict:
    return {name: getattr(comparison, name) for name in PLAN_FIELDS}


def answers_in(comparison: Comparison) -> int:
    return Verdict.objects.filter(task__comparison=comparison, task__mirror_of__isnull=True).count()


@transaction.atomic
def plan_change(
    *, comparison: Comparison, user, update: PlanUpdate, reason: str = ""
) -> PlanChange | None:
    """Apply `update` to the plan; None when nothing changed. Raises PlanRefused when answers
    are in and no reason is given."""
    locked = Comparison.objects.select_for_update().get(pk=comparison.pk)
    before = plan_fields(locked)
    after = {name: getattr(update, name) for name in PLAN_FIELDS}
    changed = [[f, before[f], after[f]] for f in PLAN_FIELDS if before[f] != after[f]]
    if not changed:
        return None
    answers = answers_in(locked)
    if answers and not reason.strip():
        raise PlanRefused(
            _("Answers are already in (%(n)s): say why the plan changes; the reason is kept "
              "with the change and shown on the decision.") % {"n": answers}
        )  # fmt: skip
    for name, _old, new in changed:
        setattr(locked, name, new)
    locked.save(update_fields=[name for name, *_rest in changed])
    return PlanChange.objects.create(
        comparison=locked,
        changed_by=user,
        answers_in=answers,
        changes=changed,
        reason=reason.strip(),
    )
