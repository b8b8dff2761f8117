"""Campaigns, their label scales and who works on them."""

from __future__ import annotations

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

# (name, grade, letter key). Number keys 1..n follow the order shown (1 = the first label).
DEFAULT_SCALE: list[tuple[str, float, str]] = [("Good", 3, "g"), ("Fair", 2, "f"), ("Bad", 1, "b")]
# The same scale as a Chinese search-quality team names it (issue 20): a zh-Hans campaign gets
# it. Label names are campaign data, stored as written, so the translation happens here, once.
DEFAULT_SCALE_ZH: list[tuple[str, float, str]] = [("好", 3, "g"), ("一般", 2, "f"), ("差", 1, "b")]
DEFAULT_RELEVANT_FROM = 2.0


def default_scale(language: str = "") -> list[tuple[str, float, str]]:
    """The scale a new campaign gets when the manager gives none, in its language."""
    return DEFAULT_SCALE_ZH if language.lower().startswith("zh") else DEFAULT_SCALE


def language_choices() -> list[tuple[str, str]]:
    """The interface languages (settings.LANGUAGES); a callable, so adding a language needs
    no migration."""
    return list(settings.LANGUAGES)


class Aggregation(models.TextChoices):
    MEAN = "mean", _("Mean")
    MEDIAN = "median", _("Median")
    MAJORITY = "majority", _("Majority")
    DAWID_SKENE = "dawid_skene", _("Dawid–Skene (raters weighted by reliability)")


class Role(models.TextChoices):
    RATER = "rater", _("Rater")
    MANAGER = "manager", _("Manager")


_HOST = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*(:[0-9]{1,5})?")


def image_host_list(text: str) -> list[str]:
    """The host names of a campaign's image_hosts text (one per line, blank lines ignored)."""
    return [line.strip().lower() for line in (text or "").splitlines() if line.strip()]


def validate_image_hosts(text: str) -> None:
    """Plain host names only (with an optional port): a scheme, a path, a wildcard or a
    quote would widen, or break, the Content-Security-Policy they go into."""
    bad = [host for host in image_host_list(text) if not _HOST.fullmatch(host)]
    if bad:
        raise ValidationError(
            f"Not a host name: {', '.join(bad[:3])}. Write one host per line, such as "
            "images.example.com (no https://, path or *)."
        )


class Campaign(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    description = models.TextField(blank=True)
    guidelines = models.TextField(blank=True, help_text=_("Markdown, shown to raters."))
    image_hosts = models.TextField(
        blank=True,
        validators=[validate_image_hosts],
        help_text=_(
            "Hosts the guidelines' images may come from, one per line (e.g. "
            "images.example.com). Images from anywhere else than this site are removed, and "
            "raters' browsers refuse them (Content-Security-Policy)."
        ),
    )
    aggregation = models.CharField(
        max_length=20, choices=Aggregation.choices, default=Aggregation.MEAN
    )
    relevant_from = models.FloatField(
        default=DEFAULT_RELEVANT_FROM,
        help_text=_("Grade from which a document counts as relevant for MAP, P@k, recall, MRR."),
    )
    overlap = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text=_("Distinct raters each pool item needs."),
    )
    lease_minutes = models.PositiveSmallIntegerField(
        default=15, validators=[MinValueValidator(1), MaxValueValidator(24 * 60)]
    )
    # How many of its queries have a priority (Query.priority; llmjudge/queue_order.py): the
    # queue looks for them only when there are some, so a campaign without costs nothing.
    prioritized_queries = models.PositiveIntegerField(default=0, editable=False)
    # The interface language for its raters who chose none themselves; empty: their browser's.
    language = models.CharField(
        max_length=16,
        blank=True,
        choices=language_choices,
        verbose_name=_("Raters' interface language"),
        help_text=_(
            "For raters who did not choose a language themselves (empty: their browser's). "
            "Labels, guidelines and queries stay as written."
        ),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="campaigns"
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(overlap__gte=1), name="campaign_overlap_gte_1"
            )
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("annotate:campaign", kwargs={"slug": self.slug})

    @property
    def image_host_list(self) -> list[str]:
        return image_host_list(self.image_hosts)

    @property
    def top_grade(self) -> float | None:
        return self.labels.aggregate(m=models.Max("grade"))["m"]


class Label(models.Model):
    """One step of a campaign's ordered label scale."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="labels")
    name = models.CharField(max_length=40)
    grade = models.FloatField()
    key = models.CharField(max_length=1, help_text=_("Keyboard key, e.g. g for Good."))
    position = models.PositiveSmallIntegerField(help_text=_("Order shown; number keys follow it."))

    class Meta:
        ordering = ["campaign", "position"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="label_unique_name"),
            models.UniqueConstraint(fields=["campaign", "key"], name="label_unique_key"),
            models.UniqueConstraint(fields=["campaign", "grade"], name="label_unique_grade"),
            models.UniqueConstraint(fields=["campaign", "position"], name="label_unique_position"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.grade:g})"


class Membership(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="membership_unique_user")
        ]
        indexes = [models.Index(fields=["user", "role"])]

    def __str__(self) -> str:
        return f"{self.user} as {self.role} of {self.campaign}"
