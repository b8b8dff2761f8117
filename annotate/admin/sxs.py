"""Admin for side-by-side comparisons, their tasks and the raters' verdicts."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from annotate import models as m
from annotate.admin.scoping import (
    ScopedAdmin,
    ScopedPermissions,
    ScopedRelatedFilter,
    count_of,
    via,
)
from annotate.services.sxs_plan import PLAN_FIELDS


@admin.register(m.Comparison)
class ComparisonAdmin(ScopedAdmin):
    list_display = (
        "name",
        "campaign",
        "baseline",
        "candidate",
        "unit",
        "depth",
        "raters_per_task",
        "n_tasks",
        "created_at",
    )
    list_filter = ("unit", ("campaign", ScopedRelatedFilter))
    search_fields = ("name", "baseline__name", "candidate__name", "campaign__name")
    list_select_related = ("campaign", "baseline", "candidate")
    autocomplete_fields = ("campaign", "baseline", "candidate")
    readonly_fields = ("created_at",)
    fieldsets = (
        (None, {"fields": ("campaign", "name", "baseline", "candidate")}),
        (_("Tasks"), {"fields": ("unit", "depth", "raters_per_task", "seed")}),
        (
            _(
                "Launch decision (the plan: change it on the comparison's plan page, which "
                "records who changed it, when and why)"
            ),
            {"fields": PLAN_FIELDS},
        ),
        (_("Record"), {"fields": ("created_at",)}),
    )

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).annotate(_tasks=count_of(m.SxsTask, "comparison"))

    def get_readonly_fields(self, request: HttpRequest, obj: m.Comparison | None = None):
        # A plan changes only through the plan page, which records who, when and why (#17); a
        # silent edit here would let the data choose the rule that judges it. The raters per
        # task are fixed once anyone has answered.
        if obj is None:
            return self.readonly_fields
        fixed = (*PLAN_FIELDS, "raters_per_task")
        if not m.Verdict.objects.filter(task__comparison=obj).exists():
            fixed = PLAN_FIELDS
        return (*self.readonly_fields, *fixed)

    @admin.display(description=_("tasks"), ordering="_tasks")
    def n_tasks(self, obj: m.Comparison) -> int:
        return obj._tasks


@admin.register(m.SxsTask)
class SxsTaskAdmin(ScopedAdmin):
    list_display = ("comparison", "query", "position", "identical", "n_verdicts")
    list_filter = ("identical", ("comparison", ScopedRelatedFilter))
    search_fields = ("query__external_id", "query__text", "comparison__name")
    list_select_related = ("comparison", "query")
    raw_id_fields = ("query",)
    autocomplete_fields = ("comparison",)

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).annotate(_verdicts=count_of(m.Verdict, "task"))

    @admin.display(description=_("verdicts"), ordering="_verdicts")
    def n_verdicts(self, obj: m.SxsTask) -> int:
        return obj._verdicts


class VerdictChangeInline(ScopedPermissions, admin.TabularInline):
    model = m.VerdictChange
    extra = 0
    fields = ("value", "strength", "reason", "given_at", "replaced_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(m.Verdict)
class VerdictAdmin(ScopedAdmin):
    list_display = (
        "comparison",
        "query",
        "rater",
        "value",
        "candidate_side",
        "strength",
        "seconds",
        "changed_at",
    )
    list_filter = (
        ("task__comparison", ScopedRelatedFilter),
        "value",
        "candidate_side",
        "strength",
        ("rater", ScopedRelatedFilter),
    )
    search_fields = (
        "rater__username",
        "task__query__external_id",
        "task__query__text",
        "reason",
    )
    list_select_related = ("task__comparison", "task__query", "rater")
    raw_id_fields = ("task", "rater")
    readonly_fields = ("created_at", "changed_at")
    date_hierarchy = "changed_at"
    inlines = (VerdictChangeInline,)
    show_full_result_count = False

    comparison = via("task__comparison", _("comparison"), "task__comparison__name")
    query = via("task__query", _("query"), "task__query__external_id")


@admin.register(m.VerdictChange)
class VerdictChangeAdmin(ScopedAdmin):
    """History is read-only, like the grades' history."""

    list_display = ("query", "rater", "value", "strength", "given_at", "replaced_at")
    list_filter = ("value",)
    search_fields = ("verdict__rater__username", "verdict__task__query__external_id", "reason")
    list_select_related = ("verdict__rater", "verdict__task__query")
    raw_id_fields = ("verdict",)
    date_hierarchy = "replaced_at"

    query = via("verdict__task__query", _("query"), "verdict__task__query__external_id")
    rater = via("verdict__rater", _("rater"), "verdict__rater__username")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(m.TaskLease)
class TaskLeaseAdmin(ScopedAdmin):
    """Who holds which side-by-side task now, and on which side they see the candidate."""

    list_display = ("comparison", "query", "rater", "candidate_side", "expires_at", "created_at")
    list_filter = (("task__comparison", ScopedRelatedFilter), ("rater", ScopedRelatedFilter))
    search_fields = ("rater__username", "task__query__external_id")
    list_select_related = ("task__comparison", "task__query", "rater")
    raw_id_fields = ("task", "rater")
    readonly_fields = ("created_at",)

    comparison = via("task__comparison", _("comparison"), "task__comparison__name")
    query = via("task__query", _("query"), "task__query__external_id")


@admin.register(m.TaskSkip)
class TaskSkipAdmin(ScopedAdmin):
    """Side-by-side tasks a rater set aside; deleting one offers the task to them again."""

    list_display = ("comparison", "query", "rater", "created_at")
    list_filter = (("task__comparison", ScopedRelatedFilter), ("rater", ScopedRelatedFilter))
    search_fields = ("rater__username", "task__query__external_id")
    list_select_related = ("task__comparison", "task__query", "rater")
    raw_id_fields = ("task", "rater")
    readonly_fields = ("created_at",)

    comparison = via("task__comparison", _("comparison"), "task__comparison__name")
    query = via("task__query", _("query"), "task__query__external_id")


@admin.register(m.PlanChange)
class PlanChangeAdmin(ScopedAdmin):
    """The record of plan changes: read only (it is made by the plan page)."""

    list_display = ("comparison", "changed_by", "changed_at", "answers_in")
    list_filter = (("comparison", ScopedRelatedFilter),)
    search_fields = ("comparison__name", "changed_by__username", "reason")
    list_select_related = ("comparison", "changed_by")
    readonly_fields = ("comparison", "changed_by", "changed_at", "answers_in", "changes", "reason")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
