"""Skips, for every kind: "not now" on a task, which is then not offered to the rater again,
and undoing one while the task still needs answers. A skip is one of the forms an answer
takes: the one-answer rule (AnswerClaim) holds between skips and answers alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotate.judging.answers import as_id, conflict, has_capacity, lock_for_answer
from annotate.judging.kinds import Outcome, TaskKind
from annotate.judging.leasing import ensure_rater, leases_upsert


@dataclass(frozen=True)
class SkipOutcome(Outcome):
    """A skip stored ("skipped"), or undone ("unskipped"; `leased`: the task is the rater's
    again, since it still needs answers)."""

    undone: bool = False
    leased: bool = False

    @property
    def result(self) -> str:
        if self.undone:
            return "unskipped"
        # A skip sent again (a retry) is "unchanged": the page counts "skipped" as done.
        return "skipped" if self.created else "unchanged"


def skip_submit(
    kind: TaskKind, *, rater: AbstractBaseUser, scope: Any, task_id: object
) -> SkipOutcome:
    """Skip a task the rater holds: it is not offered to them again unless they undo it.
    Skipping twice stores one skip; a task the rater answered is a conflict (409)."""
    ensure_rater(kind, scope, rater)
    task = _task_id(kind, task_id)
    try:
        return _skip_store(kind, rater, scope, task)
    except IntegrityError:
        raise conflict(kind, task, rater, kind.words.answered) from None


@transaction.atomic
def _skip_store(kind: TaskKind, rater: AbstractBaseUser, scope: Any, task_id: int) -> SkipOutcome:
    locked = _locked(kind, scope, rater, task_id)
    if locked.answer_id is not None:
        raise conflict(kind, task_id, rater, kind.words.answered)
    if locked.skip_id is not None:
        skip = kind.skip_model.objects.get(pk=locked.skip_id)
        return SkipOutcome(answer=skip, created=False, changed=False, skipped=True)
    if locked.lease_id is None:
        raise kind.refused(kind.words.not_assigned, status=403)
    skip = kind.skip_model.objects.create(**{kind.lease_task + "_id": task_id}, rater=rater)
    kind.lease_model.objects.filter(pk=locked.lease_id).delete()
    return SkipOutcome(answer=skip, created=True, changed=False, skipped=True)


def skip_undo(
    kind: TaskKind, *, rater: AbstractBaseUser, scope: Any, task_id: object
) -> SkipOutcome:
    """Undo the rater's skip of a task. While the task still needs answers it is leased to
    them again (it comes back in their queue); once others filled it, it just stays undone."""
    ensure_rater(kind, scope, rater)
    return _skip_remove(kind, rater, scope, _task_id(kind, task_id))


@transaction.atomic
def _skip_remove(kind: TaskKind, rater: AbstractBaseUser, scope: Any, task_id: int) -> SkipOutcome:
    now = timezone.now()
    locked = _locked(kind, scope, rater, task_id)
    if locked.skip_id is None:
        return SkipOutcome(answer=None, created=False, changed=False)
    kind.skip_model.objects.filter(pk=locked.skip_id).delete()
    leased = has_capacity(kind, locked, rater, now)
    if leased:
        task = kind.task_model.objects.get(pk=task_id)
        leases_upsert(kind, scope, [task], rater, now)
    return SkipOutcome(answer=None, created=False, changed=True, undone=True, leased=leased)


def _task_id(kind: TaskKind, task_id: object) -> int:
    number = as_id(task_id)
    if number is None:
        raise kind.refused(kind.words.not_found, status=404)
    return number


def _locked(kind: TaskKind, scope: Any, rater: AbstractBaseUser, task_id: int):
    locked = lock_for_answer(kind, scope, rater, task_id, kind.lock_params(None), timezone.now())
    if locked is None:
        raise kind.refused(kind.words.not_found, status=404)
    return locked
