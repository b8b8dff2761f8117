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


def _left(kind: TaskKind, scope, rater: AbstractBaseUser, now: datetime, gold_done: int) -> int:
    """Tasks open to the rater plus those they hold a live lease on, as if honeypots were real
    work: a held gold task stands in for a real one, and each gold task done for one real task
    less left. So the total (done + left) moves exactly as without honeypots and never tells
    the rater that a query is one; near the end "left" runs short by the gold done."""
    scope_field = kind.scope_column.removesuffix("_id")
    held = kind.lease_model.objects.filter(
        **{f"{kind.lease_task}__{scope_field}": scope, f"{kind.lease_task}__gold": False},
        rater=rater,
        expires_at__gt=now,
    ).count()
    return max(0, open_tasks(kind, scope=scope, rater=rater, now=now).count() + held - gold_done)


def rater_progress(*, rater: AbstractBaseUser, campaign: Campaign) -> dict[str, int]:
    """Done (grades and skips) and what is left that this rater could still take."""
    graded = Grade.objects.filter(pool_item__campaign=campaign, rater=rater).aggregate(
        total=Count("pk"),
        cant=Count("pk", filter=Q(cant_judge=True)),
        gold=Count("pk", filter=Q(gold=True)),
    )
    skips = Skip.objects.filter(pool_item__campaign=campaign, rater=rater).aggregate(
        total=Count("pk"), gold=Count("pk", filter=Q(pool_item__gold=True))
    )
    skipped = skips["total"]
    gold_done = graded["gold"] + skips["gold"]
    left = _left(GRADED, campaign, rater, timezone.now(), gold_done)
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
        total=Count("pk"),
        cant=Count("pk", filter=Q(cant_judge=True)),
        gold=Count("pk", filter=Q(gold=True)),
    )
    skips = TaskSkip.objects.filter(task__comparison=comparison, rater=rater).aggregate(
        total=Count("pk"), gold=Count("pk", filter=Q(task__gold=True))
    )
    skipped = skips["total"]
    done = answered["total"] + skipped
    left = _left(SXS, comparison, rater, now, answered["gold"] + skips["gold"])
    return {
        "done": done,
        "verdicts": answered["total"] - answered["cant"],
        "cant_judge": answered["cant"],
        "skipped": skipped,
        "left": left,
        "assigned": done + left,
    }
