"""Sign-in lockouts (django-axes) as a manager sees them: which raters of a campaign are locked
out, and unlocking one. Only the campaign's own raters: a manager cannot unlock, or learn about,
anyone else (a superuser does that in the admin)."""

from __future__ import annotations

from axes.models import AccessAttempt
from axes.utils import reset
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.utils import timezone

from annotate.models import Campaign, Membership, Role
from annotate.services.manage import ManageRefused


def _rater_names(campaign: Campaign) -> list[str]:
    rows = Membership.objects.filter(campaign=campaign, role=Role.RATER)
    return list(rows.values_list("user__username", flat=True))


def locked_out_raters(*, campaign: Campaign) -> set[str]:
    """Usernames of the campaign's raters whose account is locked out now."""
    attempts = AccessAttempt.objects.filter(
        username__in=_rater_names(campaign),
        failures_since_start__gte=settings.AXES_FAILURE_LIMIT,
    )
    if settings.AXES_COOLOFF_TIME:
        attempts = attempts.filter(attempt_time__gte=timezone.now() - settings.AXES_COOLOFF_TIME)
    return set(attempts.values_list("username", flat=True))


def rater_unlock(*, campaign: Campaign, user: AbstractBaseUser) -> int:
    """Clear the failed sign-ins of a rater of the campaign (their account's, from every
    address). Returns how many records were cleared."""
    username = user.get_username()
    if not Membership.objects.filter(campaign=campaign, user=user, role=Role.RATER).exists():
        raise ManageRefused(f"{username} is not a rater of this campaign.")
    return reset(username=username)
