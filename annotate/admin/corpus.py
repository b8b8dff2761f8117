"""Admin for queries, documents, systems, runs and imported label sources."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db import models
from django.db.models import Q
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from annotate import models as m
from annotate.admin.campaigns import summarised_deletion
from annotate.admin.scoping import ScopedAdmin, ScopedRelatedFilter, count_of


@admin.register(m.Query)
class QueryAdmin(ScopedAdmin):
    list_display = ("external_id", "text", "campaign", "has_intent")
    list_filter = (("campaign", ScopedRelatedFilter),)
    search_fields = ("external_id", "text", "description")
    list_select_related = ("campaign",)
    autocomplete_fields = ("campaign",)

    @admin.display(description=_("intent"), boolean=True)
    def has_intent(self, obj: m.Query) -> bool:
        return bool(obj.description)


@admin.register(m.Document)
class DocumentAdmin(ScopedAdmin):
    list_display = ("external_id", "title", "url", "campaign", "is_placeholder")
    list_filter = ("is_placeholder", ("campaign", ScopedRelatedFilter))
    search_fields = ("external_id", "title", "url")
    list_select_related = ("campaign",)
    autocomplete_fields = ("campaign",)
    show_full_result_count = False
    # Django 6 makes https the default scheme of typed-in URLs; shops are https anyway.
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}


@admin.register(m.System)
class SystemAdmin(ScopedAdmin):
    list_display = ("name", "campaign", "description", "is_production", "n_runs")
    list_filter = (("campaign", ScopedRelatedFilter), "is_production")
    search_fields = ("name", "description", "campaign__name")
    list_select_related = ("campaign",)
    autocomplete_fields = ("campaign",)

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).annotate(_runs=count_of(m.Run, "system"))

    @admin.display(description=_("runs"), ordering="_runs")
    def n_runs(self, obj: m.System) -> int:
        return obj._runs

    def get_deleted_objects(self, objs: Any, request: HttpRequest):
        objs = list(objs)
        if not objs:
            return super().get_deleted_objects(objs, request)
        return summarised_deletion(
            objs,
            {m.Run: Q(system__in=objs), m.RunEntry: Q(run__system__in=objs)},
            _comparisons_using(Q(baseline__system__in=objs) | Q(candidate__system__in=objs)),
        )


def _comparisons_using(condition: Q) -> list[str]:
    """Comparisons that protect the runs about to be deleted (on_delete=PROTECT)."""
    return [f"Comparison: {c}" for c in m.Comparison.objects.filter(condition)]


@admin.register(m.Run)
class RunAdmin(ScopedAdmin):
    list_display = ("name", "system", "campaign", "n_entries", "source_file", "created_at")
    list_filter = (("campaign", ScopedRelatedFilter), ("system", ScopedRelatedFilter))
    search_fields = ("name", "system__name", "source_file")
    list_select_related = ("system", "campaign")
    autocomplete_fields = ("campaign", "system")
    readonly_fields = ("created_at",)
    date_hierarchy = "created_at"

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).annotate(_entries=count_of(m.RunEntry, "run"))

    @admin.display(description=_("entries"), ordering="_entries")
    def n_entries(self, obj: m.Run) -> int:
        return obj._entries

    def get_deleted_objects(self, objs: Any, request: HttpRequest):
        objs = list(objs)
        if not objs:
            return super().get_deleted_objects(objs, request)
        return summarised_deletion(
            objs,
            {m.RunEntry: Q(run__in=objs)},
            _comparisons_using(Q(baseline__in=objs) | Q(candidate__in=objs)),
        )


@admin.register(m.RunEntry)
class RunEntryAdmin(ScopedAdmin):
    list_display = ("run", "query", "rank", "score", "document")
    list_filter = (("run", ScopedRelatedFilter),)
    search_fields = ("query__external_id", "document__external_id", "run__name")
    list_select_related = ("run", "query", "document")
    raw_id_fields = ("run", "query", "document")
    ordering = ("run", "query", "rank")
    # Runs have millions of entries: counting them all on every page costs more than it tells.
    show_full_result_count = False


@admin.register(m.LabelSource)
class LabelSourceAdmin(ScopedAdmin):
    list_display = ("name", "campaign", "kind", "n_labels", "created_at")
    list_filter = ("kind", ("campaign", ScopedRelatedFilter))
    search_fields = ("name", "description", "campaign__name")
    list_select_related = ("campaign",)
    autocomplete_fields = ("campaign",)
    readonly_fields = ("created_at",)

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).annotate(_labels=count_of(m.SourceLabel, "source"))

    @admin.display(description=_("labels"), ordering="_labels")
    def n_labels(self, obj: m.LabelSource) -> int:
        return obj._labels

    def get_deleted_objects(self, objs: Any, request: HttpRequest):
        objs = list(objs)
        if not objs:
            return super().get_deleted_objects(objs, request)
        return summarised_deletion(objs, {m.SourceLabel: Q(source__in=objs)}, [])


@admin.register(m.SourceLabel)
class SourceLabelAdmin(ScopedAdmin):
    list_display = ("source", "query", "document", "grade")
    list_filter = (("source", ScopedRelatedFilter),)
    search_fields = ("query__external_id", "document__external_id")
    list_select_related = ("source", "query", "document")
    raw_id_fields = ("source", "query", "document")
    show_full_result_count = False
