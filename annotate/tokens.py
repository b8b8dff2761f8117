"""API tokens for scripts (django-rest-knox): made on the user's token page, shown once, stored
only as a hash (knox keeps a SHA-512 digest and the first 15 characters, by which the owner
tells tokens apart), and every token expires.

A script sends ``Authorization: Token <token>``; an expired or revoked token gets 401.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from knox.models import AuthToken

# The lifetimes offered on the page, in days; the first is the default.
LIFETIMES = (90, 30, 7, 365)
MAX_TOKENS = 20  # per user: a leak is easier to contain when tokens do not pile up


class TokenRefused(ValueError):
    pass


def tokens_of(user: AbstractBaseUser) -> QuerySet[AuthToken]:
    """The user's live tokens, newest first (expired ones are dropped on the way)."""
    AuthToken.objects.filter(user=user, expiry__lte=timezone.now()).delete()
    return AuthToken.objects.filter(user=user).order_by("-created", "token_key")


@transaction.atomic
def token_create(*, user: AbstractBaseUser, days: int) -> tuple[AuthToken, str]:
    """A new token for `user` that lives `days` days; returns it and its text, which is never
    stored and cannot be shown again."""
    if days not in LIFETIMES:
        raise TokenRefused(f"choose a lifetime of {', '.join(map(str, LIFETIMES))} days")
    if tokens_of(user).count() >= MAX_TOKENS:
        raise TokenRefused(f"you have {MAX_TOKENS} tokens already: revoke one first")
    return AuthToken.objects.create(user=user, expiry=timedelta(days=days))


def token_revoke(*, user: AbstractBaseUser, token_key: str) -> int:
    """Revoke the user's token that starts with `token_key`; returns how many were revoked
    (0 when it is not theirs or already gone)."""
    deleted, _ = AuthToken.objects.filter(user=user, token_key=token_key).delete()
    return deleted
