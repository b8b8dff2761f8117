"""Leases: handing a rater the open tasks of one query, renewing them while the rater works,
and a manager's release. The same steps for every kind (see the package's docstring)."""

from __future__ import annotations

import functools
import time
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotate.judging.honeypots import honeypot_due, lease_honeypot
from annotate.judging.kinds import TaskKind
from annotate.judging.open import (
    aware,
    first_open_query,
    held_tasks,
    open_ids,
    prioritized_open_queries,
    slots_taken,
)
from annotate.judging.qualification import quiz_gate
from annotate.models import Role
from annotate.selectors_judge import rater_checked

# When every open query is being leased by someone else at this very moment, wait this long
# and look again, a few times: those rows are locked only for a transaction's length, and
# giving up at once would tell a rater "all done" while tasks still need them.
CONTENDED_WAIT = 0.05
# What a paused rater is told wherever they ask for work or answer (#18).
PAUSED_MESSAGE = gettext_lazy(
    "Your work on this campaign is paused while a manager reviews the quality of your "
    "answers. You will get new work once they resume you; your answers so far are kept."
)
CONTENDED_ROUNDS = 4


def ensure_rater(kind: TaskKind, scope: Any, rater: AbstractBaseUser) -> None:
    campaign = kind.campaign(scope)
    # rater_checked: campaign_rated_by asked the database earlier in this request (and a
    # paused rater's campaign is not vouched for, so they are asked here).
    if not rater_checked(campaign, rater):
        row = campaign.memberships.filter(user=rater, role=Role.RATER)
        row = row.values_list("paused_at").first()
        if row is None:
            raise kind.refused(_("You are not a rater of this campaign."), status=403)
        if row[0] is not None:
            raise kind.refused(PAUSED_MESSAGE, status=403, paused=True)
    # A scope requiring the qualification quiz gives no real work before it is passed.
    quiz_gate(scope, rater, kind.refused)


def lease_until(kind: TaskKind, scope: Any, now: datetime) -> datetime:
    return now + timedelta(minutes=kind.campaign(scope).lease_minutes)


def renew_after(kind: TaskKind, scope: Any, now: datetime) -> datetime:
    """Leases expiring before this are renewed. Renewing on every answer would cost a write
    per answer; a minute of slack (less for short leases) costs at most one a minute."""
    length = timedelta(minutes=kind.campaign(scope).lease_minutes)
    return now + length - min(timedelta(minutes=1), length / 10)


def held_or_next(
    kind: TaskKind, *, scope: Any, rater: AbstractBaseUser, look_ahead: bool = False
) -> list:
    """The tasks the rater holds now, in the order to show them; leases the next query's when
    the rater holds none. Working renews the lease, so a rater who keeps answering never loses
    their query. With look_ahead, a rater down to the last task also gets the next query now,
    so the client already has the next task when the key is pressed. Each task carries
    `lease_started` (when the rater's lease on it began)."""
    ensure_rater(kind, scope, rater)
    now = timezone.now()
    renew_before = renew_after(kind, scope, now)
    held, renew_due = held_tasks(kind, scope=scope, rater=rater, now=now, renew_before=renew_before)
    if not held:
        held = lease_next_query(kind, scope=scope, rater=rater, now=now)
    elif renew_due:
        _renew(kind, scope, rater, [task.pk for task in held], now)
    if look_ahead and len(held) == 1:
        held += lease_next_query(kind, scope=scope, rater=rater, now=timezone.now())
    return in_query_blocks(kind, held, rater)


def in_query_blocks(kind: TaskKind, tasks: list, rater: AbstractBaseUser) -> list:
    """The tasks of one query together, the query the rater started first at the front: after
    a look-ahead lease the rater holds two, and the older one is finished before the next
    begins. Within a query, the kind's order for this rater."""
    started: dict[int, datetime] = {}
    for task in tasks:
        first = started.get(task.query_id)
        started[task.query_id] = min(first, task.lease_started) if first else task.lease_started
    return sorted(
        tasks,
        key=lambda t: (started[t.query_id], t.query_id, kind.within_query(rater, t)),
    )


