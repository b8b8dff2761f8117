"""The qualification quiz (issue 18): gold of purpose QUIZ, drawn at random for each attempt,
answered in training mode (a miss shows the accepted answer and its explanation), scored
against the scope's pass mark, with a limited number of attempts a manager can extend.

A scope is a Campaign (its graded quiz) or a Comparison (its side-by-side quiz); both carry
the settings (annotate/models/quiz_settings.py). While a scope requires the quiz, a rater
who has not passed it gets no real work: `quiz_gate` refuses their leases, answers and skips
(annotate/judging/leasing.ensure_rater), and the pages send them to the quiz.

The quiz serves only QUIZ gold and the honeypots only HONEYPOT gold (judging/honeypots.py), so
a rater cannot learn the honeypots here. Answers are QuizAnswers, never Grades or Verdicts:
they count toward nothing, and aggregation, GSB and the exports never see them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from annotate.judging.qualification import forget_passed, scope_fields
from annotate.judging.sxs import candidate_side_for, verdict_value
from annotate.models import (
    Campaign,
    Comparison,
    GoldItem,
    GoldPurpose,
    GoldTask,
    QuizAnswer,
    QuizAttempt,
    QuizGrant,
    Role,
)
from annotate.models.quiz_settings import MAX_QUIZ_ATTEMPTS, MAX_QUIZ_ITEMS

# Not predictable from outside: a rater must not learn which gold comes next.
_draw = random.SystemRandom()
SXS_CHOICES = ("left", "right", "same")
MAX_SECONDS = 600.0  # as the judging screens cap an answer's time


class QuizRefused(Exception):
    """A quiz step that cannot be taken; the message says why."""

    def __init__(self, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


Scope = Campaign | Comparison


@dataclass(frozen=True)
class QuizStatus:
    required: bool
    passed: bool
    used: int  # attempts finished or under way
    allowed: int  # the scope's attempts and the manager's grants
    current: QuizAttempt | None  # the attempt under way
    last: QuizAttempt | None  # the latest finished one

    @property
    def left(self) -> int:
        return max(0, self.allowed - self.used)


def quiz_status(scope: Scope, rater: AbstractBaseUser) -> QuizStatus:
    attempts = list(QuizAttempt.objects.filter(rater=rater, **scope_fields(scope)))
    grants = QuizGrant.objects.filter(rater=rater, **scope_fields(scope)).count()
    finished = [a for a in attempts if a.finished_at is not None]
    return QuizStatus(
        required=scope.quiz_required,
        passed=any(a.passed for a in finished),
        used=len(attempts),
        allowed=scope.quiz_attempts + grants,
        current=next((a for a in attempts if a.finished_at is None), None),
        last=finished[-1] if finished else None,
    )


# ---- the manager's side ----


def quiz_settings_set(
    *, scope: Scope, required: bool, items: int, pass_percent: int, attempts: int
) -> None:
    """Change a scope's quiz settings; QuizRefused for a value out of range (nothing kept)."""
    if not 1 <= items <= MAX_QUIZ_ITEMS:
        raise QuizRefused(_("The number of questions is from 1 to %(n)s.") % {"n": MAX_QUIZ_ITEMS})
    if not 1 <= pass_percent <= 100:
        raise QuizRefused(_("The pass mark is a percentage from 1 to 100."))
    if not 1 <= attempts <= MAX_QUIZ_ATTEMPTS:
        raise QuizRefused(_("The attempts allowed are from 1 to %(n)s.") % {"n": MAX_QUIZ_ATTEMPTS})
    values = {
        "quiz_required": bool(required),
        "quiz_items": items,
        "quiz_pass_percent": pass_percent,
        "quiz_attempts": attempts,
    }
    type(scope).objects.filter(pk=scope.pk).update(**values)
    for name, value in values.items():
        setattr(scope, name, value)


def quiz_grant(*, scope: Scope, rater_id: object, manager: AbstractBaseUser) -> QuizGrant:
    """One more attempt for a rater of the scope's campaign."""
    campaign = scope.campaign if isinstance(scope, Comparison) else scope
    try:
        pk = int(rater_id)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        pk = 0
    member = campaign.memberships.filter(user_id=pk, role=Role.RATER).first()
    if member is None:
        raise QuizRefused(_("That person is not a rater of this campaign."), status=404)
    return QuizGrant.objects.create(rater_id=pk, manager=manager, **scope_fields(scope))


def quiz_gold_count(scope: Scope) -> int:
    return len(_quiz_gold_ids(scope))


def _quiz_gold_ids(scope: Scope) -> list[int]:
    """The scope's quiz gold, its rows locked: a manager turning one into a honeypot waits
    for the attempt drawing it and then sees it drawn (services/gold.py), or turned it first
    and it is drawn no more."""
    if isinstance(scope, Comparison):
        gold = GoldTask.objects.filter(
            task__comparison=scope, purpose=GoldPurpose.QUIZ, task__identical=False
        )
        field = "task_id"
    else:
        gold = GoldItem.objects.filter(pool_item__campaign=scope, purpose=GoldPurpose.QUIZ)
        field = "pool_item_id"
    return list(gold.select_for_update(of=("self",)).order_by("pk").values_list(field, flat=True))


