"""Admin for managers' adjudications and gold, and the aggregated behaviour logs behind click-
and purchase-derived labels."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

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

    @admin.display(description=_("query"), ordering="pool_item__query__external_id")
    def query_id_shown(self, obj: m.Adjudication) -> str:
        return obj.pool_item.query.external_id

    @admin.display(description=_("document"), ordering="pool_item__document__external_id")
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


class _ShownOnly:
    """Gold is written on the manager's gold page (annotate/services/gold.py), which keeps the
    task's and its answers' gold flags with it; here it is only shown (and never deleted:
    that would leave the flags behind)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(m.GoldItem)
class GoldItemAdmin(_ShownOnly, ScopedAdmin):
    list_display = ("pool_item", "label", "purpose", "manager", "changed_at")
    list_filter = ("purpose",)
    search_fields = ("pool_item__query__external_id", "pool_item__document__external_id")
    list_select_related = ("pool_item", "label", "manager")
    raw_id_fields = ("pool_item", "manager")


@admin.register(m.GoldTask)
class GoldTaskAdmin(_ShownOnly, ScopedAdmin):
    list_display = ("task", "value", "purpose", "manager", "changed_at")
    list_filter = ("purpose", "value")
    search_fields = ("task__query__external_id",)
    list_select_related = ("task", "manager")
    raw_id_fields = ("task", "manager")


@admin.register(m.QualityEvent)
class QualityEventAdmin(ScopedAdmin):
    """The record of raters paused, resumed, flagged and excluded (#18): read only, since the
    rater quality page and its services make the changes (and release the leases)."""

    list_display = ("membership", "action", "by", "at")
    list_filter = ("action",)
    list_select_related = ("membership__user", "membership__campaign", "by")
    readonly_fields = ("membership", "action", "reason", "by", "at")

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
