"""Answers: storing a rater's grade or verdict once, refusing one its task no longer needs,
and keeping the earlier value of a changed answer. The same steps for every kind."""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from annotate.judging.kinds import SKIP_TOKEN, Locked, Outcome, Refused, Submission, TaskKind
from annotate.judging.leasing import ensure_rater, lease_until, renew_after
from annotate.judging.open import slots_taken
from config.db import hot_cursor

MAX_NOTE = 2000
# Seconds per answer are capped here, whatever the client measured (see judge-clock.js): a
# task left open over lunch says nothing about the time judging takes.
MAX_SECONDS = 600.0

# The task's row, locked; the rater's answer and lease on it; the kind's own columns (whether
# a label is on the campaign's scale, the side the lease recorded); and whether the rater's
# leases on the query are due for renewal. The ORM would take seven statements for this, each
# costing more CPU to compile than to run.
# Under READ COMMITTED the joined rows are read as the statement began, not after the lock
# wait: an answer the same rater's other request stored meanwhile can be missed, and the
# insert (ON CONFLICT DO NOTHING) catches exactly that case. `counted` is read from the locked
# row itself, which is always the newest version.
_LOCK_FOR_ANSWER = """
SELECT p.query_id, {needed}, p.counted, a.id, s.id, l.id,
    CASE WHEN l.expires_at <= %s THEN 1 ELSE 0 END,
    CASE WHEN (
        SELECT MIN(o.expires_at) FROM {lease} o
        INNER JOIN {task} op ON op.id = o.{fk}
        WHERE o.rater_id = %s AND op.query_id = p.query_id AND op.{scope} = p.{scope}
            AND o.expires_at > %s
    ) < %s THEN 1 ELSE 0 END, p.gold{columns}
FROM {task} p
LEFT JOIN {answer} a ON a.{afk} = p.id AND a.rater_id = %s
LEFT JOIN {skip} s ON s.{afk} = p.id AND s.rater_id = %s
LEFT JOIN {lease} l ON l.{fk} = p.id AND l.rater_id = %s{joins}
WHERE p.id = %s AND p.{scope} = %s
"""

# Live leases only: an expired lease's task may have been leased to others since, and reviving
# it would hand the task to more raters than it needs (the one then refused is the other).
# Never earlier than a lease's end: a manager may have shortened the campaign's leases since,
# and an earlier end would make the lease triggers lock other raters' tasks (counted.py).
_RENEW_QUERY_LEASES = """
UPDATE {lease} SET expires_at = %s
WHERE expires_at < %s AND rater_id = %s AND expires_at > %s
    AND {fk} IN (SELECT id FROM {task} WHERE {scope} = %s AND query_id = %s)
"""


@functools.cache
def _sql(kind: TaskKind) -> dict[str, str]:
    c = kind.counters
    names = {**kind.sql_names(), "columns": kind.lock_columns, "joins": kind.lock_joins}
    lock = _LOCK_FOR_ANSWER.format(**names)
    if connection.features.has_select_for_update_of:
        lock += " FOR UPDATE OF p"
    return {
        "lock": lock,
        "renew": _RENEW_QUERY_LEASES.format(**names),
        "delete_lease": f"DELETE FROM {c.lease_table} WHERE id = %s",
    }


# Ids beyond a signed 64-bit integer can name no row; SQLite would raise on them.
_MAX_ID = 2**63 - 1


def as_id(value: object) -> int | None:
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None
    return number if 0 < number <= _MAX_ID else None


def lock_for_answer(
    kind: TaskKind, scope: Any, rater: AbstractBaseUser, task_id: int, params: list, now: datetime
) -> Locked | None:
    at = connection.ops.adapt_datetimefield_value
    values = [kind.needed_default(scope), at(now), rater.pk, at(now)]
    values += [at(renew_after(kind, scope, now)), rater.pk, rater.pk, rater.pk]
    values += [*params, task_id, scope.pk]
    with hot_cursor() as cursor:
        cursor.execute(_sql(kind)["lock"], values)
        row = cursor.fetchone()
    if row is None:
        return None
    query_id, needed, counted, answer_id, skip_id, lease_id, expired, renew, gold, *extra = row
    return Locked(
        task_id=task_id,
        query_id=query_id,
        needed=needed,
        counted=counted,
        answer_id=answer_id,
        skip_id=skip_id,
        lease_id=lease_id,
        lease_expired=bool(expired),
        renew_due=bool(renew),
        extra=tuple(extra),
        gold=bool(gold),
    )


