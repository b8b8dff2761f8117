"""Stored report results, so a manager's page reads numbers instead of recomputing them.

A snapshot is one computation for one campaign: the system scores under one label source (or
the raters' aggregate by one rule) and one set of measure settings, the rater agreement, or the
judging progress (per rater, over time, the pool's completion).
It keeps a fingerprint of its inputs; when the inputs' fingerprint no longer matches, the
snapshot is stale and is recomputed on the next view (or by ``manage.py recompute_reports``).
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotate.models import Campaign, LabelSource


class SnapshotKind(models.TextChoices):
    SCORES = "scores", "System scores"
    AGREEMENT = "agreement", "Rater agreement"
    PROGRESS = "progress", "Judging progress"


class EvaluationSnapshot(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=10, choices=SnapshotKind.choices)
    # Null: the raters' grades aggregated by `rule`; otherwise an imported source (rule
    # "source").
    label_source = models.ForeignKey(
        LabelSource, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    # Wide enough for every rule ("dawid_skene" is 11: PostgreSQL refused its snapshots).
    rule = models.CharField(max_length=20, blank=True)
    settings_key = models.CharField(
        max_length=200,
        blank=True,
        help_text=_("Canonical measure settings, e.g. k=10;gain=linear."),
    )
    computed_at = models.DateTimeField()
    seconds = models.FloatField(help_text=_("How long the computation took."))
    fingerprint = models.JSONField(help_text=_("What the inputs looked like when computed."))
    summary = models.JSONField(help_text=_("What the pages show: means, intervals, curves."))
    per_query = models.JSONField(default=dict, help_text=_("Per-query values, for comparisons."))
    charts = models.JSONField(default=dict, help_text=_("SVG charts drawn from the summary."))

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "kind", "rule", "settings_key"],
                condition=Q(label_source__isnull=True),
                name="snapshot_unique_aggregate",
            ),
            models.UniqueConstraint(
                fields=["campaign", "kind", "label_source", "settings_key"],
                condition=Q(label_source__isnull=False),
                name="snapshot_unique_source",
            ),
        ]

    def __str__(self) -> str:
        source = self.label_source_id or self.rule or "-"
        return f"{self.kind} of {self.campaign_id} ({source}; {self.settings_key})"
