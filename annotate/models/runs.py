"""Systems under evaluation and their ranked runs."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from annotate.models.campaigns import Campaign
from annotate.models.corpus import Document, Query


class System(models.Model):
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="systems", verbose_name=_("campaign")
    )
    name = models.CharField(max_length=200, verbose_name=_("name"))
    description = models.TextField(blank=True, verbose_name=_("description"))
    is_production = models.BooleanField(
        default=False,
        help_text=_(
            "The system in production: the baseline the systems page compares the others "
            "with, query by query."
        ),
        verbose_name=_("is production"),
    )

    class Meta:
        verbose_name = _("system")
        verbose_name_plural = _("systems")
        ordering = ["campaign", "name"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="system_unique_name")
        ]

    def __str__(self) -> str:
        return self.name


class Run(models.Model):
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="runs", verbose_name=_("campaign")
    )
    system = models.ForeignKey(
        System, on_delete=models.CASCADE, related_name="runs", verbose_name=_("system")
    )
    name = models.CharField(max_length=200, help_text=_("The run tag."), verbose_name=_("name"))
    source_file = models.CharField(max_length=300, blank=True, verbose_name=_("source file"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    # Raised each time the run's entries are replaced in place (imports/runs.py): what was
    # computed from the entries under another version is stale (annotate/ranking.py's cache).
    entries_version = models.PositiveIntegerField(
        default=0, editable=False, verbose_name=_("entries version")
    )

    class Meta:
        verbose_name = _("run")
        verbose_name_plural = _("runs")
        ordering = ["campaign", "name"]
        constraints = [models.UniqueConstraint(fields=["campaign", "name"], name="run_unique_name")]

    def __str__(self) -> str:
        return self.name


class RunEntry(models.Model):
    """One ranked document. Order is by score, then document id descending (DESIGN.md §4);
    the rank column is kept for display, and orders runs that have no scores."""

    # No index of their own: the (run, query, rank) index begins with the run and the unique
    # (query, run, document) with the query, which is what a cascade or a lookup needs. Each
    # index costs every run import a million more keys (benchmarks/README.md, "Imports"). On
    # PostgreSQL the document's own index is dropped too (migration 0033, which says why and
    # what a document's delete does without it); SQLite keeps it for Django's batched cascade.
    # No database foreign keys (db_constraint=False): their per-row checks were most of a
    # PostgreSQL run import (three checks an entry, about 20 s for a million), and only a
    # superuser may skip them. Entries are written only by the importers, whose one
    # INSERT ... SELECT joins every referenced row and locks it FOR KEY SHARE as the checks
    # would (imports/staging.py); deletes still cascade (Django's collector), and on PostgreSQL
    # a statement trigger of migration 0026 refuses to delete a run, query or document that
    # entries still point at, as the keys' own triggers did (a delete racing an import).
    run = models.ForeignKey(
        Run,
        on_delete=models.CASCADE,
        related_name="entries",
        db_index=False,
        db_constraint=False,
        verbose_name=_("run"),
    )
    query = models.ForeignKey(
        Query,
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        db_constraint=False,
        verbose_name=_("query"),
    )
    document = models.ForeignKey(
        Document,
        on_delete=models.CASCADE,
        related_name="+",
        db_constraint=False,
        verbose_name=_("document"),
    )
    rank = models.IntegerField(verbose_name=_("rank"))
    score = models.FloatField(null=True, blank=True, verbose_name=_("score"))

    class Meta:
        verbose_name = _("run entry")
        verbose_name_plural = _("run entries")
        constraints = [
            models.UniqueConstraint(
                fields=["query", "run", "document"], name="runentry_unique_document"
            )
        ]
        indexes = [models.Index(fields=["run", "query", "rank"])]

    def __str__(self) -> str:
        return f"{self.run_id}/{self.query_id}/{self.document_id}@{self.rank}"
