"""Accounts run from the manager's pages (issue 20): invitations to a campaign, one-time
password-reset links, and a user's preferences.

Links carry a random secret that is never stored: only its SHA-256 digest is (as knox does
for API tokens). 256 random bits need no slow hash, and a leaked table gives no usable link.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotate.models.campaigns import Campaign, Role, language_choices


class InvitationState(models.TextChoices):
    PENDING = "pending", _("Pending")
    ACCEPTED = "accepted", _("Accepted")
    REVOKED = "revoked", _("Revoked")
    EXPIRED = "expired", _("Expired")


class Invitation(models.Model):
    """A single-use link that makes whoever opens it first a member of one campaign, with
    one role; it grants nothing anywhere else."""

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="invitations", verbose_name=_("campaign")
    )
    role = models.CharField(
        max_length=10, choices=Role.choices, default=Role.RATER, verbose_name=_("role")
    )
    # Who it is for, as the manager wrote it: shown in the list and turned into the proposed
    # username.
    name = models.CharField(max_length=150, blank=True, verbose_name=_("name"))
    email = models.EmailField(blank=True, verbose_name=_("email"))
    digest = models.CharField(max_length=64, unique=True, verbose_name=_("digest"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    expires_at = models.DateTimeField(verbose_name=_("expires at"))
    accepted_at = models.DateTimeField(null=True, blank=True, verbose_name=_("accepted at"))
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("accepted by"),
    )
    revoked_at = models.DateTimeField(null=True, blank=True, verbose_name=_("revoked at"))

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(accepted_at__isnull=False, revoked_at__isnull=False),
                name="invitation_accepted_or_revoked",
            )
        ]

    def __str__(self) -> str:
        return f"invitation to {self.campaign} as {self.role} ({self.name or self.pk})"

    @property
    def state(self) -> str:
        if self.accepted_at:
            return InvitationState.ACCEPTED
        if self.revoked_at:
            return InvitationState.REVOKED
        if self.expires_at <= timezone.now():
            return InvitationState.EXPIRED
        return InvitationState.PENDING


class PasswordResetLink(models.Model):
    """A one-time link, made by a manager or a superuser, with which a user sets a new
    password without knowing the old one."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reset_links",
        verbose_name=_("user"),
    )
    digest = models.CharField(max_length=64, unique=True, verbose_name=_("digest"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    expires_at = models.DateTimeField(verbose_name=_("expires at"))
    used_at = models.DateTimeField(null=True, blank=True, verbose_name=_("used at"))

    class Meta:
        verbose_name = _("password reset link")
        verbose_name_plural = _("password reset links")

    def __str__(self) -> str:
        return f"password reset for {self.user}"


class Preferences(models.Model):
    """What a user chose for themselves; one row, made on first save."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="preferences",
        verbose_name=_("user"),
    )
    csv_bom = models.BooleanField(
        default=False,
        verbose_name=_("CSV files for Excel (UTF-8 with a byte-order mark)"),
        help_text=_(
            "Excel on Windows, Chinese Windows above all, needs the mark to read UTF-8; other "
            "programs do not."
        ),
    )

    # Empty: not chosen (the campaign's language, then the browser's).
    language = models.CharField(
        max_length=16,
        blank=True,
        choices=language_choices,
        verbose_name=_("Interface language"),
    )

    class Meta:
        verbose_name = _("preferences")
        verbose_name_plural = _("preferences")

    def __str__(self) -> str:
        return f"preferences of {self.user}"
