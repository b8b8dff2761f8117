"""Users' behaviour logs, stored aggregated: what click- and purchase-derived labels are made
from (annotate.services.labels).

A log of ten million rows is not kept row by row. The import sums it per (query, document,
position) for the campaign's queries and documents, and per position over the whole log (every
row, the campaign's or not), which is what CTR(p) needs.
"""

from __future__ import annotations

from django.db import models

from annotate.models.campaigns import Campaign
from annotate.models.corpus import Document, Query


class BehaviourLog(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="behaviour_logs")
    name = models.CharField(max_length=200)
    source_file = models.CharField(max_length=300, blank=True)
    rows = models.BigIntegerField(default=0, help_text="Data rows read.")
    matched_rows = models.BigIntegerField(
        default=0, help_text="Rows of the campaign's queries and documents."
    )
    unknown_query_rows = models.BigIntegerField(default=0)
    unknown_document_rows = models.BigIntegerField(default=0)
    has_conversions = models.BooleanField(default=False)
    has_dwell = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="behaviourlog_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class BehaviourPosition(models.Model):
    """Whole-log totals at one position (every row, whatever its query): CTR(p)'s counts."""

    log = models.ForeignKey(BehaviourLog, on_delete=models.CASCADE, related_name="positions")
    position = models.PositiveIntegerField()
    impressions = models.BigIntegerField()
    clicks = models.BigIntegerField()
    conversions = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["log", "position"]
        constraints = [
            models.UniqueConstraint(fields=["log", "position"], name="behaviourposition_unique")
        ]

    def __str__(self) -> str:
        return f"{self.log_id}@{self.position}: {self.clicks}/{self.impressions}"


class BehaviourStat(models.Model):
    """One (query, document, position) of a log, summed over its rows."""

    log = models.ForeignKey(BehaviourLog, on_delete=models.CASCADE, related_name="stats")
    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveIntegerField()
    impressions = models.BigIntegerField()
    clicks = models.BigIntegerField()
    conversions = models.BigIntegerField(default=0)
    dwell_seconds = models.FloatField(default=0.0, help_text="Total dwell time of the clicks.")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["log", "query", "document", "position"], name="behaviourstat_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.log_id}: {self.query_id}/{self.document_id}@{self.position}"
