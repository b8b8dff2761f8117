"""API tokens for scripts (django-rest-knox): made on the user's token page, shown once, stored
only as a hash (knox keeps a SHA-512 digest and the first 15 characters), every token expires,
and each has a name its owner chose ("CI", "notebook"), unique among that owner's tokens.

A script sends ``Authorization: Token <token>``; an expired or revoked token gets 401.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import F, QuerySet
from django.utils import timezone
from knox.models import AuthToken

from annotate.models import TokenName
from annotate.models.tokens import TOKEN_NAME_MAX_LENGTH

# The lifetimes offered on the page, in days; the first is the default.
LIFETIMES = (90, 30, 7, 365)
MAX_TOKENS = 20  # per user: a leak is easier to contain when tokens do not pile up


class TokenRefused(ValueError):
    """Why a token was not made; `field` is the form field at fault, if one is."""

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


def tokens_of(user: AbstractBaseUser) -> QuerySet[AuthToken]:
    """The user's live tokens, newest first, each with its `name` (None for a token made before
    tokens had names). Expired ones are dropped on the way."""
    AuthToken.objects.filter(user=user, expiry__lte=timezone.now()).delete()
    return (
        AuthToken.objects.filter(user=user)
        .annotate(name=F("naming__name"))
        .order_by("-created", "token_key")
    )


@transaction.atomic
def token_create(*, user: AbstractBaseUser, name: str, days: int) -> tuple[AuthToken, str]:
    """A new token for `user` called `name` that lives `days` days; returns it and its text,
    which is never stored and cannot be shown again."""
    name = name.strip()
    if not name:
        raise TokenRefused("give the token a name, e.g. CI or notebook", field="name")
    if len(name) > TOKEN_NAME_MAX_LENGTH:
        raise TokenRefused(
            f"a token name has at most {TOKEN_NAME_MAX_LENGTH} characters", field="name"
        )
    if days not in LIFETIMES:
        raise TokenRefused(
            f"choose a lifetime of {', '.join(map(str, LIFETIMES))} days", field="days"
        )
    live = tokens_of(user)  # first: an expired token's name is free again
    if live.count() >= MAX_TOKENS:
        raise TokenRefused(f"you have {MAX_TOKENS} tokens already: revoke one first")
    taken = f"you already have a token named “{name}”: choose another name or revoke that one"
    if TokenName.objects.filter(user=user, name__iexact=name).exists():
        raise TokenRefused(taken, field="name")
    token, text = AuthToken.objects.create(user=user, expiry=timedelta(days=days))
    try:
        with transaction.atomic():  # a savepoint, so the refusal below can still be raised
            TokenName.objects.create(token=token, user=user, name=name)
    except IntegrityError:
        # The same name saved by a concurrent request, or equal to another only in a case
        # folding the database does and iexact does not: the constraint has the last word.
        raise TokenRefused(taken, field="name") from None
    return token, text


def token_revoke(*, user: AbstractBaseUser, token_key: str) -> int:
    """Revoke the user's token that starts with `token_key` (its name goes with it); returns how
    many tokens were revoked (0 when it is not theirs or already gone)."""
    _, per_model = AuthToken.objects.filter(user=user, token_key=token_key).delete()
    return per_model.get(AuthToken._meta.label, 0)
