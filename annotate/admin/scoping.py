"""Who sees what in the admin.

A superuser sees everything. Any other staff user sees, adds, changes and deletes exactly the
rows of the campaigns they manage (`campaigns_for(user, role="manager")`), and nothing else:
querysets, foreign-key choices, list filters and autocompletes are all narrowed to those
campaigns, so a manager can neither read another campaign's data nor attach a row to it.
Django's per-model permissions are not consulted for such users: the manager role is the
permission, as it is in the rest of the app.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db import models
from django.db.models import Count, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest
from django.utils.translation import gettext

from annotate import models as m
from annotate.selectors import campaigns_for

# The lookup path from each model to its campaign: one table, used for querysets, form
# choices, list filters and the one-campaign check of forms.
CAMPAIGN_PATHS: dict[type[models.Model], str] = {
    m.Campaign: "pk",
    m.Label: "campaign",
    m.Membership: "campaign",
    m.Query: "campaign",
    m.Document: "campaign",
    m.System: "campaign",
    m.Run: "campaign",
    m.RunEntry: "run__campaign",
    m.PoolItem: "campaign",
    m.Grade: "pool_item__campaign",
    m.GradeChange: "grade__pool_item__campaign",
    m.Skip: "pool_item__campaign",
    m.Lease: "pool_item__campaign",
    m.LabelSource: "campaign",
    m.SourceLabel: "source__campaign",
    m.Comparison: "campaign",
    m.SxsTask: "comparison__campaign",
    m.Verdict: "task__comparison__campaign",
    m.TaskLease: "task__comparison__campaign",
    m.TaskSkip: "task__comparison__campaign",
    m.VerdictChange: "verdict__task__comparison__campaign",
    m.PlanChange: "comparison__campaign",
    m.Adjudication: "pool_item__campaign",
    m.GoldItem: "pool_item__campaign",
    m.GoldTask: "task__comparison__campaign",
    m.BehaviourLog: "campaign",
    m.BehaviourPosition: "log__campaign",
    m.BehaviourStat: "log__campaign",
    m.QualityEvent: "membership__campaign",
    m.QuizAttempt: "campaign",
    m.QuizAnswer: "attempt__campaign",
    m.QuizGrant: "campaign",
}


def managed_campaign_ids(request: HttpRequest) -> list[int] | None:
    """Ids of the campaigns the user manages; None for a superuser (no restriction).
    Cached on the request: one changelist asks many times."""
    user = request.user
    if user.is_superuser:
        return None
    if not hasattr(request, "_managed_campaign_ids"):
        ids = list(campaigns_for(user, role=m.Role.MANAGER).values_list("pk", flat=True))
        request._managed_campaign_ids = ids  # type: ignore[attr-defined]
    return request._managed_campaign_ids  # type: ignore[attr-defined]


def scope_q(model: type[models.Model], ids: list[int]) -> Q:
    """The condition that keeps only rows of `model` belonging to the campaigns `ids`."""
    if issubclass(model, get_user_model()):
        # People who work on those campaigns: raters to filter by, or to pick for a grade.
        members = m.Membership.objects.filter(campaign__in=ids).values("user_id")
        return Q(pk__in=members)
    return Q(**{f"{CAMPAIGN_PATHS[model]}__in": ids})


def campaign_id_of(obj: models.Model) -> int | None:
    """The campaign a row belongs to, following its CAMPAIGN_PATHS entry."""
    path = CAMPAIGN_PATHS.get(type(obj))
    if path is None:
        return None
    if path == "pk":
        return obj.pk
    *hops, last = path.split("__")
    for hop in hops:
        obj = getattr(obj, hop)
    return getattr(obj, f"{last}_id")


def count_of(model: type[models.Model], fk: str, **filters: Any) -> Coalesce:
    """A correlated COUNT of `model` rows pointing at the outer row. Several of these in one
    changelist do not multiply each other's rows the way several JOIN counts would."""
    rows = (
        model.objects.filter(**{fk: OuterRef("pk")}, **filters)
        .order_by()
        .values(fk)
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(rows, output_field=models.IntegerField()), 0)


