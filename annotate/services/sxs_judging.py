"""The side-by-side screen's two moves: record what the rater chose, and hand out what comes
next (the rater's held tasks as they may see them, with the progress)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from annotate.models import Comparison, SxsTask
from annotate.selectors_sxs import comparison_progress, rater_sxs_progress, task_payloads
from annotate.services.sxs import sxs_queue, verdict_submit


def sxs_record(
    *,
    rater: AbstractBaseUser,
    comparison: Comparison,
    task_id: int,
    chosen: str,
    strength: int | None = None,
    reason: str = "",
    seconds: float | None = None,
) -> str:
    """Store a verdict; returns "created", "changed" or "unchanged". Raises VerdictRefused
    when it must not be stored."""
    outcome = verdict_submit(
        rater=rater,
        comparison=comparison,
        task_id=task_id,
        chosen=chosen,
        strength=strength,
        reason=reason,
        seconds=seconds,
    )
    if outcome.created:
        return "created"
    return "changed" if outcome.changed else "unchanged"


def sxs_state(
    *, rater: AbstractBaseUser, comparison: Comparison
) -> tuple[list[tuple[SxsTask, str]], dict]:
    """The rater's held tasks (the next one prefetched) and what the screen shows of them."""
    held = sxs_queue(rater=rater, comparison=comparison, look_ahead=True)
    state = {
        "tasks": task_payloads(comparison, held),
        "progress": rater_sxs_progress(rater=rater, comparison=comparison, now=timezone.now()),
        "overall": overall_progress(comparison),
    }
    return held, state


def overall_progress(comparison: Comparison) -> dict[str, int]:
    progress = comparison_progress(comparison)
    return {"counted": progress["counted"], "needed": progress["needed"]}
