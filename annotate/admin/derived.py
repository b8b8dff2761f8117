"""Admin for managers' adjudications and the aggregated behaviour logs behind click- and
purchase-derived labels."""

from __future__ import annotations

from django.contrib import admin

from annotate import models as m
from annotate.admin.scoping import ScopedAdmin, ScopedRelatedFilter


@admin.register(m.Adjudication)
class AdjudicationAdmin(ScopedAdmin):
    list_display = ("query_id_shown", "document_shown", "label", "manager", "changed_at")
    list_filter = ("label__name",)
    search_fields = (
        "pool_item__query__external_id",
        "pool_item__document__external_id",
        "note",
    )
    list_select_related = ("pool_item__query", "pool_item__document", "label", "manager")
    raw_id_fields = ("pool_item", "manager")
    readonly_fields = ("created_at", "changed_at")
    date_hierarchy = "changed_at"

    @admin.display(description="query", ordering="pool_item__query__external_id")
    def query_id_shown(self, obj: m.Adjudication) -> str:
        return obj.pool_item.query.external_id

    @admin.display(description="document", ordering="pool_item__document__external_id")
    def document_shown(self, obj: m.Adjudication) -> str:
        return obj.pool_item.document.external_id


@admin.register(m.BehaviourLog)
class BehaviourLogAdmin(ScopedAdmin):
    list_display = ("name", "campaign", "rows", "matched_rows", "has_conversions", "created_at")
    list_filter = ("has_conversions", "has_dwell", ("campaign", ScopedRelatedFilter))
    search_fields = ("name", "source_file")
    list_select_related = ("campaign",)
    autocomplete_fields = ("campaign",)
    readonly_fields = ("created_at",)


@admin.register(m.BehaviourPosition)
class BehaviourPositionAdmin(ScopedAdmin):
    list_display = ("log", "position", "impressions", "clicks", "conversions")
    search_fields = ("log__name",)
    list_select_related = ("log",)
    raw_id_fields = ("log",)


@admin.register(m.BehaviourStat)
class BehaviourStatAdmin(ScopedAdmin):
    list_display = ("log", "query", "document", "position", "impressions", "clicks")
    search_fields = ("query__external_id", "document__external_id", "log__name")
    list_select_related = ("log", "query", "document")
    raw_id_fields = ("log", "query", "document")
    show_full_result_count = False
