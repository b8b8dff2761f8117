"""Labels that do not come from the campaign's raters: imported qrels, a competitor's
ranking, clicks or purchases. Each source is a named, complete set of qrels."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from annotate.models.campaigns import Campaign
from annotate.models.corpus import Document, Query


class SourceKind(models.TextChoices):
    IMPORTED = "imported", _("Imported qrels")
    COMPETITOR = "competitor", _("Competitor's ranking")
    CLICKS = "clicks", _("Clicks")
    PURCHASES = "purchases", _("Purchases")
    MODEL = "model", _("Language model")


class LabelSource(models.Model):
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="label_sources", verbose_name=_("campaign")
    )
    name = models.CharField(max_length=200, verbose_name=_("name"))
    kind = models.CharField(
        max_length=12, choices=SourceKind.choices, default="imported", verbose_name=_("kind")
    )
    description = models.TextField(blank=True, verbose_name=_("description"))
    params = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("How the labels were derived."),
        verbose_name=_("params"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("label source")
        verbose_name_plural = _("label sources")
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="labelsource_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class SourceLabel(models.Model):
    source = models.ForeignKey(
        LabelSource, on_delete=models.CASCADE, related_name="labels", verbose_name=_("source")
    )
    query = models.ForeignKey(
        Query, on_delete=models.CASCADE, related_name="+", verbose_name=_("query")
    )
    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="+", verbose_name=_("document")
    )
    grade = models.FloatField(
        help_text=_("Negative: pooled but not judged (trec_eval)."), verbose_name=_("grade")
    )

    class Meta:
        verbose_name = _("source label")
        verbose_name_plural = _("source labels")
        constraints = [
            models.UniqueConstraint(
                fields=["source", "query", "document"], name="sourcelabel_unique_pair"
            )
        ]

    def __str__(self) -> str:
        return f"{self.source_id}: {self.query_id}/{self.document_id}={self.grade:g}"
