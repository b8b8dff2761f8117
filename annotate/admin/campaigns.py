"""Admin for campaigns, their label scales and memberships."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db import models, transaction
from django.db.models import Q
from django.http import HttpRequest
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from annotate import models as m
from annotate.admin.scoping import (
    ScopedAdmin,
    ScopedRelatedFilter,
    ScopedTabularInline,
    count_of,
)
from annotate.forms.manage import CampaignTextLimits
from annotate.models.campaigns import default_scale


def autocomplete_user_if_allowed(request: HttpRequest) -> tuple[str, ...]:
    """Autocomplete needs the right to view users; a manager without it gets a plain list."""
    return ("user",) if request.user.has_perm("auth.view_user") else ()


def summarised_deletion(
    objs: list[models.Model], counts: dict[type[models.Model], Q], protected: list[str]
) -> tuple[list[str], dict[str, int], set[str], list[str]]:
    """What get_deleted_objects returns, with counts per model instead of one line per row:
    Django's default lists every run entry and grade, which hangs on a real campaign."""
    model_count = {capfirst(type(objs[0])._meta.verbose_name_plural): len(objs)}
    for model, condition in counts.items():
        n = model.objects.filter(condition).count()
        if n:
            model_count[capfirst(model._meta.verbose_name_plural)] = n
    return [str(obj) for obj in objs], model_count, set(), protected


@transaction.atomic
def campaigns_delete(ids: list[int]) -> None:
    """Delete campaigns with everything in them. Comparisons protect their runs and grades
    protect their labels (on_delete=PROTECT), and Django refuses such a cascade even when
    the protecting rows go too, so those go first."""
    m.Comparison.objects.filter(campaign__in=ids).delete()
    m.Grade.objects.filter(pool_item__campaign__in=ids).delete()
    m.Campaign.objects.filter(pk__in=ids).delete()


class LabelInline(ScopedTabularInline):
    model = m.Label
    extra = 0
    fields = ("position", "name", "grade", "key")
    ordering = ("position",)


class MembershipInline(ScopedTabularInline):
    model = m.Membership
    extra = 0
    fields = ("user", "role", "created_at")
    readonly_fields = ("created_at",)
    list_select_related = ("user",)
    # Adding a rater means picking an account that is not yet in any of the manager's
    # campaigns, so the user choice is not narrowed.
    unscoped_fields = ("user",)

    def get_autocomplete_fields(self, request: HttpRequest) -> tuple[str, ...]:
        return autocomplete_user_if_allowed(request)


class CampaignAdminForm(CampaignTextLimits, forms.ModelForm):
    class Meta:
        model = m.Campaign
        # The admin's fieldsets decide what is shown; these are what it may edit.
        fields = ["name", "slug", "description", "guidelines", "relevant_from", "aggregation",
                  "overlap", "lease_minutes"]  # fmt: skip


@admin.register(m.Campaign)
class CampaignAdmin(ScopedAdmin):
    form = CampaignAdminForm
    list_display = (
        "name",
        "slug",
        "aggregation",
        "overlap",
        "relevant_from",
        "n_queries",
        "n_documents",
        "n_pool_items",
        "n_members",
        "created_at",
    )
    list_filter = ("aggregation",)
    search_fields = ("name", "slug", "description")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("created_by", "created_at")
    inlines = (LabelInline, MembershipInline)
    fieldsets = (
        (None, {"fields": ("name", "slug", "description", "guidelines")}),
        (_("Judging"), {"fields": ("relevant_from", "aggregation", "overlap", "lease_minutes")}),
        (_("Record"), {"fields": ("created_by", "created_at")}),
    )

    def get_queryset(self, request: HttpRequest):
        return (
            super()
            .get_queryset(request)
            .annotate(
                _queries=count_of(m.Query, "campaign"),
                _documents=count_of(m.Document, "campaign"),
                _pool_items=count_of(m.PoolItem, "campaign"),
                _members=count_of(m.Membership, "campaign"),
            )
        )

    @admin.display(description=_("queries"), ordering="_queries")
    def n_queries(self, obj: m.Campaign) -> int:
        return obj._queries

    @admin.display(description=_("documents"), ordering="_documents")
    def n_documents(self, obj: m.Campaign) -> int:
        return obj._documents

    @admin.display(description=_("pool items"), ordering="_pool_items")
    def n_pool_items(self, obj: m.Campaign) -> int:
        return obj._pool_items

    @admin.display(description=_("members"), ordering="_members")
    def n_members(self, obj: m.Campaign) -> int:
        return obj._members

    def save_model(self, request: HttpRequest, obj: m.Campaign, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        campaign = form.instance
        if change:
            return
        # Like campaign_create: a new campaign gets the default scale unless labels were given
        # inline, and its creator manages it (a staff manager would otherwise lose sight of it).
        if not campaign.labels.exists():
            m.Label.objects.bulk_create(
                m.Label(campaign=campaign, name=name, grade=grade, key=key, position=i)
                for i, (name, grade, key) in enumerate(default_scale(campaign.language))
            )
        m.Membership.objects.get_or_create(
            campaign=campaign, user=request.user, defaults={"role": m.Role.MANAGER}
        )

    def delete_model(self, request: HttpRequest, obj: m.Campaign) -> None:
        campaigns_delete([obj.pk])

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        # A list of ids: the changelist's queryset carries count annotations that an
        # `__in` subquery cannot take.
        campaigns_delete(list(queryset.values_list("pk", flat=True)))

    def get_deleted_objects(self, objs: Any, request: HttpRequest):
        objs = list(objs)
        if not objs:
            return super().get_deleted_objects(objs, request)
        counts = {
            model: Q(**{f"{path}__in": objs})
            for model, path in (
                (m.Query, "campaign"),
                (m.Document, "campaign"),
                (m.Run, "campaign"),
                (m.RunEntry, "run__campaign"),
                (m.PoolItem, "campaign"),
                (m.Grade, "pool_item__campaign"),
                (m.Comparison, "campaign"),
                (m.Verdict, "task__comparison__campaign"),
                (m.SourceLabel, "source__campaign"),
            )
        }
        return summarised_deletion(objs, counts, [])


@admin.register(m.Label)
class LabelAdmin(ScopedAdmin):
    list_display = ("name", "campaign", "grade", "key", "position")
    list_filter = (("campaign", ScopedRelatedFilter),)
    search_fields = ("name", "campaign__name")
    list_select_related = ("campaign",)
    autocomplete_fields = ("campaign",)
    ordering = ("campaign__name", "position")


@admin.register(m.Membership)
class MembershipAdmin(ScopedAdmin):
    list_display = ("user", "campaign", "role", "created_at")
    list_filter = ("role", ("campaign", ScopedRelatedFilter))
    search_fields = ("user__username", "user__email", "campaign__name", "campaign__slug")
    list_select_related = ("user", "campaign")
    readonly_fields = ("created_at",)
    unscoped_fields = ("user",)

    def get_autocomplete_fields(self, request: HttpRequest) -> tuple[str, ...]:
        return ("campaign", *autocomplete_user_if_allowed(request))
