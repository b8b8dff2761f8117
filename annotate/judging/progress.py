"""Reads of a rater's own progress, for either kind: what they did, and what is left that
they could still take (open tasks plus the ones they hold)."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Q
from django.utils import timezone

from annotate.judging.graded import GRADED
from annotate.judging.kinds import TaskKind
from annotate.judging.open import open_tasks
from annotate.judging.sxs import SXS
from annotate.models import Campaign, Comparison, Grade, Skip, TaskSkip, Verdict


def _left(kind: TaskKind, scope, rater: AbstractBaseUser, now: datetime) -> int:
    """Tasks open to the rater plus those they hold a live lease on."""
    scope_field = kind.scope_column.removesuffix("_id")
    held = kind.lease_model.objects.filter(
        **{f"{kind.lease_task}__{scope_field}": scope}, rater=rater, expires_at__gt=now
    ).count()
    return open_tasks(kind, scope=scope, rater=rater, now=now).count() + held


def rater_progress(*, rater: AbstractBaseUser, campaign: Campaign) -> dict[str, int]:
    """Done (grades and skips) and what is left that this rater could still take."""
    graded = Grade.objects.filter(pool_item__campaign=campaign, rater=rater).aggregate(
        total=Count("pk"), cant=Count("pk", filter=Q(cant_judge=True))
    )
    skipped = Skip.objects.filter(pool_item__campaign=campaign, rater=rater).count()
    left = _left(GRADED, campaign, rater, timezone.now())
    done = graded["total"] + skipped
    return {
        "done": done,
        "graded": graded["total"] - graded["cant"],
        "cant_judge": graded["cant"],
        "skipped": skipped,
        "left": left,
        "assigned": done + left,
    }


def rater_sxs_progress(*, rater: AbstractBaseUser, comparison: Comparison, now: datetime) -> dict:
    """The rater's own verdicts (can't-judge included) and skips, and what is left that they
    could still take."""
    answered = Verdict.objects.filter(task__comparison=comparison, rater=rater).aggregate(
        total=Count("pk"), cant=Count("pk", filter=Q(cant_judge=True))
    )
    skipped = TaskSkip.objects.filter(task__comparison=comparison, rater=rater).count()
    done = answered["total"] + skipped
    left = _left(SXS, comparison, rater, now)
    return {
        "done": done,
        "verdicts": answered["total"] - answered["cant"],
        "cant_judge": answered["cant"],
        "skipped": skipped,
        "left": left,
        "assigned": done + left,
    }
