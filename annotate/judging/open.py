"""Reads of the judging mechanism: which tasks are open to a rater, how many raters hold each,
and the tasks a rater holds. One rule for every kind, filled in from its TaskKind."""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import QuerySet
from django.db.models.base import ModelState
from django.db.models.expressions import RawSQL
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from annotate.judging.kinds import TaskKind
from annotate.models import Query
from config.db import hot_cursor

# The rule for an open task, written once in SQL: the queue walks the tasks with it at every
# query boundary, where the ORM's version cost ~4 ms of CPU to compile each time (twice per
# lease). `p` is the task; the parameters come from open_params.
# Room is counted answers plus live leases below the answers needed. The walk passes every
# task other raters hold (thousands, in a busy campaign), so the row decides whenever it can
# (annotate/counted.py keeps its counters): with fewer lease rows than free slots the task has
# room, expired leases or not; when its first lease end is still to come, all its leases are
# live and it has none. Only a task that would be full if every lease were live, and whose
# first lease end has passed (a lease expired, or was renewed since: the counter keeps the
# earlier end), counts its live ones.
# Gold is never open here: its answers do not count, so it would never fill; raters meet it
# as honeypots only (annotate/judging/honeypots.py).
_OPEN = """
FROM {task} p
WHERE p.{scope} = %s AND NOT p.gold{where}
    AND p.counted < {needed}
    AND (
        p.counted + p.leased < {needed}
        OR p.first_lease_end <= %s AND p.counted + (
            SELECT COUNT(*) FROM {lease} o
            WHERE o.{fk} = p.id AND o.expires_at > %s
        ) < {needed}
    )
    AND NOT EXISTS (
        SELECT 1 FROM {answer} g WHERE g.{afk} = p.id AND g.rater_id = %s
    ){exclusions}
    AND NOT EXISTS (
        SELECT 1 FROM {lease} m
        WHERE m.{fk} = p.id AND m.rater_id = %s AND m.expires_at > %s
    )
"""


@functools.cache
def open_sql(kind: TaskKind) -> str:
    return _OPEN.format(**kind.sql_names(), where=kind.open_where, exclusions=kind.open_exclusions)


def open_params(kind: TaskKind, scope: Any, rater: AbstractBaseUser, now: datetime) -> list:
    at = connection.ops.adapt_datetimefield_value(now)
    needed = kind.needed_default(scope)
    excluded = kind.exclusion_params(rater, at)
    return [scope.pk, needed, needed, at, at, needed, rater.pk, *excluded, rater.pk, at]


def open_tasks(kind: TaskKind, *, scope: Any, rater: AbstractBaseUser, now: datetime) -> QuerySet:
    """Tasks this rater has not answered (nor skipped) and does not hold that still have a free
    slot: counted answers plus other raters' live leases below the answers needed.

    Counted answers come from the task's `counted` (kept by triggers), so finding the next
    open query walks the tasks in query order and drops filled ones on one column, before any
    per-task subquery; nothing aggregates the whole pool.
    """
    ids = RawSQL("SELECT p.id " + open_sql(kind), open_params(kind, scope, rater, now))
    return kind.task_model.objects.filter(pk__in=ids)


def first_open_query(
    kind: TaskKind, *, scope: Any, rater: AbstractBaseUser, now: datetime, after: int | None
) -> int | None:
    """The lowest query id above `after` with a task open to this rater."""
    sql = "SELECT p.query_id " + open_sql(kind) + " AND p.query_id > %s ORDER BY p.query_id LIMIT 1"
    with connection.cursor() as cursor:
        cursor.execute(sql, [*open_params(kind, scope, rater, now), after or 0])
        row = cursor.fetchone()
    return row[0] if row else None


def prioritized_open_queries(
    kind: TaskKind, *, scope: Any, rater: AbstractBaseUser, now: datetime
) -> list[int]:
    """Queries with a priority above 0 and a task open to this rater, highest priority first
    (then by id). Few queries have one, so this costs one indexed read when none do."""
    sql = (
        "SELECT DISTINCT p.query_id "
        + open_sql(kind)
        + " AND p.query_id IN ("
        + "SELECT id FROM annotate_query WHERE priority > 0 AND campaign_id = %s)"
    )
    params = [*open_params(kind, scope, rater, now), kind.campaign(scope).pk]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        ids = [row[0] for row in cursor.fetchall()]
    if not ids:
        return []
    priority = dict(Query.objects.filter(pk__in=ids).values_list("pk", "priority"))
    return sorted(ids, key=lambda query_id: (-priority[query_id], query_id))


def open_ids(
    kind: TaskKind, *, scope: Any, rater: AbstractBaseUser, now: datetime, query_id: int
) -> list[int]:
    sql = "SELECT p.id " + open_sql(kind) + " AND p.query_id = %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [*open_params(kind, scope, rater, now), query_id])
        return [row[0] for row in cursor.fetchall()]


