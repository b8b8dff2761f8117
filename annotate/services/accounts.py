"""Accounts as managers run them: whose account a manager may act on, one-time password-reset
links, deactivation, and taking away everything an account holds (sessions, API tokens, leases).

A manager acts only on an account that is a rater in their campaigns and nowhere else, and
is neither staff nor a superuser nor a manager anywhere; a superuser acts on any account but
their own. Anything wider would let a manager take over a colleague: add them as a rater,
reset their password, receive the link.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from axes.utils import reset as axes_reset
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.contrib.sessions.models import Session
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from annotate.judging.graded import lease_release
from annotate.judging.sxs import sxs_lease_release
from annotate.models import (
    Campaign,
    Comparison,
    Lease,
    Membership,
    PasswordResetLink,
    Role,
    TaskLease,
)
from annotate.selectors.access import campaigns_for
from annotate.services.links import link_digest, link_secret

RESET_LINK_HOURS = 72


class AccountRefused(ValueError):
    """An account change that cannot be made; `message` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def accounts_administered(actor: AbstractBaseUser, user_ids: Iterable[int]) -> set[int]:
    """Of these accounts, those `actor` may reset or deactivate (see above), in three queries
    however many: the raters page asks for all its rows at once."""
    ids = set(user_ids) - {actor.pk}
    if not actor.is_authenticated or not ids:
        return set()
    if actor.is_superuser:
        return set(get_user_model().objects.filter(pk__in=ids).values_list("pk", flat=True))
    managed = campaigns_for(actor, role=Role.MANAGER).values("pk")
    elsewhere = Membership.objects.filter(user_id__in=ids).filter(
        Q(role=Role.MANAGER) | ~Q(campaign_id__in=managed)
    )
    members = Membership.objects.filter(user_id__in=ids).values("user_id")
    users = get_user_model().objects.filter(pk__in=ids, is_staff=False, is_superuser=False)
    # A manager's reach: accounts with a membership, all of them as a rater of theirs.
    users = users.filter(pk__in=members).exclude(pk__in=elsewhere.values("user_id"))
    return set(users.values_list("pk", flat=True))


def account_administered_by(actor: AbstractBaseUser, user: AbstractBaseUser) -> bool:
    """Whether `actor` may reset `user`'s password or deactivate the account (see above)."""
    return user.pk in accounts_administered(actor, [user.pk])


def _require(actor: AbstractBaseUser, user: AbstractBaseUser) -> None:
    if not account_administered_by(actor, user):
        raise AccountRefused(
            _(
                "%(name)s also works outside your campaigns (or is staff): only an "
                "administrator can change this account."
            )
            % {"name": user.get_username()}
        )


@transaction.atomic
def reset_link_create(*, actor: AbstractBaseUser, user: AbstractBaseUser) -> str:
    """A new one-time reset link's secret for `user`; earlier unused links of theirs stop
    working. The secret is not stored: show it (or mail it) now."""
    _require(actor, user)
    if not user.is_active:
        raise AccountRefused(_("%(name)s is deactivated.") % {"name": user.get_username()})
    now = timezone.now()
    PasswordResetLink.objects.filter(user=user, used_at__isnull=True).update(used_at=now)
    secret, digest = link_secret()
    PasswordResetLink.objects.create(
        user=user,
        digest=digest,
        created_by=actor,
        expires_at=now + timedelta(hours=RESET_LINK_HOURS),
    )
    return secret


def reset_link_find(secret: str) -> PasswordResetLink | None:
    """The usable reset link with this secret (unused, unexpired, for an active account)."""
    return (
        PasswordResetLink.objects.select_related("user")
        .filter(
            digest=link_digest(secret),
            used_at__isnull=True,
            expires_at__gt=timezone.now(),
            user__is_active=True,
        )
        .first()
    )


@transaction.atomic
def reset_link_use(*, secret: str, password: str) -> AbstractBaseUser:
    """Set a new password through a reset link, once. Ends the account's sessions and API
    tokens. Raises AccountRefused when the link is not usable, and Django's ValidationError
    when the password is too weak."""
    link = reset_link_find(secret)
    if link is None:
        raise AccountRefused(_("This link is not valid: it was used, replaced or has expired."))
    user = link.user
    validate_password(password, user=user)
    # Claimed by a conditional update: of two requests racing with one link, one wins.
    now = timezone.now()
    claimed = PasswordResetLink.objects.filter(pk=link.pk, used_at__isnull=True).update(used_at=now)
    if not claimed:
        raise AccountRefused(_("This link is not valid: it was used, replaced or has expired."))
    user.set_password(password)
    user.save(update_fields=["password"])  # the tokens go with the old password (apps.py)
    sessions_end(user)
    # A rater who forgot their password has often locked themselves out trying: the new one
    # should work at once.
    axes_reset(username=user.get_username())
    return user


@transaction.atomic
def account_deactivate(*, actor: AbstractBaseUser, user: AbstractBaseUser) -> None:
    """Deactivate `user`: they cannot sign in, and their sessions, API tokens and leases end
    (access_revoke, which the save's signal runs for every deactivation, the admin's too)."""
    _require(actor, user)
    if not user.is_active:
        raise AccountRefused(_("%(name)s is already deactivated.") % {"name": user.get_username()})
    user.is_active = False
    user.save(update_fields=["is_active"])


def access_revoke(user: AbstractBaseUser) -> dict[str, int]:
    """End everything the account holds: its sessions, its API tokens, its leases of graded
    items and side-by-side tasks (those go back to the queues), its unused reset links.
    Returns how many of each."""
    from knox.models import get_token_model

    with transaction.atomic():
        tokens, _ = get_token_model().objects.filter(user=user).delete()
        leases = _leases_release(user)
        PasswordResetLink.objects.filter(user=user, used_at__isnull=True).update(
            used_at=timezone.now()
        )
    return {
        "sessions": sessions_end(user),
        "tokens": tokens,
        "leases": leases,
    }


def _leases_release(user: AbstractBaseUser) -> int:
    """Release the user's leases everywhere, through the judging code's own release, which
    locks the tasks before deleting leases (the order the judging path takes)."""
    released = 0
    graded = Lease.objects.filter(rater=user).values("pool_item__campaign_id").distinct()
    for campaign in Campaign.objects.filter(pk__in=graded):
        released += lease_release(campaign=campaign, rater=user)
    tasks = TaskLease.objects.filter(rater=user).values("task__comparison_id").distinct()
    for comparison in Comparison.objects.filter(pk__in=tasks):
        released += sxs_lease_release(comparison=comparison, rater=user)
    return released


def sessions_end(user: AbstractBaseUser) -> int:
    """Delete every live session of `user`. Sessions are stored encoded, so each is read:
    this is for the rare acts above, never a request's path."""
    key = str(user.pk)
    ended = []
    live = Session.objects.filter(expire_date__gt=timezone.now())
    for session in live.iterator(chunk_size=2000):
        if session.get_decoded().get("_auth_user_id") == key:
            ended.append(session.session_key)
    Session.objects.filter(session_key__in=ended).delete()
    return len(ended)


def user_by_pk(pk: int) -> AbstractBaseUser | None:
    return get_user_model().objects.filter(pk=pk).first()
