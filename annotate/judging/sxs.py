"""Side-by-side judging as a task kind: a comparison's tasks, leased per query with the side the
candidate is shown on decided when leased (stored with the lease, then copied into the
verdict: the client only says which side it preferred, never which side is which)."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.utils.translation import gettext_lazy as _

from annotate.counted import TASKS
from annotate.judging import handles
from annotate.judging.answers import answer_submit, as_id
from annotate.judging.handles import order_key
from annotate.judging.kinds import Locked, Outcome, Refused, Submission, TaskKind, Words
from annotate.judging.leasing import held_or_next, leases_release
from annotate.judging.mirrors import after_verdict
from annotate.judging.open import loaded
from annotate.models import (
    Campaign,
    Comparison,
    Query,
    Side,
    SxsTask,
    TaskLease,
    TaskSkip,
    Verdict,
    VerdictChange,
    VerdictValue,
)
from annotate.selectors_sxs import CHOICES, chosen_side
from annotate.services import quality


class VerdictRefused(Refused):
    """A verdict that must not be stored. `status` is the HTTP status to answer with."""


@dataclass(frozen=True)
class VerdictOutcome(Outcome):
    @property
    def verdict(self) -> Verdict:
        return self.answer


CANT_JUDGE = "cant_judge"


@dataclass(frozen=True)
class SxsChoice:
    """The side the rater preferred ("left", "right" or "same") and how strongly (1-3), or
    "cant_judge" (an unreadable pair: stored, counted toward nothing, offered to another)."""

    chosen: str
    strength: int | None


def candidate_side_for(*, secret: str, rater_id: int, task_id: int) -> str:
    """Which side the candidate is on for this rater and task: a fair coin, an HMAC keyed by
    the comparison's side secret (made at creation, never sent anywhere, not the seed that
    managers see), so nobody outside the server can compute it and leasing the task again
    shows the same sides. Migration 0017 freezes a copy of this rule."""
    mac = hmac.new(bytes.fromhex(secret), f"side:{rater_id}:{task_id}".encode(), hashlib.sha256)
    return Side.LEFT if mac.digest()[0] & 1 else Side.RIGHT


def verdict_value(chosen: str, candidate_side: str) -> str:
    """Good, Same or Bad for the candidate, from the side the rater preferred ("" for
    can't-judge)."""
    if chosen == CANT_JUDGE:
        return ""
    if chosen == "same":
        return VerdictValue.SAME
    picked = Side.LEFT if chosen == "left" else Side.RIGHT
    return VerdictValue.GOOD if picked == candidate_side else VerdictValue.BAD


_TASK_FIELDS = ("id", "comparison_id", "query_id", "position", "identical", "mirror_side")
_QUERY_FIELDS = ("id", "campaign_id", "external_id", "text", "description")


class SxsKind(TaskKind):
    counters = TASKS
    scope_column = "comparison_id"
    needed_sql = "%s"
    # Identical tasks are never open: they count as Same without anyone's time.
    open_where = " AND NOT p.identical"
    # A mirrored duplicate is open to its rater alone, and only once its time has come.
    open_exclusions = """
    AND NOT EXISTS (
        SELECT 1 FROM annotate_taskskip s WHERE s.task_id = p.id AND s.rater_id = %s
    )
    AND (p.mirror_rater_id IS NULL OR p.mirror_rater_id = %s AND p.offer_after <= %s)"""
    open_exclusion_params = 3
    lease_columns = ("candidate_side",)
    row_columns = (
        "p.id, p.query_id, p.position, p.identical, p.mirror_side, "
        "q.external_id, q.text, q.description"
    )
    row_joins = "\nINNER JOIN annotate_query q ON q.id = p.query_id"
    lock_columns = ", p.identical, l.candidate_side"
    gold_table = "annotate_goldtask"
    gold_fk = "task_id"
    task_model = SxsTask
    lease_model = TaskLease
    lease_task = "task"
    answer_model = Verdict
    history_model = VerdictChange
    history_fk = "verdict"
    skip_model = TaskSkip
    note_field = "reason"
    refused = VerdictRefused
    outcome = VerdictOutcome
    words = Words(
        not_found=_("This task is not part of this comparison."),
        not_assigned=_("This task is not assigned to you."),
        late=_(
            "Your time on this task ran out and other raters have answered it since; "
            "your verdict was not needed. Continue with the next task."
        ),
        full=_("This task already has all the verdicts it needs."),
        conflict=_(
            "You already answered this task, from another tab or device. "
            "Keep that answer, or use this one."
        ),
        answered=_("You already answered this task; change the answer instead."),
        skipped=_("You skipped this task. Undo the skip to answer it."),
    )

    def campaign(self, scope: Comparison) -> Campaign:
        return scope.campaign

    def needed_default(self, scope: Comparison) -> int:
        return scope.raters_per_task

    def from_row(self, scope: Comparison, row: tuple) -> SxsTask:
        task_id, query_id, position, identical, mirror_side, *texts = row
        db = connection.alias
        values = (task_id, scope.pk, query_id, position, identical, mirror_side)
        task = loaded(SxsTask, db, _TASK_FIELDS, values)
        query = loaded(Query, db, _QUERY_FIELDS, (query_id, scope.campaign_id, *texts))
        task._state.fields_cache.update(comparison=scope, query=query)
        return task

    def lease_values(self, scope: Comparison, rater: AbstractBaseUser, task: SxsTask) -> tuple:
        if task.mirror_side:  # a mirrored duplicate: the other side than on the original
            return (task.mirror_side,)
        return (candidate_side_for(secret=scope.side_secret, rater_id=rater.pk, task_id=task.pk),)

    def exclusion_params(self, rater: AbstractBaseUser, at: object) -> list:
        return [rater.pk, rater.pk, at]

    def within_query(self, rater: AbstractBaseUser, task: SxsTask) -> bytes:
        # Not the position: a per-position comparison's tasks in rank order give it away.
        return order_key(rater.pk, handles.SXS, task.pk)

    def check(self, locked: Locked, submission: Submission) -> None:
        if locked.extra[0]:
            raise VerdictRefused(
                _("Both sides of this task are the same; it needs no verdict."), status=409
            )

    def counts(self, submission: Submission) -> bool:
        return submission.choice.chosen != CANT_JUDGE

    def answer_counts(self, answer: Verdict) -> bool:
        return not answer.cant_judge

    def new_values(self, submission: Submission, locked: Locked) -> dict:
        side = locked.extra[1]
        return {**self._values(submission.choice, side), "candidate_side": side}

    def changed_values(self, submission: Submission, answer: Verdict) -> dict:
        return self._values(submission.choice, answer.candidate_side)

    def _values(self, choice: SxsChoice, side: str) -> dict:
        return {
            "value": verdict_value(choice.chosen, side),
            "cant_judge": choice.chosen == CANT_JUDGE,
            "strength": choice.strength,
        }

    def token(self, answer: Verdict) -> str:
        return verdict_token(**self.stored(answer))

    def stored(self, answer: Verdict) -> dict:
        return {
            "chosen": chosen_side(answer.value, answer.candidate_side),
            "strength": answer.strength,
        }


def verdict_token(*, chosen: str, strength: int | None) -> str:
    """A verdict as its page sends it back in `replaces`: "left", "right:2", "cant_judge"."""
    return f"{chosen}:{strength}" if strength else chosen


SXS = SxsKind()


def sxs_queue(
    *, rater: AbstractBaseUser, comparison: Comparison, look_ahead: bool = False
) -> list[tuple[SxsTask, str]]:
    """The tasks the rater holds, with the candidate's side for each, in the order to show
    them; leases the next query's tasks when the rater holds none (see held_or_next)."""
    held = held_or_next(SXS, scope=comparison, rater=rater, look_ahead=look_ahead)
    return [(task, task.candidate_side) for task in held]


def check_choice(chosen: object, strength: object) -> SxsChoice:
    if chosen == CANT_JUDGE:
        return SxsChoice(chosen=CANT_JUDGE, strength=None)
    if chosen not in CHOICES:
        raise VerdictRefused(_("Choose Left better, About the same or Right better."))
    if strength in (None, ""):
        strength = None
    else:
        try:
            strength = int(strength)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            strength = 0
        if strength not in (1, 2, 3):
            raise VerdictRefused(_("The strength must be 1 (slightly), 2 (clearly) or 3 (much)."))
    # A strength says how much better one side is: it has no meaning for "about the same".
    return SxsChoice(chosen=str(chosen), strength=None if chosen == "same" else strength)


def verdict_submit(
    *,
    rater: AbstractBaseUser,
    task_id: object,
    chosen: str,
    strength: int | None = None,
    reason: str = "",
    seconds: float | None = None,
    comparison: Comparison | None = None,
    replaces: str | None = None,
) -> VerdictOutcome:
    """Store or change the rater's verdict on one task (see answers.answer_submit).

    `chosen` is "left", "right" or "same"; it becomes Good, Bad or Same for the candidate from
    the side recorded when the task was leased. With `comparison`, a task of another
    comparison is refused as not found; without, the task's own comparison is looked up.
    """
    choice = check_choice(chosen, strength)
    if comparison is None:
        comparison = _comparison_of_task(task_id)
    submission = Submission(
        task_id=task_id, choice=choice, note=reason, seconds=seconds, replaces=replaces or None
    )
    outcome = answer_submit(SXS, rater=rater, scope=comparison, submission=submission)
    if outcome.created:
        answered_mirror = after_verdict(comparison=comparison, verdict=outcome.verdict, rater=rater)
        if answered_mirror or quality.due(outcome.verdict.pk):
            quality.rules_apply(campaign=comparison.campaign, rater=rater)
    return outcome


def _comparison_of_task(task_id: object) -> Comparison:
    task = as_id(task_id)
    found = None
    if task is not None:
        found = Comparison.objects.filter(tasks__pk=task).select_related("campaign").first()
    if found is None:
        raise VerdictRefused(SXS.words.not_found, status=404)
    return found


def sxs_lease_release(*, comparison: Comparison, rater: AbstractBaseUser | None = None) -> int:
    """A manager frees the leases of a comparison (all, or one rater's); returns how many."""
    return leases_release(SXS, scope=comparison, rater=rater)