def slots_taken(
    kind: TaskKind, counted: dict[int, int], *, now: datetime, exclude_rater: AbstractBaseUser
) -> dict[int, int]:
    """Counted answers (task id -> its `counted`, read under the task's lock) plus other
    raters' live leases, per task. Callers ask for tasks the rater has no counted answer on,
    so the count needs no correction for the rater's own."""
    taken = dict(counted)
    if not taken:
        return taken
    c = kind.counters
    marks = ", ".join(["%s"] * len(taken))
    sql = (
        f"SELECT {c.lease_fk}, COUNT(*) FROM {c.lease_table} WHERE {c.lease_fk} IN ({marks}) "
        f"AND expires_at > %s AND rater_id <> %s GROUP BY {c.lease_fk}"
    )
    at = connection.ops.adapt_datetimefield_value(now)
    with connection.cursor() as cursor:
        cursor.execute(sql, [*taken, at, exclude_rater.pk])
        for task_id, n in cursor.fetchall():
            taken[task_id] += n
    return taken


# Every answer's reply reads the rater's held tasks; through the ORM (joins, dozens of model
# instances) this one read cost more CPU than the whole answer.
_HELD = """
SELECT {columns}, l.created_at, CASE WHEN l.expires_at < %s THEN 1 ELSE 0 END{lease_columns}
FROM {lease} l
INNER JOIN {task} p ON p.id = l.{fk}{joins}
WHERE l.rater_id = %s AND l.expires_at > %s AND p.{scope} = %s
"""


@functools.cache
def _held_sql(kind: TaskKind) -> str:
    c = kind.counters
    return _HELD.format(
        columns=kind.row_columns,
        lease_columns="".join(f", l.{name}" for name in kind.lease_columns),
        lease=c.lease_table,
        task=c.task_table,
        fk=c.lease_fk,
        joins=kind.row_joins,
        scope=kind.scope_column,
    )


def held_tasks(
    kind: TaskKind,
    *,
    scope: Any,
    rater: AbstractBaseUser,
    now: datetime,
    renew_before: datetime,
) -> tuple[list, bool]:
    """The tasks the rater holds a live lease on (each with `lease_started` and the kind's
    lease_columns set), and whether any of those leases expires before `renew_before`."""
    at = connection.ops.adapt_datetimefield_value
    with hot_cursor() as cursor:
        cursor.execute(_held_sql(kind), [at(renew_before), rater.pk, at(now), scope.pk])
        rows = cursor.fetchall()
    tasks = []
    extra = len(kind.lease_columns)
    for row in rows:
        values, (started, _due, *leased) = row[: -2 - extra], row[-2 - extra :]
        task = kind.from_row(scope, values)
        task.lease_started = aware(started)
        for name, value in zip(kind.lease_columns, leased, strict=True):
            setattr(task, name, value)
        tasks.append(task)
    return tasks, any(row[-1 - extra] for row in rows)


def loaded(model: type, db: str, fields: tuple[str, ...], values: tuple) -> Any:
    """What Model.from_db builds, without Model.__init__'s walk over every field: an answer's
    reply builds about forty of these, and __init__ was a sixth of the request's CPU. A field
    left out is deferred, loaded on first access, since Django reads a field missing from the
    instance's __dict__ from the database."""
    instance = model.__new__(model)
    instance._state = ModelState()
    instance._state.adding = False
    instance._state.db = db
    instance.__dict__.update(zip(fields, values, strict=True))
    return instance


def aware(value: datetime | str) -> datetime:
    """A datetime read by raw SQL: SQLite gives naive UTC (or text), PostgreSQL aware."""
    if isinstance(value, str):
        value = parse_datetime(value)
    return value if timezone.is_aware(value) else value.replace(tzinfo=UTC)


@functools.cache
def _legacy_sql(kind: TaskKind) -> str:
    c = kind.counters
    return (
        f"SELECT l.{c.lease_fk} FROM {c.lease_table} l "
        f"INNER JOIN {c.task_table} p ON p.id = l.{c.lease_fk} "
        f"WHERE l.legacy AND l.rater_id = %s AND p.{kind.scope_column} = %s"
    )


def legacy_held_ids(kind: TaskKind, *, scope: Any, rater: AbstractBaseUser) -> list[int]:
    """The tasks whose lease the rater held when handles came (handles.py), expired or not.
    Every queue page asks; nearly always none, and the ORM's query cost more to compile than
    to run."""
    with connection.cursor() as cursor:
        cursor.execute(_legacy_sql(kind), [rater.pk, scope.pk])
        return [row[0] for row in cursor.fetchall()]
