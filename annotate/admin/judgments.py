"""Admin for the pool, the raters' grades, their history and skips."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Count, Q
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from annotate import models as m
from annotate.admin.scoping import (
    ScopedAdmin,
    ScopedPermissions,
    ScopedRelatedFilter,
    document_label,
    managed_campaign_ids,
    via,
)


@admin.register(m.PoolItem)
class PoolItemAdmin(ScopedAdmin):
    list_display = (
        "query",
        "document_shown",
        "campaign",
        "raters_needed_shown",
        "n_counted_grades",
        "origin",
        "created_at",
    )
    list_filter = ("origin", ("campaign", ScopedRelatedFilter))
    search_fields = ("query__external_id", "query__text", "document__external_id")
    list_select_related = ("campaign", "query", "document")
    raw_id_fields = ("query", "document")
    autocomplete_fields = ("campaign",)
    readonly_fields = ("created_at",)
    show_full_result_count = False

    def get_queryset(self, request: HttpRequest):
        # "Can't judge" answers do not count towards the raters an item needs.
        counted = Count("grades", filter=Q(grades__cant_judge=False, grades__gold=False))
        return super().get_queryset(request).annotate(_counted=counted)

    document_shown = via("document", _("document"), "document__external_id", document_label)

    @admin.display(description=_("raters needed"))
    def raters_needed_shown(self, obj: m.PoolItem) -> int:
        return obj.needed

    @admin.display(description=_("counted grades"), ordering="_counted")
    def n_counted_grades(self, obj: m.PoolItem) -> int:
        return obj._counted


class LabelNameFilter(admin.SimpleListFilter):
    """Labels by name: every campaign has its own Good, and one "Good" entry reads better
    than one per campaign."""

    title = "label"
    parameter_name = "label_name"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        labels = m.Label.objects.order_by("-grade", "name")
        ids = managed_campaign_ids(request)
        if ids is not None:
            labels = labels.filter(campaign__in=ids)
        return [(name, name) for name in dict.fromkeys(labels.values_list("name", flat=True))]

    def queryset(self, request: HttpRequest, queryset: Any) -> Any:
        return queryset.filter(label__name=self.value()) if self.value() else queryset


class GradeChangeInline(ScopedPermissions, admin.TabularInline):
    model = m.GradeChange
    extra = 0
    fields = ("label", "cant_judge", "comment", "given_at", "replaced_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(m.Grade)
class GradeAdmin(ScopedAdmin):
    list_display = (
        "campaign",
        "query",
        "document",
        "rater",
        "label",
        "cant_judge_shown",
        "seconds",
        "changed_at",
    )
    list_filter = (
        ("pool_item__campaign", ScopedRelatedFilter),
        LabelNameFilter,
        "cant_judge",
        ("rater", ScopedRelatedFilter),
    )
    search_fields = (
        "rater__username",
        "pool_item__query__external_id",
        "pool_item__query__text",
        "pool_item__document__external_id",
        "comment",
    )
    list_select_related = (
        "pool_item__campaign",
        "pool_item__query",
        "pool_item__document",
        "rater",
        "label",
    )
    raw_id_fields = ("pool_item", "rater")
    readonly_fields = ("created_at", "changed_at")
    date_hierarchy = "changed_at"
    inlines = (GradeChangeInline,)
    show_full_result_count = False

    campaign = via("pool_item__campaign", _("campaign"), "pool_item__campaign__name")

    query = via("pool_item__query", _("query"), "pool_item__query__external_id")
    document = via(
        "pool_item__document", _("document"), "pool_item__document__external_id", document_label
    )

    @admin.display(description=_("can't judge"), boolean=True, ordering="cant_judge")
    def cant_judge_shown(self, obj: m.Grade) -> bool:
        return obj.cant_judge

    def save_model(self, request: HttpRequest, obj: m.Grade, form: Any, change: bool) -> None:
        # An edit here is still a change of a rater's grade: keep the old value in the history,
        # as the rater's own edits do, so agreement studies can see what was overwritten.
        if change and {"label", "cant_judge", "comment"} & set(form.changed_data):
            old = m.Grade.objects.get(pk=obj.pk)
            m.GradeChange.objects.create(
                grade=obj,
                label=old.label,
                cant_judge=old.cant_judge,
                comment=old.comment,
                given_at=old.changed_at,
            )
        super().save_model(request, obj, form, change)


@admin.register(m.GradeChange)
class GradeChangeAdmin(ScopedAdmin):
    """History is read-only: a history that can be edited by hand records nothing."""

    list_display = ("query", "document", "rater", "label", "cant_judge", "given_at", "replaced_at")
    list_filter = ("cant_judge",)
    search_fields = ("grade__rater__username", "grade__pool_item__query__external_id")
    list_select_related = (
        "grade__rater",
        "grade__pool_item__query",
        "grade__pool_item__document",
        "label",
    )
    raw_id_fields = ("grade",)
    date_hierarchy = "replaced_at"

    query = via("grade__pool_item__query", _("query"), "grade__pool_item__query__external_id")
    document = via(
        "grade__pool_item__document",
        _("document"),
        "grade__pool_item__document__external_id",
        document_label,
    )
    rater = via("grade__rater", _("rater"), "grade__rater__username")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(m.Skip)
class SkipAdmin(ScopedAdmin):
    list_display = ("query", "document", "rater", "created_at")
    list_filter = (("pool_item__campaign", ScopedRelatedFilter), ("rater", ScopedRelatedFilter))
    search_fields = ("rater__username", "pool_item__query__external_id")
    list_select_related = ("pool_item__query", "pool_item__document", "rater")
    raw_id_fields = ("pool_item", "rater")
    readonly_fields = ("created_at",)
    query = via("pool_item__query", _("query"), "pool_item__query__external_id")
    document = via(
        "pool_item__document", _("document"), "pool_item__document__external_id", document_label
    )


@admin.register(m.Lease)
class LeaseAdmin(ScopedAdmin):
    """Who holds which item in their queue right now; deleting a lease frees the item."""

    list_display = ("query", "document", "rater", "expires_at", "created_at")
    list_filter = (("pool_item__campaign", ScopedRelatedFilter), ("rater", ScopedRelatedFilter))
    search_fields = ("rater__username", "pool_item__query__external_id")
    list_select_related = ("pool_item__query", "pool_item__document", "rater")
    raw_id_fields = ("pool_item", "rater")
    readonly_fields = ("created_at",)
    query = via("pool_item__query", _("query"), "pool_item__query__external_id")
    document = via(
        "pool_item__document", _("document"), "pool_item__document__external_id", document_label
    )


@admin.register(m.AnswerClaim)
class AnswerClaimAdmin(admin.ModelAdmin):
    """The one-answer rule's bookkeeping, kept by database triggers (annotate/claims.py): for
    superusers to read, never to edit."""

    list_display = ("kind", "task_id", "rater_id")
    list_filter = ("kind",)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_superuser

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
