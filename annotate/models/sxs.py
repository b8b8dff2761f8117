"""Side-by-side comparisons of two runs, their tasks and the raters' verdicts."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotate.models.campaigns import Campaign
from annotate.models.corpus import Query
from annotate.models.judgments import trigger_fields_kept
from annotate.models.quiz_settings import QuizSettings
from annotate.models.runs import Run


class ComparisonUnit(models.TextChoices):
    LIST = "list", _("A query's whole top-k list")
    POSITION = "position", _("Per position (A's and B's document at the same rank)")


class VerdictValue(models.TextChoices):
    GOOD = "G", _("Good (candidate better)")
    SAME = "S", _("Same")
    BAD = "B", _("Bad (candidate worse)")


def new_side_secret() -> str:
    return secrets.token_hex(32)


class PrimaryMeasure(models.TextChoices):
    """The plan's primary measure: GSB from the side-by-side answers, or a graded measure of
    the two runs from the raters' labels on the same queries (at the plan's k, gain, discount
    and ideal). Everything else shown beside it is exploratory."""

    GSB = "gsb", _("GSB (side by side)")
    NDCG = "ndcg_cut", _("NDCG@k (graded labels)")
    ERR = "err_cut", _("ERR@k (graded labels)")
    PRECISION = "P", _("P@k (graded labels)")
    MAP = "map", _("MAP (graded labels)")
    MRR = "recip_rank", _("MRR (graded labels)")


class Side(models.TextChoices):
    LEFT = "L", _("Left")
    RIGHT = "R", _("Right")


class Comparison(QuizSettings):
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="comparisons", verbose_name=_("campaign")
    )
    name = models.CharField(max_length=200, verbose_name=_("name"))
    baseline = models.ForeignKey(
        Run, on_delete=models.RESTRICT, related_name="+", verbose_name=_("baseline")
    )
    candidate = models.ForeignKey(
        Run, on_delete=models.RESTRICT, related_name="+", verbose_name=_("candidate")
    )
    unit = models.CharField(
        max_length=10, choices=ComparisonUnit.choices, default="list", verbose_name=_("unit")
    )
    depth = models.PositiveSmallIntegerField(
        default=10,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        verbose_name=_("depth"),
    )
    raters_per_task = models.PositiveSmallIntegerField(
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(50)],
        verbose_name=_("raters per task"),
    )
    min_gsb = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(-1), MaxValueValidator(1)],
        verbose_name=_("min gsb"),
    )
    confidence = models.FloatField(
        default=0.95,
        validators=[MinValueValidator(0.5), MaxValueValidator(0.999)],
        verbose_name=_("confidence"),
    )
    min_queries = models.PositiveIntegerField(default=30, verbose_name=_("min queries"))
    # Part of the plan fixed at creation: a GSB within ± this margin is "no meaningful
    # difference" (0: the plan declares no such outcome).
    equivalence_margin = models.FloatField(
        default=0.0,
        validators=[MinValueValidator(0), MaxValueValidator(0.5)],
        verbose_name=_("equivalence margin"),
    )
    # The rest of the plan (#17). Comparisons made before plans existed have plan_fixed False:
    # they show "no plan" and the fixed-sample rule decides them on the answers so far.
    plan_fixed = models.BooleanField(default=True, editable=False, verbose_name=_("plan fixed"))
    primary = models.CharField(
        max_length=16,
        choices=PrimaryMeasure.choices,
        default=PrimaryMeasure.GSB,
        verbose_name=_("primary"),
    )
    # The graded measures' settings (metrics.services.scores.MeasureSettings.key); empty: the
    # campaign's defaults at k = depth.
    graded_settings = models.CharField(
        max_length=100, blank=True, default="", verbose_name=_("graded settings")
    )
    # The share of tasks that come back later to the same rater with the sides swapped (#18).
    mirror_share = models.FloatField(
        default=0.05,
        validators=[MinValueValidator(0), MaxValueValidator(0.5)],
        verbose_name=_("Share of mirrored duplicates"),
        help_text=_(
            "This share of a rater's answered tasks comes back to them later with the sides "
            "swapped, to measure their consistency (0: none)."
        ),
    )
    seed = models.BigIntegerField(
        default=0, help_text=_("Seeds the query sample and the bootstrap."), verbose_name=_("seed")
    )
    # Decides the candidate's side of each task for each rater (an HMAC key): made at
    # creation, never shown to anyone, and not the seed, which managers see (#24).
    side_secret = models.CharField(
        max_length=64, default=new_side_secret, editable=False, verbose_name=_("side secret")
    )
    # What a manager is told about this comparison's sides, e.g. that they were redrawn.
    sides_notice = models.TextField(
        blank=True, default="", editable=False, verbose_name=_("sides notice")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("comparison")
        verbose_name_plural = _("comparisons")
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="comparison_unique_name"),
            models.CheckConstraint(
                condition=~models.Q(baseline=models.F("candidate")),
                name="comparison_two_different_runs",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class SxsTask(models.Model):
    comparison = models.ForeignKey(
        Comparison, on_delete=models.CASCADE, related_name="tasks", verbose_name=_("comparison")
    )
    query = models.ForeignKey(
        Query, on_delete=models.CASCADE, related_name="+", verbose_name=_("query")
    )
    position = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text=_("1-based rank, for per-position comparisons only."),
        verbose_name=_("position"),
    )
    # Both sides show the same list: counted as Same without asking a rater.
    identical = models.BooleanField(default=False, verbose_name=_("identical"))
    # Mirrors a GoldTask, as PoolItem.gold does.
    gold = models.BooleanField(
        default=False, db_default=False, editable=False, verbose_name=_("gold")
    )
    # The same counters as PoolItem's, kept by the same triggers (annotate/counted.py, migration
    # 0010): verdicts, lease rows and a time at or before the first lease end.
    counted = models.PositiveIntegerField(default=0, editable=False, verbose_name=_("counted"))
    leased = models.PositiveIntegerField(default=0, editable=False, verbose_name=_("leased"))
    first_lease_end = models.DateTimeField(
        null=True, editable=False, verbose_name=_("first lease end")
    )
    # A mirrored duplicate (#18): a copy of `mirror_of` for `mirror_rater` alone, shown with
    # the candidate on `mirror_side` (the other side than on the rater's answer to the
    # original). Never real work: left out of GSB, progress and exports (annotate/selectors/
    # real.py); its verdict counts on this task only, never on the original's counters.
    mirror_of = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="mirrors",
        verbose_name=_("mirror of"),
    )
    mirror_rater = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("mirror rater"),
    )
    mirror_side = models.CharField(
        max_length=1, choices=Side.choices, blank=True, default="", verbose_name=_("mirror side")
    )
    # A mirror is offered from this time on ("later", not right after the original).
    offer_after = models.DateTimeField(null=True, blank=True, verbose_name=_("offer after"))

    class Meta:
        verbose_name_plural = _("side-by-side tasks")
        verbose_name = _("side-by-side task")
        constraints = [
            models.UniqueConstraint(
                fields=["comparison", "query"],
                condition=models.Q(position__isnull=True, mirror_of__isnull=True),
                name="sxstask_unique_query",
            ),
            models.UniqueConstraint(
                fields=["comparison", "query", "position"],
                condition=models.Q(position__isnull=False, mirror_of__isnull=True),
                name="sxstask_unique_position",
            ),
            models.UniqueConstraint(
                fields=["mirror_of", "mirror_rater"],
                condition=models.Q(mirror_of__isnull=False),
                name="sxstask_one_mirror_per_rater",
            ),
            models.CheckConstraint(
                condition=models.Q(mirror_of__isnull=True, mirror_rater__isnull=True)
                | models.Q(mirror_of__isnull=False, mirror_rater__isnull=False),
                name="sxstask_mirror_has_rater",
            ),
        ]

    def __str__(self) -> str:
        suffix = f"@{self.position}" if self.position else ""
        return f"{self.comparison_id}/{self.query_id}{suffix}"

    TRIGGER_FIELDS = frozenset({"counted", "leased", "first_lease_end"})

    def save(self, *args, **kwargs) -> None:
        trigger_fields_kept(self, kwargs)
        super().save(*args, **kwargs)


class Verdict(models.Model):
    task = models.ForeignKey(
        SxsTask, on_delete=models.CASCADE, related_name="verdicts", verbose_name=_("task")
    )
    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="verdicts",
        verbose_name=_("rater"),
    )
    # Empty for "can't judge", which counts toward nothing (as a grade's can't-judge).
    value = models.CharField(
        max_length=1, choices=VerdictValue.choices, blank=True, verbose_name=_("value")
    )
    cant_judge = models.BooleanField(_("can't judge"), default=False)
    candidate_side = models.CharField(
        max_length=1, choices=Side.choices, verbose_name=_("candidate side")
    )
    strength = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(3)],
        verbose_name=_("strength"),
    )
    reason = models.TextField(blank=True, verbose_name=_("reason"))
    seconds = models.FloatField(null=True, blank=True, verbose_name=_("seconds"))
    # An answer to gold, as Grade.gold.
    gold = models.BooleanField(
        default=False, db_default=False, editable=False, verbose_name=_("gold")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    changed_at = models.DateTimeField(auto_now=True, verbose_name=_("changed at"))

    class Meta:
        verbose_name = _("verdict")
        verbose_name_plural = _("verdicts")
        constraints = [
            models.UniqueConstraint(fields=["task", "rater"], name="verdict_one_per_rater"),
            models.CheckConstraint(
                condition=models.Q(strength__isnull=True)
                | models.Q(strength__gte=1, strength__lte=3),
                name="verdict_strength_1_3",
            ),
            models.CheckConstraint(
                condition=models.Q(cant_judge=False, value__in=["G", "S", "B"])
                | models.Q(cant_judge=True, value=""),
                name="verdict_value_gsb_xor_cant_judge",
            ),
            models.CheckConstraint(
                condition=models.Q(candidate_side__in=["L", "R"]), name="verdict_side_lr"
            ),
        ]
        indexes = [models.Index(fields=["rater", "changed_at"])]

    def __str__(self) -> str:
        return f"{self.rater_id} on {self.task_id}: {self.value or 'cannot judge'}"


class TaskSkip(models.Model):
    """A rater's "not now" on a side-by-side task: not offered to them again unless undone."""

    task = models.ForeignKey(
        SxsTask, on_delete=models.CASCADE, related_name="skips", verbose_name=_("task")
    )
    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("rater"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name_plural = _("side-by-side skips")
        verbose_name = _("side-by-side skip")
        constraints = [
            models.UniqueConstraint(fields=["task", "rater"], name="taskskip_one_per_rater")
        ]

    def __str__(self) -> str:
        return f"{self.rater_id} skipped task {self.task_id}"


class PlanChange(models.Model):
    """A change of a comparison's plan: who, when, how many answers were in by then, what
    changed (field, old, new as shown) and why. Shown on the decision and in the memo."""

    comparison = models.ForeignKey(
        Comparison,
        on_delete=models.CASCADE,
        related_name="plan_changes",
        verbose_name=_("comparison"),
    )
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("changed by"),
    )
    changed_at = models.DateTimeField(auto_now_add=True, verbose_name=_("changed at"))
    answers_in = models.PositiveIntegerField(verbose_name=_("answers in"))
    changes = models.JSONField(verbose_name=_("changes"))  # [[label, old, new], ...]
    reason = models.TextField(blank=True, max_length=2000, verbose_name=_("reason"))

    class Meta:
        verbose_name = _("plan change")
        verbose_name_plural = _("plan changes")
        ordering = ["changed_at", "pk"]

    def __str__(self) -> str:
        return f"plan of {self.comparison_id} changed at {self.changed_at:%Y-%m-%d %H:%M}"
