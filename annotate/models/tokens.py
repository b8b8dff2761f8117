"""The name a user gives an API token ("CI", "notebook"), so that several can be told apart.

knox's AuthToken cannot take a field, so the name sits beside it, one to one, and goes with it
when the token is revoked or expires (the cascade). The user is repeated here so that the
database itself refuses two tokens of one user with the same name (case aside).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _
from knox.models import AuthToken

TOKEN_NAME_MAX_LENGTH = 40


class TokenName(models.Model):
    token = models.OneToOneField(
        AuthToken,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="naming",
        verbose_name=_("token"),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("user")
    )
    name = models.CharField(max_length=TOKEN_NAME_MAX_LENGTH, verbose_name=_("name"))

    class Meta:
        verbose_name = _("token name")
        verbose_name_plural = _("token names")
        constraints = [
            models.UniqueConstraint(Lower("name"), "user", name="token_name_unique_per_user"),
            models.CheckConstraint(condition=~models.Q(name=""), name="token_name_not_blank"),
        ]

    def __str__(self) -> str:
        return self.name
