"""Queries and documents of a campaign."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from annotate.models.campaigns import Campaign


class Query(models.Model):
    campaign = models.ForeignKey(
        Campaign, on_delete=models.CASCADE, related_name="queries", verbose_name=_("campaign")
    )
    external_id = models.CharField(max_length=200, verbose_name=_("external id"))
    text = models.TextField(verbose_name=_("text"))
    description = models.TextField(
        blank=True,
        help_text=_("The intent behind the query, if known."),
        verbose_name=_("description"),
    )
    # Above 0, the graded queue serves the query before the others, highest first: set by a
    # manager from a model judge's doubts (llmjudge/queue_order.py). It carries no rank or
    # system, so it keeps the queue blind.
    priority = models.PositiveSmallIntegerField(default=0, verbose_name=_("priority"))

    class Meta:
        verbose_name = _("query")
        verbose_name_plural = _("queries")
        ordering = ["campaign", "external_id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "external_id"], name="query_unique_extid")
        ]

    def __str__(self) -> str:
        return f"{self.external_id}: {self.text[:60]}"


class Document(models.Model):
    # No index of its own: the unique (campaign, external_id) begins with the campaign.
    # No database constraint either: its per-row check ran once per document at commit (about
    # 2.4 s of server CPU for the million placeholders of a big run, always the same campaign).
    # On PostgreSQL a statement trigger of migration 0026 checks the new rows' few distinct
    # campaigns at once and locks them FOR KEY SHARE, as the key's checks did, and another
    # refuses to delete a campaign that documents still point at; deletes cascade in Django.
    campaign = models.ForeignKey(
        Campaign,
        on_delete=models.CASCADE,
        related_name="documents",
        db_index=False,
        db_constraint=False,
        verbose_name=_("campaign"),
    )
    external_id = models.CharField(max_length=300, verbose_name=_("external id"))
    title = models.TextField(blank=True, verbose_name=_("title"))
    url = models.URLField(max_length=2048, blank=True, verbose_name=_("url"))
    snippet = models.TextField(blank=True, verbose_name=_("snippet"))
    extra = models.JSONField(default=dict, blank=True, verbose_name=_("extra"))
    # Known only by id (seen in a run before its content was imported); a later
    # document import fills it in.
    is_placeholder = models.BooleanField(default=False, verbose_name=_("is placeholder"))

    class Meta:
        verbose_name = _("document")
        verbose_name_plural = _("documents")
        ordering = ["campaign", "external_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["campaign", "external_id"], name="document_unique_extid"
            )
        ]
        # The campaign's known documents only: placeholders (a big run makes a million) never
        # enter it, so making them costs one index fewer; counts and lists of placeholders
        # are the campaign's documents less these (selectors/access.py, services/pooling.py).
        indexes = [
            models.Index(
                fields=["campaign"],
                condition=models.Q(is_placeholder=False),
                name="document_known",
            )
        ]

    def __str__(self) -> str:
        return self.external_id
