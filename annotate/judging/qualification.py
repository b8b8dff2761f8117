"""The qualification quiz's gate on real work (issue 18; the quiz itself is
annotate/services/quiz.py). Only models here: the leasing steps call it on every lease,
answer and skip, and a scope that requires no quiz costs nothing."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.urls import reverse
from django.utils.translation import gettext as _

from annotate.models import Comparison, QuizAttempt

_CACHE = "_quiz_passed"


def scope_fields(scope: Any) -> dict[str, Any]:
    """The attempt and grant fields naming a scope: a campaign (its graded quiz) or a
    comparison (its side-by-side quiz)."""
    if isinstance(scope, Comparison):
        return {"campaign_id": scope.campaign_id, "comparison": scope}
    return {"campaign": scope, "comparison": None}


def quiz_url(scope: Any) -> str:
    if isinstance(scope, Comparison):
        kwargs = {"slug": scope.campaign.slug, "comparison_id": scope.pk}
        return reverse("annotate:sxs_quiz", kwargs=kwargs)
    return reverse("annotate:quiz", kwargs={"slug": scope.slug})


def quiz_passed(scope: Any, rater: AbstractBaseUser) -> bool:
    return QuizAttempt.objects.filter(rater=rater, passed=True, **scope_fields(scope)).exists()


def quiz_blocks(scope: Any, rater: AbstractBaseUser) -> bool:
    """Whether the rater must pass the scope's quiz before any real work. Free when the scope
    requires none (no query); remembered on the user object for the rest of the request
    (forget_passed clears it when an attempt ends)."""
    if not scope.quiz_required:
        return False
    key = (type(scope).__name__, scope.pk)
    cache = rater.__dict__.setdefault(_CACHE, {})
    if key not in cache:
        cache[key] = quiz_passed(scope, rater)
    return not cache[key]


def forget_passed(rater: AbstractBaseUser) -> None:
    rater.__dict__.pop(_CACHE, None)


def quiz_needed_message() -> str:
    return _("Pass the qualification quiz first: real work starts once you have passed it.")


def quiz_gate(scope: Any, rater: AbstractBaseUser, refused: type[Exception]) -> None:
    """Raise `refused` (a judging kind's Refused) for a rater the quiz still holds back, with
    the quiz's address for the client."""
    if quiz_blocks(scope, rater):
        raise refused(quiz_needed_message(), status=403, quiz=quiz_url(scope))
