"""Gold: pool items and side-by-side tasks whose right answer a manager has settled, to measure
raters by (annotate/services/gold.py). A task is gold while it has one of these rows; its
`gold` flag, and the flag of every answer to it, mirror that for the counting triggers
(annotate/counted.py) and the queue, which must not join these tables on their hot path."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotate.models.campaigns import Label
from annotate.models.judgments import PoolItem
from annotate.models.sxs import SxsTask, VerdictValue

MAX_EXPLANATION = 2000


class GoldPurpose(models.TextChoices):
    """What the gold is for. Kept apart so a quiz never shows a rater the honeypots' answers."""

    HONEYPOT = "honeypot", _("Honeypot (hidden in the queue)")
    QUIZ = "quiz", _("Qualification quiz")


class GoldItem(models.Model):
    """A pool item with its accepted labels. `label` is the one that becomes the pair's label
    in aggregation (written as the item's ruling); `accepted` holds every label counted right
    (one, several, or a range of the scale), `label` among them."""

    pool_item = models.OneToOneField(
        PoolItem, on_delete=models.CASCADE, related_name="gold_entry", verbose_name=_("pool item")
    )
    label = models.ForeignKey(
        Label, on_delete=models.RESTRICT, related_name="+", verbose_name=_("label")
    )
    accepted = models.ManyToManyField(Label, related_name="+", verbose_name=_("accepted"))
    explanation = models.TextField(
        blank=True, max_length=MAX_EXPLANATION, verbose_name=_("explanation")
    )
    purpose = models.CharField(
        max_length=10,
        choices=GoldPurpose.choices,
        default=GoldPurpose.HONEYPOT,
        verbose_name=_("purpose"),
    )
    manager = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("manager"),
    )
    # Whether marking it gold made the item's ruling (unmarking then removes it again).
    made_ruling = models.BooleanField(default=False, verbose_name=_("made ruling"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    changed_at = models.DateTimeField(auto_now=True, verbose_name=_("changed at"))

    class Meta:
        verbose_name = _("gold item")
        verbose_name_plural = _("gold items")

    def __str__(self) -> str:
        return f"gold {self.pool_item_id}: {self.label_id}"


class GoldTask(models.Model):
    """A side-by-side task with its accepted verdict, in the candidate's terms (G: candidate
    better); raters see its sides shuffled as on any task."""

    task = models.OneToOneField(
        SxsTask, on_delete=models.CASCADE, related_name="gold_entry", verbose_name=_("task")
    )
    value = models.CharField(max_length=1, choices=VerdictValue.choices, verbose_name=_("value"))
    explanation = models.TextField(
        blank=True, max_length=MAX_EXPLANATION, verbose_name=_("explanation")
    )
    purpose = models.CharField(
        max_length=10,
        choices=GoldPurpose.choices,
        default=GoldPurpose.HONEYPOT,
        verbose_name=_("purpose"),
    )
    manager = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("manager"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    changed_at = models.DateTimeField(auto_now=True, verbose_name=_("changed at"))

    class Meta:
        verbose_name = _("gold task")
        verbose_name_plural = _("gold tasks")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(value__in=["G", "S", "B"]), name="goldtask_value_gsb"
            )
        ]

    def __str__(self) -> str:
        return f"gold task {self.task_id}: {self.value}"
