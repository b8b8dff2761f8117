"""Side-by-side comparisons: the raters' queue of tasks and their verdicts (setting one up is
in sxs_setup.py, re-exported here).

The queue follows graded judging (services/queue.py): a rater leases the open tasks of one
query at a time; every write that can change how many raters a task still needs first locks the
task's row (skipping rows another rater is locking on PostgreSQL), so no task collects more
verdicts than `raters_per_task`. The side the candidate is shown on is decided when the task is
leased and stored with the lease, then copied into the verdict: the client only says which side
it preferred, never which side is which.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from annotate.models import (
    Comparison,
    Role,
    Side,
    SxsTask,
    TaskLease,
    Verdict,
    VerdictChange,
    VerdictValue,
)
from annotate.selectors_sxs import CHOICES, open_tasks, task_slots_taken
from annotate.services.queue import GradeRefused

# Setting a comparison up lives in its own module; its names are part of this service's API.
from annotate.services.sxs_setup import ComparisonRefused as ComparisonRefused
from annotate.services.sxs_setup import comparison_create as comparison_create
from annotate.services.sxs_setup import sample_queries as sample_queries

MAX_REASON = 2000


class VerdictRefused(GradeRefused):
    """A verdict that must not be stored. `status` is the HTTP status to answer with."""


@dataclass(frozen=True)
class VerdictOutcome:
    verdict: Verdict
    created: bool
    changed: bool


# ---- The queue -----------------------------------------------------------------------------


def candidate_side_for(*, seed: int, rater_id: int, task_id: int) -> str:
    """Which side the candidate is on for this rater and task: a fair coin, decided by a hash
    of the comparison's seed, the rater and the task, so that leasing the task again shows the
    same sides."""
    digest = hashlib.blake2b(f"sxs:{seed}:{rater_id}:{task_id}".encode(), digest_size=8).digest()
    return Side.LEFT if digest[0] & 1 else Side.RIGHT


def _lease_until(comparison: Comparison, now: datetime) -> datetime:
    return now + timedelta(minutes=comparison.campaign.lease_minutes)


def _ensure_rater(comparison: Comparison, rater: AbstractBaseUser) -> None:
    if not comparison.campaign.memberships.filter(user=rater, role=Role.RATER).exists():
        raise VerdictRefused("You are not a rater of this campaign.", status=403)


def sxs_queue(
    *, rater: AbstractBaseUser, comparison: Comparison, look_ahead: bool = False
) -> list[tuple[SxsTask, str]]:
    """The tasks the rater holds, with the candidate's side for each, in the order to show
    them; leases the next query's tasks when the rater holds none. Working renews the lease.

    With look_ahead, a rater down to the last task also gets the next query now, so the client
    already has the next task when the key is pressed.
    """
    _ensure_rater(comparison, rater)
    now = timezone.now()
    held = list(
        TaskLease.objects.filter(rater=rater, task__comparison=comparison, expires_at__gt=now)
        .select_related("task__query")
        .order_by("created_at", "pk")
    )
    if held:
        TaskLease.objects.filter(pk__in=[lease.pk for lease in held]).update(
            expires_at=_lease_until(comparison, now)
        )
    else:
        held = _lease_next_query(rater=rater, comparison=comparison, now=now)
    if look_ahead and len(held) == 1:
        held += _lease_next_query(rater=rater, comparison=comparison, now=now)
    return _in_query_blocks(held)


def _in_query_blocks(leases: list[TaskLease]) -> list[tuple[SxsTask, str]]:
    # The query leased first is finished first; within a query, by position.
    started: dict[int, datetime] = {}
    for lease in leases:
        q = lease.task.query_id
        started[q] = min(started.get(q, lease.created_at), lease.created_at)
    leases = sorted(
        leases, key=lambda ls: (started[ls.task.query_id], ls.task.query_id, ls.task.position or 0)
    )
    return [(lease.task, lease.candidate_side) for lease in leases]


# When every open query is being leased by someone else at this very moment, wait this long and
# look again, a few times: those rows are locked only for a transaction's length, and giving up
# at once would tell a rater "all done" while tasks still need them.
CONTENDED_WAIT = 0.05
CONTENDED_ROUNDS = 4


def _lease_next_query(
    *, rater: AbstractBaseUser, comparison: Comparison, now: datetime
) -> list[TaskLease]:
    """Lease the open tasks of the first query that has any, walking past queries whose rows
    another rater is locking right now (they are skipped, not waited for)."""
    for round_ in range(CONTENDED_ROUNDS):
        tried: set[int] = set()
        contended = False
        while True:
            first = (
                open_tasks(comparison=comparison, rater=rater, now=now)
                .exclude(query_id__in=tried)
                .order_by("query_id")
                .values_list("query_id", flat=True)
                .first()
            )
            if first is None:
                break
            tried.add(first)
            leased, skipped = _lease_query(
                rater=rater, comparison=comparison, query_id=first, now=now
            )
            if leased:
                return leased
            contended = contended or skipped
        if not contended:
            return []
        time.sleep(CONTENDED_WAIT * (round_ + 1))
        now = timezone.now()
    return []


@transaction.atomic
def _lease_query(
    *, rater: AbstractBaseUser, comparison: Comparison, query_id: int, now: datetime
) -> tuple[list[TaskLease], bool]:
    """The leases taken on the query's open tasks, and whether some rows were skipped because
    another rater was locking them."""
    ids = list(
        open_tasks(comparison=comparison, rater=rater, now=now)
        .filter(query_id=query_id)
        .values_list("pk", flat=True)
    )
    # Lock the rows, skipping those another rater is leasing at this very moment; then
    # recount under the lock, since the first read may already be stale.
    locked = list(
        SxsTask.objects.select_for_update(skip_locked=True, of=("self",)).filter(pk__in=ids)
    )
    taken = task_slots_taken([task.pk for task in locked], now=now, exclude_rater=rater)
    free = [task.pk for task in locked if taken.get(task.pk, 0) < comparison.raters_per_task]
    expires = _lease_until(comparison, now)
    TaskLease.objects.bulk_create(
        [
            TaskLease(
                task_id=task_id,
                rater=rater,
                expires_at=expires,
                candidate_side=candidate_side_for(
                    seed=comparison.seed, rater_id=rater.pk, task_id=task_id
                ),
            )
            for task_id in free
        ],
        # An expired lease of this rater is renewed; its recorded side never changes.
        update_conflicts=True,
        unique_fields=["task", "rater"],
        update_fields=["expires_at"],
    )
    leases = list(
        TaskLease.objects.filter(rater=rater, task_id__in=free).select_related("task__query")
    )
    return leases, len(locked) < len(ids)


# ---- Verdicts ------------------------------------------------------------------------------


def verdict_value(chosen: str, candidate_side: str) -> str:
    """Good, Same or Bad for the candidate, from the side the rater preferred."""
    if chosen == "same":
        return VerdictValue.SAME
    picked = Side.LEFT if chosen == "left" else Side.RIGHT
    return VerdictValue.GOOD if picked == candidate_side else VerdictValue.BAD


def _check_choice(chosen: str, strength) -> tuple[str, int | None]:
    if chosen not in CHOICES:
        raise VerdictRefused("Choose Left better, About the same or Right better.")
    if strength in (None, ""):
        strength = None
    else:
        try:
            strength = int(strength)
        except (TypeError, ValueError):
            strength = 0
        if strength not in (1, 2, 3):
            raise VerdictRefused("The strength must be 1 (slightly), 2 (clearly) or 3 (much).")
    # A strength says how much better one side is: it has no meaning for "about the same".
    return chosen, None if chosen == "same" else strength


def _lock_task(task_id: int, comparison: Comparison | None) -> SxsTask:
    tasks = SxsTask.objects.select_for_update(of=("self",)).select_related("comparison__campaign")
    if comparison is not None:
        tasks = tasks.filter(comparison=comparison)
    try:
        return tasks.get(pk=task_id)
    except (SxsTask.DoesNotExist, ValueError, TypeError):
        raise VerdictRefused("This task is not part of this comparison.", status=404) from None


class _LateVerdict(Exception):
    """Raised inside the transaction so it rolls back; the expired lease is dropped after."""


def verdict_submit(
    *,
    rater: AbstractBaseUser,
    task_id: int,
    chosen: str,
    strength: int | None = None,
    reason: str = "",
    seconds: float | None = None,
    comparison: Comparison | None = None,
) -> VerdictOutcome:
    """Store or change the rater's verdict on one task.

    `chosen` is "left", "right" or "same"; it becomes Good, Bad or Same for the candidate from
    the side recorded when the task was leased. Sending the same verdict twice stores it once.
    A new verdict needs the rater's lease; after it expired the verdict is still taken if the
    task needs it (otherwise 409, and the stale lease is dropped). A change keeps the earlier
    answer in the verdict's history. With `comparison`, a task of another comparison is refused
    as not found.
    """
    chosen, strength = _check_choice(chosen, strength)
    try:
        return _verdict_store(
            rater=rater,
            task_id=task_id,
            chosen=chosen,
            strength=strength,
            reason=(reason or "").strip()[:MAX_REASON],
            seconds=None if seconds is None else min(max(float(seconds), 0.0), 3600.0),
            comparison=comparison,
        )
    except _LateVerdict:
        TaskLease.objects.filter(task_id=task_id, rater=rater).delete()
        raise VerdictRefused(
            "Your time on this task ran out and other raters have answered it since; "
            "your verdict was not needed. Continue with the next task.",
            status=409,
        ) from None


@transaction.atomic
def _verdict_store(
    *,
    rater: AbstractBaseUser,
    task_id: int,
    chosen: str,
    strength: int | None,
    reason: str,
    seconds: float | None,
    comparison: Comparison | None,
) -> VerdictOutcome:
    task = _lock_task(task_id, comparison)
    comparison = task.comparison
    _ensure_rater(comparison, rater)
    if task.identical:
        raise VerdictRefused(
            "Both sides of this task are the same; it needs no verdict.", status=409
        )
    existing = Verdict.objects.filter(task=task, rater=rater).first()
    if existing is not None:
        value = verdict_value(chosen, existing.candidate_side)
        return _verdict_change(existing, value, strength, reason)

    lease = TaskLease.objects.filter(task=task, rater=rater).first()
    if lease is None:
        raise VerdictRefused("This task is not assigned to you.", status=403)
    now = timezone.now()
    if lease.expires_at <= now:
        taken = task_slots_taken([task.pk], now=now, exclude_rater=rater)[task.pk]
        if taken >= comparison.raters_per_task:
            raise _LateVerdict
    verdict = Verdict.objects.create(
        task=task,
        rater=rater,
        value=verdict_value(chosen, lease.candidate_side),
        candidate_side=lease.candidate_side,
        strength=strength,
        reason=reason,
        seconds=seconds,
    )
    lease.delete()
    # Working keeps the rest of the query leased.
    TaskLease.objects.filter(
        rater=rater, task__comparison=comparison, task__query_id=task.query_id
    ).update(expires_at=_lease_until(comparison, timezone.now()))
    return VerdictOutcome(verdict=verdict, created=True, changed=False)


def _verdict_change(
    verdict: Verdict, value: str, strength: int | None, reason: str
) -> VerdictOutcome:
    if verdict.value == value and verdict.strength == strength:
        if reason and reason != verdict.reason:
            verdict.reason = reason
            verdict.save(update_fields=["reason", "changed_at"])
        return VerdictOutcome(verdict=verdict, created=False, changed=False)
    VerdictChange.objects.create(
        verdict=verdict,
        value=verdict.value,
        strength=verdict.strength,
        reason=verdict.reason,
        given_at=verdict.changed_at,
    )
    verdict.value = value
    verdict.strength = strength
    verdict.reason = reason
    verdict.save(update_fields=["value", "strength", "reason", "changed_at"])
    return VerdictOutcome(verdict=verdict, created=False, changed=True)


def sxs_lease_release(*, comparison: Comparison, rater: AbstractBaseUser | None = None) -> int:
    """A manager frees the leases of a comparison (all, or one rater's); returns how many."""
    leases = TaskLease.objects.filter(task__comparison=comparison)
    if rater is not None:
        leases = leases.filter(rater=rater)
    deleted, _ = leases.delete()
    return deleted