class _Late(Exception):
    """Raised inside the transaction so it rolls back; the expired lease is dropped after."""


def answer_submit(
    kind: TaskKind, *, rater: AbstractBaseUser, scope: Any, submission: Submission
) -> Outcome:
    """Store or change the rater's answer on one task.

    Sending the same answer twice stores it once (a double click or a network retry). A new
    answer needs the rater's lease on the task; after the lease expired it is still taken if
    the task needs it (otherwise 409, and the stale lease is dropped). A change keeps the old
    value and its time in the answer's history. No task takes more counted answers than it
    needs: `counted` is checked under the row lock.
    """
    ensure_rater(kind, scope, rater)
    task_id = as_id(submission.task_id)
    if task_id is None:
        raise kind.refused(kind.words.not_found, status=404)
    try:
        return _answer_store(kind, rater, scope, task_id, submission)
    except _Late:
        kind.lease_model.objects.filter(**{kind.lease_task + "_id": task_id}, rater=rater).delete()
        raise kind.refused(kind.words.late, status=409) from None
    except IntegrityError:
        # The one-answer rule (AnswerClaim): another request of this rater stored a skip or
        # an answer on the task after this one read it.
        raise conflict(kind, task_id, rater, kind.words.conflict) from None


def conflict(kind: TaskKind, task_id: int, rater: AbstractBaseUser, message: str) -> Refused:
    """A 409 that carries what the rater has stored on the task, for the page to show beside
    what it sent, and the token to send to replace it."""
    fk = {kind.counters.answer_fk: task_id}
    answer = kind.answer_model.objects.filter(**fk, rater=rater).first()
    if answer is not None:
        stored, token = kind.stored(answer), kind.token(answer)
    elif kind.skip_model.objects.filter(**fk, rater=rater).exists():
        stored, token = {"skipped": True}, SKIP_TOKEN
    else:
        stored, token = None, None
    return kind.refused(message, status=409, conflict={"stored": stored, "replaces": token})


@transaction.atomic
def _answer_store(
    kind: TaskKind, rater: AbstractBaseUser, scope: Any, task_id: int, submission: Submission
) -> Outcome:
    now = timezone.now()
    locked = lock_for_answer(kind, scope, rater, task_id, kind.lock_params(submission), now)
    if locked is None:
        raise kind.refused(kind.words.not_found, status=404)
    kind.check(locked, submission)
    seconds = submission.seconds
    seconds = None if seconds is None else min(max(float(seconds), 0.0), MAX_SECONDS)
    note = (submission.note or "").strip()[:MAX_NOTE]
    if locked.answer_id is not None:
        existing = kind.answer_model.objects.get(pk=locked.answer_id)
        return answer_change(kind, existing, locked, rater, submission, note, now)
    if locked.skip_id is not None:
        # Answering a task the rater skipped undoes the skip, when the page knew of it.
        if submission.replaces != SKIP_TOKEN:
            raise conflict(kind, task_id, rater, kind.words.skipped)
        kind.skip_model.objects.filter(pk=locked.skip_id).delete()
        if counts(kind, locked, submission) and not has_capacity(kind, locked, rater, now):
            raise kind.refused(kind.words.full, status=409)
    elif locked.lease_id is None:
        raise kind.refused(kind.words.not_assigned, status=403)
    refusal = _no_room(kind, locked, rater, now) if counts(kind, locked, submission) else None
    if refusal is not None:
        # The answer that filled the task may be this rater's own, from a resend that
        # committed while this request waited for the lock: then this is a resend too.
        resend = _own_resend(kind, locked, rater, submission, note, now)
        if resend is not None:
            return resend
        raise refusal
    values = kind.new_values(submission, locked)
    answer = _insert(kind, locked, rater, values, note, seconds, now)
    if answer is None:
        # The same answer sent twice at once: the other request stored it after this one
        # read the task. Answer as a resend after it would.
        return _own_resend(kind, locked, rater, submission, note, now)  # type: ignore[return-value]
    _after_insert(kind, scope, locked, rater, now)
    return kind.outcome(answer=answer, created=True, changed=False)


def counts(kind: TaskKind, locked: Locked, submission: Submission) -> bool:
    """Whether the answer will count towards the answers its task needs: an answer to gold
    never does (gold is served to many raters, without a cap; annotate/judging/honeypots.py)."""
    return kind.counts(submission) and not locked.gold


