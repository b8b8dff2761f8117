"""The pool of query-document pairs to grade, and the raters' grades."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

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
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="pool_items", verbose_name=_("campaign")
    )
    query = models.ForeignKey(
        Query, on_delete=models.CASCADE, related_name="pool_items", verbose_name=_("query")
    )
    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="pool_items", verbose_name=_("document")
    )
    raters_needed = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text=_("Overrides the campaign's overlap for this item."),
        verbose_name=_("raters needed"),
    )
    origin = models.CharField(
        max_length=10, choices=Origin.choices, default=Origin.POOLING, verbose_name=_("origin")
    )
    # Counted grades (can't-judge left out), kept by database triggers on annotate_grade
    # (migration 0007) so every path that writes grades, cascades and raw SQL included, keeps
    # it exact. The queue reads it under the item's row lock instead of counting grades, and
    # finds open items without aggregating the pool. On SQLite a migration that remakes the
    # grade table drops its triggers: recreate them (tests/annotate/test_counted.py fails).
    counted = models.PositiveIntegerField(default=0, editable=False, verbose_name=_("counted"))
    # Lease rows on the item, live or expired, and a time at or before the earliest of their
    # ends; kept by triggers on annotate_lease (migration 0009). When that time is still to
    # come, every lease is live and `counted + leased` is what the item holds: the queue's
    # walk to the next open query skips the items others hold on this row alone.
    leased = models.PositiveIntegerField(default=0, editable=False, verbose_name=_("leased"))
    first_lease_end = models.DateTimeField(
        null=True, editable=False, verbose_name=_("first lease end")
    )
    # Whether the item is gold (has a GoldItem), mirrored here for the queue and the answer
    # path, which read it on the row they lock (annotate/services/gold.py keeps it).
    gold = models.BooleanField(
        default=False, db_default=False, editable=False, verbose_name=_("gold")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("pool item")
        verbose_name_plural = _("pool items")
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

    pool_item = models.ForeignKey(
        PoolItem, on_delete=models.CASCADE, related_name="grades", verbose_name=_("pool item")
    )
    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="grades",
        verbose_name=_("rater"),
    )
    label = models.ForeignKey(
        Label,
        null=True,
        blank=True,
        on_delete=models.RESTRICT,
        related_name="grades",
        verbose_name=_("label"),
    )
    cant_judge = models.BooleanField(_("can't judge"), default=False)
    comment = models.TextField(blank=True, verbose_name=_("comment"))
    seconds = models.FloatField(
        null=True, blank=True, help_text=_("Time the rater took."), verbose_name=_("seconds")
    )
    # An answer to gold: kept out of the item's counted grades (the triggers read it), of
    # aggregation and of exports of real work. Set from the item's flag when stored.
    gold = models.BooleanField(
        default=False, db_default=False, editable=False, verbose_name=_("gold")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    changed_at = models.DateTimeField(auto_now=True, verbose_name=_("changed at"))

    class Meta:
        verbose_name = _("grade")
        verbose_name_plural = _("grades")
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

    grade = models.ForeignKey(
        Grade, on_delete=models.CASCADE, related_name="history", verbose_name=_("grade")
    )
    label = models.ForeignKey(
        Label, null=True, blank=True, on_delete=models.RESTRICT, verbose_name=_("label")
    )
    cant_judge = models.BooleanField(default=False, verbose_name=_("cant judge"))
    comment = models.TextField(blank=True, verbose_name=_("comment"))
    given_at = models.DateTimeField(
        help_text=_("When the old value was given."), verbose_name=_("given at")
    )
    replaced_at = models.DateTimeField(auto_now_add=True, verbose_name=_("replaced at"))

    class Meta:
        verbose_name = _("grade change")
        verbose_name_plural = _("grade changes")
        ordering = ["grade", "-replaced_at"]

    def __str__(self) -> str:
        return f"{self.grade_id} was {self.label or 'cannot judge'} until {self.replaced_at}"


class Skip(models.Model):
    pool_item = models.ForeignKey(
        PoolItem, on_delete=models.CASCADE, related_name="skips", verbose_name=_("pool item")
    )
    rater = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("rater"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("skip")
        verbose_name_plural = _("skips")
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

    kind = models.CharField(
        max_length=1, verbose_name=_("kind")
    )  # "g": a pool item, "s": a side-by-side task
    task_id = models.BigIntegerField(verbose_name=_("task id"))
    rater_id = models.BigIntegerField(verbose_name=_("rater id"))

    class Meta:
        verbose_name = _("answer claim")
        verbose_name_plural = _("answer claims")
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "task_id", "rater_id"], name="one_answer_per_rater_and_task"
            )
        ]

    def __str__(self) -> str:
        return f"{self.rater_id} answered {self.kind}{self.task_id}"
