"""Systems under evaluation and their ranked runs."""

from __future__ import annotations

from django.db import models

from annotate.models.campaigns import Campaign
from annotate.models.corpus import Document, Query


class System(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="systems")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    is_production = models.BooleanField(
        default=False,
        help_text="The system in production: the baseline the systems page compares the others "
        "with, query by query.",
    )

    class Meta:
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="system_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class Run(models.Model):
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="runs")
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="runs")
    name = models.CharField(max_length=200, help_text="The run tag.")
    source_file = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Raised each time the run's entries are replaced in place (imports/runs.py): what was
    # computed from the entries under another version is stale (annotate/ranking.py's cache).
    entries_version = models.PositiveIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["campaign", "name"]
        constraints = [models.UniqueConstraint(fields=["campaign", "name"], name="run_unique_name")]

    def __str__(self) -> str:
        return self.name


class RunEntry(models.Model):
    """One ranked document. Order is by score, then document id descending (DESIGN.md §4);
    the rank column is kept for display, and orders runs that have no scores."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="entries")
    query = models.ForeignKey(Query, on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    rank = models.IntegerField()
    score = models.FloatField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "run entries"
        constraints = [
            models.UniqueConstraint(
                fields=["run", "query", "document"], name="runentry_unique_document"
            )
        ]
        indexes = [models.Index(fields=["run", "query", "rank"])]

    def __str__(self) -> str:
        return f"{self.run_id}/{self.query_id}/{self.document_id}@{self.rank}"
