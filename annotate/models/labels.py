"""Labels that do not come from the campaign's raters: imported qrels, a competitor's
ranking, clicks or purchases. Each source is a named, complete set of qrels."""

from __future__ import annotations

from django.db import models

from annotate.models.campaigns import Campaign
from annotate.models.corpus import Document, Query


class SourceKind(models.TextChoices):
    IMPORTED = "imported", "Imported qrels"
    COMPETITOR = "competitor", "Competitor's ranking"
    CLICKS = "clicks", "Clicks"
    PURCHASES = "purchases", "Purchases"
    MODEL = "model", "Language model"


class LabelSource(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="label_sources")
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=12, choices=SourceKind.choices, default="imported")
    description = models.TextField(blank=True)
    params = models.JSONField(default=dict, blank=True, help_text="How the labels were derived.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="labelsource_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class SourceLabel(models.Model):
    source = models.ForeignKey(LabelSource, on_delete=models.CASCADE, related_name="labels")
    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    grade = models.FloatField(help_text="Negative: pooled but not judged (trec_eval).")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "query", "document"], name="sourcelabel_unique_pair"
            )
        ]

    def __str__(self) -> str:
        return f"{self.source_id}: {self.query_id}/{self.document_id}={self.grade:g}"
