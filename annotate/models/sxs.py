"""Side-by-side comparisons of two runs, their tasks and the raters' verdicts."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from annotate.models.campaigns import Campaign
from annotate.models.corpus import Query
from annotate.models.judgments import trigger_fields_kept
from annotate.models.runs import Run


class ComparisonUnit(models.TextChoices):
    LIST = "list", "A query's whole top-k list"
    POSITION = "position", "Per position (A's and B's document at the same rank)"


class VerdictValue(models.TextChoices):
    GOOD = "G", "Good (candidate better)"
    SAME = "S", "Same"
    BAD = "B", "Bad (candidate worse)"


def new_side_secret() -> str:
    return secrets.token_hex(32)


class Side(models.TextChoices):
    LEFT = "L", "Left"
    RIGHT = "R", "Right"


class Comparison(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="comparisons")
    name = models.CharField(max_length=200)
    baseline = models.ForeignKey(Run, on_delete=models.RESTRICT, related_name="+")
    candidate = models.ForeignKey(Run, on_delete=models.RESTRICT, related_name="+")
    unit = models.CharField(max_length=10, choices=ComparisonUnit.choices, default="list")
    depth = models.PositiveSmallIntegerField(
        default=10, validators=[MinValueValidator(1), MaxValueValidator(100)]
    )
    raters_per_task = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(50)]
    )
    min_gsb = models.FloatField(
        default=0.0, validators=[MinValueValidator(-1), MaxValueValidator(1)]
    )
    confidence = models.FloatField(
        default=0.95, validators=[MinValueValidator(0.5), MaxValueValidator(0.999)]
    )
    min_queries = models.PositiveIntegerField(default=30)
    # Part of the plan fixed at creation: a GSB within ± this margin is "no meaningful
    # difference" (0: the plan declares no such outcome).
    equivalence_margin = models.FloatField(
        default=0.0, validators=[MinValueValidator(0), MaxValueValidator(0.5)]
    )
    seed = models.BigIntegerField(default=0, help_text="Seeds the query sample and the bootstrap.")
    # Decides the candidate's side of each task for each rater (an HMAC key): made at
    # creation, never shown to anyone, and not the seed, which managers see (#24).
    side_secret = models.CharField(max_length=64, default=new_side_secret, editable=False)
    # What a manager is told about this comparison's sides, e.g. that they were redrawn.
    sides_notice = models.TextField(blank=True, default="", editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
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
    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="tasks")
    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="1-based rank, for per-position comparisons only."
    )
    # Both sides show the same list: counted as Same without asking a rater.
    identical = models.BooleanField(default=False)
    # The same counters as PoolItem's, kept by the same triggers (annotate/counted.py, migration
    # 0010): verdicts, lease rows and a time at or before the first lease end.
    counted = models.PositiveIntegerField(default=0, editable=False)
    leased = models.PositiveIntegerField(default=0, editable=False)
    first_lease_end = models.DateTimeField(null=True, editable=False)

    class Meta:
        verbose_name = "side-by-side task"
        constraints = [
            models.UniqueConstraint(
                fields=["comparison", "query"],
                condition=models.Q(position__isnull=True),
                name="sxstask_unique_query",
            ),
            models.UniqueConstraint(
                fields=["comparison", "query", "position"],
                condition=models.Q(position__isnull=False),
                name="sxstask_unique_position",
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
    task = models.ForeignKey(SxsTask, on_delete=models.CASCADE, related_name="verdicts")
    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="verdicts"
    )
    # Empty for "can't judge", which counts toward nothing (as a grade's can't-judge).
    value = models.CharField(max_length=1, choices=VerdictValue.choices, blank=True)
    cant_judge = models.BooleanField("can't judge", default=False)
    candidate_side = models.CharField(max_length=1, choices=Side.choices)
    strength = models.PositiveSmallIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1), MaxValueValidator(3)]
    )
    reason = models.TextField(blank=True)
    seconds = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    changed_at = models.DateTimeField(auto_now=True)

    class Meta:
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

    task = models.ForeignKey(SxsTask, on_delete=models.CASCADE, related_name="skips")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "side-by-side skip"
        constraints = [
            models.UniqueConstraint(fields=["task", "rater"], name="taskskip_one_per_rater")
        ]

    def __str__(self) -> str:
        return f"{self.rater_id} skipped task {self.task_id}"