# ---- the rater's side ----


@transaction.atomic
def quiz_start(scope: Scope, rater: AbstractBaseUser) -> QuizAttempt:
    """Begin an attempt (or return the one under way): N quiz gold drawn at random."""
    # One start at a time per rater (a double click, two tabs): their user row is the lock.
    get_user_model().objects.select_for_update().filter(pk=rater.pk).first()
    status = quiz_status(scope, rater)
    if status.current is not None:
        return status.current
    if status.passed:
        raise QuizRefused(_("You have passed this quiz already."))
    if status.left <= 0:
        raise QuizRefused(
            _("You have no attempts left. Ask the campaign's manager for another."), status=403
        )
    ids = _quiz_gold_ids(scope)
    if not ids:
        raise QuizRefused(_("This quiz has no questions yet. Ask the campaign's manager."))
    drawn = _draw.sample(sorted(ids), min(scope.quiz_items, len(ids)))
    return QuizAttempt.objects.create(
        rater=rater, drawn=drawn, pass_percent=scope.quiz_pass_percent, **scope_fields(scope)
    )


def next_position(attempt: QuizAttempt) -> int | None:
    """The first question of the attempt not answered yet (None: all are)."""
    answered = set(attempt.answers.values_list("position", flat=True))
    return next((i for i in range(len(attempt.drawn)) if i not in answered), None)


def candidate_side(comparison: Comparison, rater: AbstractBaseUser, task_id: int) -> str:
    """The candidate's side for this rater, as on any task of the comparison."""
    return candidate_side_for(secret=comparison.side_secret, rater_id=rater.pk, task_id=task_id)


@transaction.atomic
def quiz_answer(
    *,
    scope: Scope,
    rater: AbstractBaseUser,
    position: object,
    choice: object,
    seconds: float | None = None,
) -> QuizAnswer:
    """Store the answer to the attempt's current question and score it; the last answer
    finishes the attempt. `choice` is a label id (graded) or left/right/same (side-by-side).
    QuizRefused for a question already answered or an answer that is none of the choices."""
    attempt = (
        QuizAttempt.objects.select_for_update()
        .filter(rater=rater, finished_at__isnull=True, **scope_fields(scope))
        .first()
    )
    if attempt is None:
        raise QuizRefused(_("No quiz attempt is under way. Start one."), status=409)
    current = next_position(attempt)
    if current is None or str(position) != str(current):
        raise QuizRefused(_("That question is answered already; here is the next."), status=409)
    seconds = None if seconds is None else max(0.0, min(float(seconds), MAX_SECONDS))
    if isinstance(scope, Comparison):
        answer = _sxs_answer(scope, rater, attempt, current, choice)
    else:
        answer = _graded_answer(scope, attempt, current, choice)
    answer.seconds = seconds
    answer.save()
    if current == len(attempt.drawn) - 1:
        _finish(attempt)
        forget_passed(rater)
    return answer


def _graded_answer(campaign: Campaign, attempt: QuizAttempt, position: int, choice: object):
    item_id = attempt.drawn[position]
    gold = GoldItem.objects.filter(pool_item_id=item_id).first()
    label = campaign.labels.filter(pk=_as_int(choice)).first()
    if label is None:
        raise QuizRefused(_("Choose one of the campaign's labels."))
    correct = gold is not None and gold.accepted.filter(pk=label.pk).exists()
    return QuizAnswer(
        attempt=attempt, position=position, pool_item_id=item_id, label=label, correct=correct
    )


def _sxs_answer(
    comparison: Comparison,
    rater: AbstractBaseUser,
    attempt: QuizAttempt,
    position: int,
    choice: object,
):
    if choice not in SXS_CHOICES:
        raise QuizRefused(_("Choose Left better, About the same or Right better."))
    task_id = attempt.drawn[position]
    gold = GoldTask.objects.filter(task_id=task_id).first()
    value = verdict_value(str(choice), candidate_side(comparison, rater, task_id))
    correct = gold is not None and gold.value == value
    return QuizAnswer(
        attempt=attempt,
        position=position,
        task_id=task_id,
        chosen=str(choice),
        value=value,
        correct=correct,
    )


def _finish(attempt: QuizAttempt) -> None:
    attempt.correct = attempt.answers.filter(correct=True).count()
    # Integer arithmetic: 8 of 10 at an 80% mark passes, with no rounding in the way.
    attempt.passed = attempt.correct * 100 >= attempt.pass_percent * attempt.total
    attempt.finished_at = timezone.now()
    attempt.save(update_fields=["correct", "passed", "finished_at"])


def _as_int(value: object) -> int | None:
    try:
        number = int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return None
    return number if 0 < number < 2**63 else None
