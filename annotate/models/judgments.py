"""The pool of query-document pairs to grade, and the raters' grades."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotate.models.campaigns import Campaign, Label
from annotate.models.corpus import Document, Query


def trigger_fields_kept(instance: models.Model, save_kwargs: dict) -> None:
    """Leave a task's trigger-kept counters (its TRIGGER_FIELDS) out of an update.

    Only the triggers write the counters. An update through the ORM would write back the
    values loaded with the instance, undoing every answer or lease stored or deleted since
    (the admin's change form does exactly that)."""
    kept = instance.TRIGGER_FIELDS  # type: ignore[attr-defined]
    if not instance._state.adding and save_kwargs.get("update_fields") is None:
        save_kwargs["update_fields"] = [
            field.name
            for field in instance._meta.concrete_fields
            if not field.primary_key and field.name not in kept
        ]
    elif save_kwargs.get("update_fields") is not None:
        save_kwargs["update_fields"] = [f for f in save_kwargs["update_fields"] if f not in kept]


class PoolItem(models.Model):
    class Origin(models.TextChoices):
        POOLING = "pooling", "Pooling"
        MANUAL = "manual", "Added by hand"
        IMPORT = "import", "Imported"

    # Denormalised from query.campaign so the rater queue filters on one indexed column.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="pool_items")
    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="pool_items")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="pool_items")
    raters_needed = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Overrides the campaign's overlap for this item."
    )
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.POOLING)
    # Counted grades (can't-judge left out), kept by database triggers on annotate_grade
    # (migration 0007) so every path that writes grades, cascades and raw SQL included, keeps
    # it exact. The queue reads it under the item's row lock instead of counting grades, and
    # finds open items without aggregating the pool. On SQLite a migration that remakes the
    # grade table drops its triggers: recreate them (tests/annotate/test_counted.py fails).
    counted = models.PositiveIntegerField(default=0, editable=False)
    # Lease rows on the item, live or expired, and a time at or before the earliest of their
    # ends; kept by triggers on annotate_lease (migration 0009). When that time is still to
    # come, every lease is live and `counted + leased` is what the item holds: the queue's
    # walk to the next open query skips the items others hold on this row alone.
    leased = models.PositiveIntegerField(default=0, editable=False)
    first_lease_end = models.DateTimeField(null=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["query", "document"], name="poolitem_unique_pair"),
            models.CheckConstraint(
                condition=models.Q(raters_needed__isnull=True) | models.Q(raters_needed__gte=1),
                name="poolitem_raters_needed_gte_1",
            ),
        ]
        indexes = [models.Index(fields=["campaign", "query"])]

    def __str__(self) -> str:
        return f"{self.query_id}/{self.document_id}"

    # Written by the triggers only (annotate/counted.py).
    TRIGGER_FIELDS = frozenset({"counted", "leased", "first_lease_end"})

    def save(self, *args, **kwargs) -> None:
        trigger_fields_kept(self, kwargs)
        super().save(*args, **kwargs)

    @property
    def needed(self) -> int:
        return self.raters_needed or self.campaign.overlap


class Grade(models.Model):
    """One rater's label for one pool item. "Can't judge" has no label and does not count."""

    pool_item = models.ForeignKey(PoolItem, on_delete=models.CASCADE, related_name="grades")
    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="grades"
    )
    label = models.ForeignKey(
        Label, null=True, blank=True, on_delete=models.RESTRICT, related_name="grades"
    )
    cant_judge = models.BooleanField("can't judge", default=False)
    comment = models.TextField(blank=True)
    seconds = models.FloatField(null=True, blank=True, help_text="Time the rater took.")
    created_at = models.DateTimeField(auto_now_add=True)
    changed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pool_item", "rater"], name="grade_one_per_rater"),
            models.CheckConstraint(
                condition=(models.Q(cant_judge=True, label__isnull=True))
                | models.Q(cant_judge=False, label__isnull=False),
                name="grade_label_xor_cant_judge",
            ),
            models.CheckConstraint(
                condition=models.Q(seconds__isnull=True) | models.Q(seconds__gte=0),
                name="grade_seconds_gte_0",
            ),
        ]
        indexes = [
            models.Index(fields=["rater", "changed_at"]),
            models.Index(fields=["pool_item", "cant_judge"]),
        ]

    def __str__(self) -> str:
        return f"{self.rater_id} on {self.pool_item_id}: {self.label or 'cannot judge'}"


class GradeChange(models.Model):
    """The value a grade had before a rater changed it, and when it was given."""

    grade = models.ForeignKey(Grade, on_delete=models.CASCADE, related_name="history")
    label = models.ForeignKey(Label, null=True, blank=True, on_delete=models.RESTRICT)
    cant_judge = models.BooleanField(default=False)
    comment = models.TextField(blank=True)
    given_at = models.DateTimeField(help_text="When the old value was given.")
    replaced_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["grade", "-replaced_at"]

    def __str__(self) -> str:
        return f"{self.grade_id} was {self.label or 'cannot judge'} until {self.replaced_at}"


class Skip(models.Model):
    pool_item = models.ForeignKey(PoolItem, on_delete=models.CASCADE, related_name="skips")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pool_item", "rater"], name="skip_one_per_rater")
        ]

    def __str__(self) -> str:
        return f"{self.rater_id} skipped {self.pool_item_id}"


class AnswerClaim(models.Model):
    """One row per rater and task that holds an answer of any form: a grade, a verdict, a
    can't-judge or a skip. Database triggers write it beside every answer and skip row
    (annotate/claims.py), and its unique key is the rule "one answer per rater and task":
    two requests of one rater racing a skip against a grade cannot both be stored, whatever
    path writes them."""

    kind = models.CharField(max_length=1)  # "g": a pool item, "s": a side-by-side task
    task_id = models.BigIntegerField()
    rater_id = models.BigIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "task_id", "rater_id"], name="one_answer_per_rater_and_task"
            )
        ]

    def __str__(self) -> str:
        return f"{self.rater_id} answered {self.kind}{self.task_id}"
