"""Users' behaviour logs, stored aggregated: what click- and purchase-derived labels are made
from (annotate.services.labels).

A log of ten million rows is not kept row by row. The import sums it per (query, document,
position) for the campaign's queries and documents, and per position over the whole log (every
row, the campaign's or not), which is what CTR(p) needs.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from annotate.models.campaigns import Campaign
from annotate.models.corpus import Document, Query


class BehaviourLog(models.Model):
    campaign = models.ForeignKey(
        Campaign,
        on_delete=models.CASCADE,
        related_name="behaviour_logs",
        verbose_name=_("campaign"),
    )
    name = models.CharField(max_length=200, verbose_name=_("name"))
    source_file = models.CharField(max_length=300, blank=True, verbose_name=_("source file"))
    rows = models.BigIntegerField(default=0, help_text=_("Data rows read."), verbose_name=_("rows"))
    matched_rows = models.BigIntegerField(
        default=0,
        help_text=_("Rows of the campaign's queries and documents."),
        verbose_name=_("matched rows"),
    )
    unknown_query_rows = models.BigIntegerField(default=0, verbose_name=_("unknown query rows"))
    unknown_document_rows = models.BigIntegerField(
        default=0, verbose_name=_("unknown document rows")
    )
    has_conversions = models.BooleanField(default=False, verbose_name=_("has conversions"))
    has_dwell = models.BooleanField(default=False, verbose_name=_("has dwell"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("behaviour log")
        verbose_name_plural = _("behaviour logs")
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="behaviourlog_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class BehaviourPosition(models.Model):
    """Whole-log totals at one position (every row, whatever its query): CTR(p)'s counts."""

    log = models.ForeignKey(
        BehaviourLog, on_delete=models.CASCADE, related_name="positions", verbose_name=_("log")
    )
    position = models.PositiveIntegerField(verbose_name=_("position"))
    impressions = models.BigIntegerField(verbose_name=_("impressions"))
    clicks = models.BigIntegerField(verbose_name=_("clicks"))
    conversions = models.BigIntegerField(default=0, verbose_name=_("conversions"))

    class Meta:
        verbose_name = _("behaviour position")
        verbose_name_plural = _("behaviour positions")
        ordering = ["log", "position"]
        constraints = [
            models.UniqueConstraint(fields=["log", "position"], name="behaviourposition_unique")
        ]

    def __str__(self) -> str:
        return f"{self.log_id}@{self.position}: {self.clicks}/{self.impressions}"


class BehaviourStat(models.Model):
    """One (query, document, position) of a log, summed over its rows."""

    log = models.ForeignKey(
        BehaviourLog, on_delete=models.CASCADE, related_name="stats", verbose_name=_("log")
    )
    query = models.ForeignKey(
        Query, on_delete=models.CASCADE, related_name="+", verbose_name=_("query")
    )
    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="+", verbose_name=_("document")
    )
    position = models.PositiveIntegerField(verbose_name=_("position"))
    impressions = models.BigIntegerField(verbose_name=_("impressions"))
    clicks = models.BigIntegerField(verbose_name=_("clicks"))
    conversions = models.BigIntegerField(default=0, verbose_name=_("conversions"))
    dwell_seconds = models.FloatField(
        default=0.0, help_text=_("Total dwell time of the clicks."), verbose_name=_("dwell seconds")
    )

    class Meta:
        verbose_name = _("behaviour stat")
        verbose_name_plural = _("behaviour stats")
        constraints = [
            models.UniqueConstraint(
                fields=["log", "query", "document", "position"], name="behaviourstat_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.log_id}: {self.query_id}/{self.document_id}@{self.position}"
