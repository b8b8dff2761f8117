"""Queries and documents of a campaign."""

from __future__ import annotations

from django.db import models

from annotate.models.campaigns import Campaign


class Query(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="queries")
    external_id = models.CharField(max_length=200)
    text = models.TextField()
    description = models.TextField(blank=True, help_text="The intent behind the query, if known.")
    # Above 0, the graded queue serves the query before the others, highest first: set by a
    # manager from a model judge's doubts (llmjudge/queue_order.py). It carries no rank or
    # system, so it keeps the queue blind.
    priority = models.PositiveSmallIntegerField(default=0)

    class Meta:
        verbose_name_plural = "queries"
        ordering = ["campaign", "external_id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "external_id"], name="query_unique_extid")
        ]

    def __str__(self) -> str:
        return f"{self.external_id}: {self.text[:60]}"


class Document(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="documents")
    external_id = models.CharField(max_length=300)
    title = models.TextField(blank=True)
    url = models.URLField(max_length=2048, blank=True)
    snippet = models.TextField(blank=True)
    extra = models.JSONField(default=dict, blank=True)
    # Known only by id (seen in a run before its content was imported); a later
    # document import fills it in.
    is_placeholder = models.BooleanField(default=False)

    class Meta:
        ordering = ["campaign", "external_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "external_id"], name="document_unique_extid"
            )
        ]
        indexes = [models.Index(fields=["campaign", "is_placeholder"])]

    def __str__(self) -> str:
        return self.external_id
