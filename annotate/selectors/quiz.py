"""What a manager sees of the qualification quiz: each rater's attempts at a scope's quiz
(a campaign's graded quiz or a comparison's side-by-side one)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model

from annotate.judging.qualification import scope_fields
from annotate.models import Comparison, QuizAttempt, QuizGrant, Role


@dataclass
class RaterQuiz:
    rater_id: int
    username: str
    attempts: list[QuizAttempt] = field(default_factory=list)
    grants: int = 0
    allowed: int = 0

    @property
    def passed(self) -> bool:
        return any(a.passed for a in self.attempts)

    @property
    def left(self) -> int:
        return max(0, self.allowed - len(self.attempts))

    @property
    def best(self) -> float | None:
        done = [a.percent for a in self.attempts if a.finished_at is not None]
        return max(done) if done else None


def quiz_results(scope: Any) -> list[RaterQuiz]:
    """Every rater of the scope's campaign, with their attempts in order (the one under way
    included) and the grants that extended their allowance."""
    campaign = scope.campaign if isinstance(scope, Comparison) else scope
    rater_ids = campaign.memberships.filter(role=Role.RATER).values_list("user_id", flat=True)
    users = get_user_model().objects.filter(pk__in=rater_ids).order_by("username")
    rows = {
        u.pk: RaterQuiz(rater_id=u.pk, username=u.get_username(), allowed=scope.quiz_attempts)
        for u in users
    }
    for attempt in QuizAttempt.objects.filter(rater_id__in=rows, **scope_fields(scope)):
        rows[attempt.rater_id].attempts.append(attempt)
    for grant in QuizGrant.objects.filter(rater_id__in=rows, **scope_fields(scope)):
        rows[grant.rater_id].grants += 1
        rows[grant.rater_id].allowed += 1
    return list(rows.values())