def via(
    path: str, description: str, ordering: str, show: Callable[[Any], Any] = lambda obj: obj
) -> Any:
    """A list column that follows `path` (a__b) from the row, shown through `show`: for the
    pair a pool item stands for, where the item's own name is only two ids."""
    hops = path.split("__")

    @admin.display(description=description, ordering=ordering)
    def column(self: Any, obj: Any) -> Any:
        for hop in hops:
            obj = getattr(obj, hop)
        return show(obj)

    return column


def document_label(document: m.Document) -> str:
    """A document as a manager recognises it: its id and the start of its title."""
    title = document.title if len(document.title) <= 60 else f"{document.title[:57]}..."
    return f"{document.external_id}: {title}" if title else document.external_id


class ScopedRelatedFilter(admin.RelatedFieldListFilter):
    """A related-object filter that lists only the user's campaigns' objects (the stock one
    lists every row of the related table, names of other campaigns included)."""

    def field_choices(self, field, request, model_admin):
        ordering = self.field_admin_ordering(field, request, model_admin)
        ids = managed_campaign_ids(request)
        limit = None if ids is None else scope_q(field.related_model, ids)
        if limit is None and issubclass(field.related_model, get_user_model()):
            # Only people who belong to some campaign: not every account of the site.
            limit = Q(pk__in=m.Membership.objects.values("user_id"))
        return field.get_choices(include_blank=False, limit_choices_to=limit, ordering=ordering)


class OneCampaignForm(forms.ModelForm):
    """Refuses a row whose foreign keys point into different campaigns (a grade with a label
    of another campaign's scale, a run entry for another campaign's query)."""

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        found: dict[int, str] = {}
        for name, value in cleaned.items():
            if isinstance(value, models.Model):
                campaign_id = campaign_id_of(value)
                if campaign_id is not None:
                    found.setdefault(campaign_id, name)
        if len(found) > 1:
            # The fields' labels, as the form shows them (in the user's language), not their
            # attribute names.
            names = ", ".join(sorted(str(self.fields[name].label) for name in found.values()))
            raise forms.ValidationError(
                gettext("%(names)s must belong to the same campaign.") % {"names": names}
            )
        return cleaned


class ScopedPermissions:
    """Permissions by role: a superuser as Django decides, a staff manager on their campaigns'
    rows (get_queryset narrows which rows those are), everyone else nothing."""

    def _may(self, request: HttpRequest) -> bool:
        user = request.user
        return bool(user.is_active and user.is_staff and managed_campaign_ids(request))

    def has_module_permission(self, request: HttpRequest) -> bool:
        if request.user.is_superuser:
            return super().has_module_permission(request)
        return self._may(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if request.user.is_superuser:
            return super().has_view_permission(request, obj)
        return self._may(request)

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        if request.user.is_superuser:
            return super().has_add_permission(request, *args)
        return self._may(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if request.user.is_superuser:
            return super().has_change_permission(request, obj)
        return self._may(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if request.user.is_superuser:
            return super().has_delete_permission(request, obj)
        return self._may(request)

    def get_queryset(self, request: HttpRequest):
        queryset = super().get_queryset(request)
        ids = managed_campaign_ids(request)
        return queryset if ids is None else queryset.filter(scope_q(self.model, ids))

    def formfield_for_foreignkey(self, db_field, request: HttpRequest, **kwargs: Any):
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        ids = managed_campaign_ids(request)
        related = db_field.related_model
        unscoped = db_field.name in getattr(self, "unscoped_fields", ())
        scoped_model = related in CAMPAIGN_PATHS or issubclass(related, get_user_model())
        if ids is not None and field is not None and scoped_model and not unscoped:
            field.queryset = field.queryset.filter(scope_q(related, ids))
        return field


class ScopedAdmin(ScopedPermissions, admin.ModelAdmin):
    form = OneCampaignForm
    list_per_page = 50


class ScopedTabularInline(ScopedPermissions, admin.TabularInline):
    pass