def _renew(kind: TaskKind, scope: Any, rater: AbstractBaseUser, ids: list[int], now: datetime):
    # Never earlier: a manager may have shortened the campaign's leases since.
    c = kind.counters
    at = connection.ops.adapt_datetimefield_value
    until = at(lease_until(kind, scope, now))
    marks = ", ".join(["%s"] * len(ids))
    sql = (
        f"UPDATE {c.lease_table} SET expires_at = %s "
        f"WHERE rater_id = %s AND expires_at < %s AND {c.lease_fk} IN ({marks})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [until, rater.pk, until, *ids])


def lease_next_query(kind: TaskKind, *, scope: Any, rater: AbstractBaseUser, now: datetime) -> list:
    """Lease the open tasks of the first query that has any, walking past queries whose rows
    another rater is locking right now. Only when every open query was contended does it wait
    briefly and look again, so "all done" is never said while tasks are merely busy.
    A share of the queries are honeypots instead (honeypots.py), drawn here so that the
    look-ahead lease draws them as the first lease does."""
    if honeypot_due(kind, scope):
        leased = lease_honeypot(kind, scope=scope, rater=rater, now=now)
        if leased:
            return leased
    for round_ in range(CONTENDED_ROUNDS):
        after: int | None = None
        contended = False
        # Queries a manager put first (a model judge's doubts) before the walk in id order.
        prioritized = kind.campaign(scope).prioritized_queries > 0
        firsts = (
            prioritized_open_queries(kind, scope=scope, rater=rater, now=now) if prioritized else []
        )
        for first in firsts[:20]:
            leased, skipped = _lease_query(kind, scope, rater, first, now)
            if leased:
                return leased
            contended = contended or skipped
        while True:
            # Past a contended query the walk goes on from there, not from the start: when
            # many raters lease at once (a class starting together) every one of them would
            # otherwise walk the whole filled and leased front of the pool again.
            first = first_open_query(kind, scope=scope, rater=rater, now=now, after=after)
            if first is None:
                break
            after = first
            leased, skipped = _lease_query(kind, scope, rater, first, now)
            if leased:
                return leased
            contended = contended or skipped
        if not contended:
            return []
        time.sleep(CONTENDED_WAIT * (round_ + 1))
        now = timezone.now()
    return []


@functools.cache
def _lock_sql(kind: TaskKind) -> str:
    return (
        f"SELECT p.counted, {kind.needed_sql}, {kind.row_columns} "
        f"FROM {kind.counters.task_table} p{kind.row_joins} WHERE p.id IN "
    )


@transaction.atomic
def _lease_query(
    kind: TaskKind, scope: Any, rater: AbstractBaseUser, query_id: int, now: datetime
) -> tuple[list, bool]:
    """The tasks leased on the query (each with `lease_started`), and whether some rows were
    skipped because another rater was locking them."""
    ids = open_ids(kind, scope=scope, rater=rater, now=now, query_id=query_id)
    if not ids:
        return [], False
    # Lock the rows, skipping those another rater is leasing at this very moment; then
    # recount under the lock, since the first read may already be stale.
    sql = _lock_sql(kind) + "(" + ", ".join(["%s"] * len(ids)) + ")"
    if connection.features.has_select_for_update_skip_locked:
        sql += " FOR UPDATE OF p SKIP LOCKED"
    with connection.cursor() as cursor:
        cursor.execute(sql, [kind.needed_default(scope), *ids])
        rows = cursor.fetchall()
    locked = {row[2]: (row[0], row[1], kind.from_row(scope, row[2:])) for row in rows}
    counted = {task_id: row[0] for task_id, row in locked.items()}
    taken = slots_taken(kind, counted, now=now, exclude_rater=rater)
    free = [task for task_id, (_, needed, task) in locked.items() if taken[task_id] < needed]
    if free:
        leases_upsert(kind, scope, free, rater, now)
    return free, len(locked) < len(ids)


def leases_upsert(
    kind: TaskKind, scope: Any, tasks: list, rater: AbstractBaseUser, now: datetime
) -> None:
    """Lease the tasks (a lease that expired is taken again, keeping its start and its
    lease_columns), and set each task's `lease_started` and lease_columns from the database."""
    c = kind.counters
    at = connection.ops.adapt_datetimefield_value
    expires, created = at(lease_until(kind, scope, now)), at(now)
    names = ", ".join((c.lease_fk, "rater_id", "expires_at", "created_at", *kind.lease_columns))
    width = 4 + len(kind.lease_columns)
    rows = ", ".join(["(" + ", ".join(["%s"] * width) + ")"] * len(tasks))
    returned = "".join(f", {name}" for name in kind.lease_columns)
    sql = (
        f"INSERT INTO {c.lease_table} ({names}) VALUES {rows} "
        f"ON CONFLICT ({c.lease_fk}, rater_id) DO UPDATE SET expires_at = excluded.expires_at "
        f"RETURNING {c.lease_fk}, created_at{returned}"
    )
    params = [
        value
        for task in tasks
        for value in (
            task.pk,
            rater.pk,
            expires,
            created,
            *kind.lease_values(scope, rater, task),
        )
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        stored = {task_id: (aware(at_), rest) for task_id, at_, *rest in cursor.fetchall()}
    for task in tasks:
        task.lease_started, values = stored[task.pk]
        for name, value in zip(kind.lease_columns, values, strict=True):
            setattr(task, name, value)


@transaction.atomic
def leases_release(
    kind: TaskKind,
    *,
    scope: Any,
    rater: AbstractBaseUser | None = None,
    query_id: int | None = None,
) -> int:
    """A manager frees leases (all of a scope's, a rater's, or a query's); returns how many."""
    scope_field = kind.scope_column.removesuffix("_id")
    leases = kind.lease_model.objects.filter(**{f"{kind.lease_task}__{scope_field}": scope})
    if rater is not None:
        leases = leases.filter(rater=rater)
    if query_id is not None:
        leases = leases.filter(**{f"{kind.lease_task}__query_id": query_id})
    # The tasks first, as the judging path locks them: deleting a lease updates its task's
    # counters (a trigger), and a rater answering that task holds the task while it deletes
    # the lease. Lease first and task second, the two would wait for each other.
    task_ids = leases.values(f"{kind.lease_task}_id")
    tasks = kind.task_model.objects.filter(pk__in=task_ids).order_by("pk")
    locked = list(tasks.select_for_update().values_list("pk", flat=True))
    # Only on the tasks locked: a lease taken since is on a task this did not lock.
    deleted, _by_model = leases.filter(**{f"{kind.lease_task}_id__in": locked}).delete()
    return deleted