def _no_room(
    kind: TaskKind, locked: Locked, rater: AbstractBaseUser, now: datetime
) -> Exception | None:
    """Why a new counted answer must be refused, if it must."""
    if (
        locked.lease_id is not None
        and locked.lease_expired
        and not has_capacity(kind, locked, rater, now)
    ):
        return _Late()
    if locked.counted >= locked.needed:
        # Only when a manager lowered the number of raters after this lease was given.
        return kind.refused(kind.words.full, status=409)
    return None


def _own_resend(
    kind: TaskKind,
    locked: Locked,
    rater: AbstractBaseUser,
    submission: Submission,
    note: str,
    now: datetime,
) -> Outcome | None:
    fk = {kind.counters.answer_fk: locked.task_id}
    existing = kind.answer_model.objects.filter(**fk, rater=rater).first()
    if existing is None:
        return None
    return answer_change(kind, existing, locked, rater, submission, note, now)


def _insert(
    kind: TaskKind,
    locked: Locked,
    rater: AbstractBaseUser,
    values: dict,
    note: str,
    seconds: float | None,
    now: datetime,
) -> Any | None:
    c = kind.counters
    row = {
        c.answer_fk: locked.task_id,
        "rater_id": rater.pk,
        **values,
        kind.note_field: note,
        "seconds": seconds,
        "gold": locked.gold,
    }
    at = connection.ops.adapt_datetimefield_value
    names = ", ".join((*row, "created_at", "changed_at"))
    marks = ", ".join(["%s"] * (len(row) + 2))
    sql = (
        f"INSERT INTO {c.answer_table} ({names}) VALUES ({marks}) "
        f"ON CONFLICT ({c.answer_fk}, rater_id) DO NOTHING RETURNING id"
    )
    with hot_cursor() as cursor:
        cursor.execute(sql, [*row.values(), at(now), at(now)])
        inserted = cursor.fetchone()
    if inserted is None:
        return None
    return kind.answer_model(pk=inserted[0], **row, created_at=now, changed_at=now)


def _after_insert(
    kind: TaskKind, scope: Any, locked: Locked, rater: AbstractBaseUser, now: datetime
) -> None:
    """The answered task's lease goes; working keeps the rest of the query leased."""
    sql = _sql(kind)
    at = connection.ops.adapt_datetimefield_value
    with hot_cursor() as cursor:
        cursor.execute(sql["delete_lease"], [locked.lease_id])
        if locked.renew_due:
            until = at(lease_until(kind, scope, now))
            params = [until, until, rater.pk, at(now), scope.pk, locked.query_id]
            cursor.execute(sql["renew"], params)


def has_capacity(kind: TaskKind, locked: Locked, rater: AbstractBaseUser, now: datetime) -> bool:
    """Counted answers plus other raters' live leases leave a slot (the rater's own answer, if
    any, is one that does not count: it is not in `counted`)."""
    if locked.counted >= locked.needed:
        return False
    counted = {locked.task_id: locked.counted}
    taken = slots_taken(kind, counted, now=now, exclude_rater=rater)[locked.task_id]
    return taken < locked.needed


def answer_change(
    kind: TaskKind,
    answer: Any,
    locked: Locked,
    rater: AbstractBaseUser,
    submission: Submission,
    note: str,
    now: datetime,
) -> Outcome:
    """The same answer again changes nothing but a new note; another one is stored with the
    earlier value, note and time kept in the answer's history, but only from a page that had
    shown the stored answer (`replaces`): otherwise it is a conflict (409), say a second tab
    answering what the first one just answered."""
    values = kind.changed_values(submission, answer)
    if all(getattr(answer, name) == value for name, value in values.items()):
        if note and note != getattr(answer, kind.note_field):
            setattr(answer, kind.note_field, note)
            answer.save(update_fields=[kind.note_field, "changed_at"])
        return kind.outcome(answer=answer, created=False, changed=False)
    if submission.replaces != kind.token(answer):
        raise conflict(kind, locked.task_id, rater, kind.words.conflict)
    counts_now = counts(kind, locked, submission)
    if counts_now and not kind.answer_counts(answer) and not has_capacity(kind, locked, rater, now):
        raise kind.refused(kind.words.full, status=409)
    kept = {name: getattr(answer, name) for name in values}
    kind.history_model.objects.create(
        **{kind.history_fk: answer, kind.note_field: getattr(answer, kind.note_field)},
        **kept,
        given_at=answer.changed_at,
    )
    for name, value in values.items():
        setattr(answer, name, value)
    setattr(answer, kind.note_field, note)
    answer.save(update_fields=[*values, kind.note_field, "changed_at"])
    return kind.outcome(answer=answer, created=False, changed=True)
