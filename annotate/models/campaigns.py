"""Campaigns, their label scales and who works on them."""

from __future__ import annotations

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from annotate.cards import validate_card
from annotate.models.quiz_settings import QuizSettings

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
            _(
                "Not a host name: %(hosts)s. Write one host per line, such as "
                "images.example.com (no https://, path or *)."
            )
            % {"hosts": ", ".join(bad[:3])}
        )


class Campaign(QuizSettings):
    name = models.CharField(max_length=200, verbose_name=_("name"))
    slug = models.SlugField(max_length=80, unique=True, verbose_name=_("slug"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    guidelines = models.TextField(
        blank=True, help_text=_("Markdown, shown to raters."), verbose_name=_("guidelines")
    )
    image_hosts = models.TextField(
        blank=True,
        validators=[validate_image_hosts],
        help_text=_(
            "Hosts the guidelines' images may come from, one per line (e.g. "
            "images.example.com). Images from anywhere else than this site are removed, and "
            "raters' browsers refuse them (Content-Security-Policy)."
        ),
        verbose_name=_("image hosts"),
    )
    # The document card raters see (annotate/cards.py): which parts, in which order.
    card = models.TextField(
        blank=True,
        validators=[validate_card],
        help_text=_(
            "One part per line, in the order shown: title, url, snippet, “image: FIELD” (a "
            "picture whose address is in that extra field of the documents) and “fields: "
            "FIELD, FIELD” (extra fields as a small table, e.g. fields: price, brand). Empty: "
            "title, URL and snippet. Pictures come only from this site or the image hosts."
        ),
        verbose_name=_("card"),
    )
    highlight_terms = models.BooleanField(
        default=True,
        help_text=_("Mark the query's words in the titles and snippets raters see."),
        verbose_name=_("highlight terms"),
    )
    aggregation = models.CharField(
        max_length=20,
        choices=Aggregation.choices,
        default=Aggregation.MEAN,
        verbose_name=_("aggregation"),
    )
    relevant_from = models.FloatField(
        default=DEFAULT_RELEVANT_FROM,
        help_text=_("Grade from which a document counts as relevant for MAP, P@k, recall, MRR."),
        verbose_name=_("relevant from"),
    )
    overlap = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        help_text=_("Distinct raters each pool item needs."),
        verbose_name=_("overlap"),
    )
    lease_minutes = models.PositiveSmallIntegerField(
        default=15,
        validators=[MinValueValidator(1), MaxValueValidator(24 * 60)],
        verbose_name=_("lease minutes"),
    )
    # The share of the queries a rater is served that are hidden gold (honeypots), drawn at
    # random for each query the rater is leased (annotate/judging/honeypots.py).
    honeypot_share = models.FloatField(
        default=0.05,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text=_("Share of each rater's queries that are hidden gold (0 to 1)."),
        verbose_name=_("honeypot share"),
    )
    # How many honeypot gold items and tasks it has (annotate/services/gold.py keeps it): the
    # queue draws for a honeypot only when there are some, so a campaign without costs nothing.
    honeypot_gold = models.PositiveIntegerField(
        default=0, editable=False, verbose_name=_("honeypot gold")
    )
    # How many of its queries have a priority (Query.priority; llmjudge/queue_order.py): the
    # queue looks for them only when there are some, so a campaign without costs nothing.
    prioritized_queries = models.PositiveIntegerField(
        default=0, editable=False, verbose_name=_("prioritized queries")
    )
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
    # The automatic rules on raters' quality (annotate/services/quality_rules.py, #18).
    min_consistency = models.FloatField(
        default=0.6,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        verbose_name=_("Lowest mirrored consistency"),
        help_text=_(
            "A rater whose two answers to a side-by-side task and its mirrored duplicate agree "
            "less often than this is paused (0: never)."
        ),
    )
    min_pairs = models.PositiveSmallIntegerField(
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(1000)],
        verbose_name=_("Mirrored pairs before judging consistency"),
    )
    fast_seconds = models.FloatField(
        default=2.0,
        validators=[MinValueValidator(0), MaxValueValidator(600)],
        verbose_name=_("Fast-answer floor (seconds)"),
        help_text=_("Answers given faster than this count as fast."),
    )
    max_fast_share = models.FloatField(
        default=0.3,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        verbose_name=_("Highest share of fast answers"),
        help_text=_("A rater with a larger share of fast answers is flagged for review."),
    )
    # The gold-accuracy rules (annotate/services/quality_rules.py): judged after this many
    # answers to gold, a rater below a floor is paused (0: that floor never pauses).
    min_gold_answers = models.PositiveSmallIntegerField(
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(1000)],
        verbose_name=_("Answers to gold before judging accuracy"),
    )
    min_gold_within = models.FloatField(
        default=0.7,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        verbose_name=_("Lowest graded gold accuracy within one grade"),
    )
    min_gold_exact = models.FloatField(
        default=0.4,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        verbose_name=_("Lowest graded gold accuracy, exact"),
    )
    min_sxs_gold = models.FloatField(
        default=0.6,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        verbose_name=_("Lowest side-by-side gold accuracy"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="Membership",
        through_fields=("campaign", "user"),
        related_name="campaigns",
        verbose_name=_("members"),
    )

    class Meta:
        verbose_name = _("campaign")
        verbose_name_plural = _("campaigns")
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

    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="labels", verbose_name=_("campaign")
    )
    name = models.CharField(max_length=40, verbose_name=_("name"))
    grade = models.FloatField(verbose_name=_("grade"))
    key = models.CharField(
        max_length=1, help_text=_("Keyboard key, e.g. g for Good."), verbose_name=_("key")
    )
    position = models.PositiveSmallIntegerField(
        help_text=_("Order shown; number keys follow it."), verbose_name=_("position")
    )

    class Meta:
        verbose_name = _("label")
        verbose_name_plural = _("labels")
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
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("campaign")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="memberships",
        verbose_name=_("user"),
    )
    role = models.CharField(max_length=10, choices=Role.choices, verbose_name=_("role"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    # A paused rater gets no new work (annotate/services/quality.py); the reason is a rule's
    # finding ({"rule": ..., figures}) or a manager's note ({"note": ...}), rendered in the
    # reader's language when shown.
    paused_at = models.DateTimeField(
        null=True, blank=True, editable=False, verbose_name=_("paused at")
    )
    paused_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
        verbose_name=_("paused by"),
    )
    pause_reason = models.JSONField(
        default=dict, blank=True, editable=False, verbose_name=_("pause reason")
    )
    # Flagged for a manager's review without pausing (e.g. many fast answers); same form.
    review_reason = models.JSONField(
        default=dict, blank=True, editable=False, verbose_name=_("review reason")
    )
    # The rater's answers are left out of aggregation, reports and decisions.
    answers_excluded = models.BooleanField(
        default=False, editable=False, verbose_name=_("answers excluded")
    )

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="membership_unique_user")
        ]
        indexes = [models.Index(fields=["user", "role"])]

    def __str__(self) -> str:
        return f"{self.user} as {self.role} of {self.campaign}"


class QualityEvent(models.Model):
    """What happened to a rater's standing in a campaign, and why: the record behind pausing,
    resuming, flagging and excluding (by a rule when `by` is empty)."""

    class Action(models.TextChoices):
        PAUSE = "pause", _("Paused")
        RESUME = "resume", _("Resumed")
        FLAG = "flag", _("Flagged for review")
        EXCLUDE = "exclude", _("Answers excluded")
        INCLUDE = "include", _("Answers included again")

    membership = models.ForeignKey(
        Membership, on_delete=models.CASCADE, related_name="events", verbose_name=_("membership")
    )
    action = models.CharField(max_length=10, choices=Action.choices, verbose_name=_("action"))
    reason = models.JSONField(default=dict, blank=True, verbose_name=_("reason"))
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("by"),
    )
    at = models.DateTimeField(auto_now_add=True, verbose_name=_("at"))

    class Meta:
        verbose_name = _("quality event")
        verbose_name_plural = _("quality events")
        ordering = ["membership", "at", "pk"]

    def __str__(self) -> str:
        return f"{self.action} {self.membership_id} at {self.at:%Y-%m-%d %H:%M}"
