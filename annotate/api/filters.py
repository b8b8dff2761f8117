"""django-filter filter sets of the API lists: a campaign by slug, queries and documents by
external id, people by username, labels by name, times as ranges."""

from __future__ import annotations

from datetime import UTC

import django_filters as filters
from django import forms
from django.core.exceptions import ValidationError
from django.db.models import Q
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from annotate.api.scoping import managed_ids
from annotate.judging import handles
from annotate.models import (
    Comparison,
    Document,
    Grade,
    PoolItem,
    Query,
    Run,
    RunEntry,
    SxsTask,
    System,
    Verdict,
)


@extend_schema_field(OpenApiTypes.INT)  # a whole number, as the schema says (not "number")
class IdFilter(filters.NumberFilter):
    """A primary key: a whole number in the database's range (a bigger one is a 400)."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, min_value=1, max_value=2**63 - 1, **kwargs)


class UtcDateTimeFilter(filters.IsoDateTimeFilter):
    """An ISO 8601 time, turned to UTC before it reaches the database: Python accepts offsets
    up to ±23:59 that PostgreSQL refuses (beyond ±15:59), which was a 500."""

    def filter(self, qs, value):
        if value is not None:
            try:
                value = value.astimezone(UTC)
            except OverflowError:  # 0001-01-01T00:00+01:00 is before year 1 in UTC
                raise ValidationError(f"{value.isoformat()} is out of range in UTC") from None
        return super().filter(qs, value)


class TaskRefFilter(filters.CharFilter):
    """A task as its caller knows it: a manager of its campaign by id, a rater by their handle
    (annotate/judging/handles.py). An id matches only in campaigns the caller manages, so a
    rater cannot learn which of their handles has which id by asking."""

    def __init__(self, *args, kind: str, campaign_path: str, **kwargs) -> None:
        self.kind, self.campaign_path = kind, campaign_path
        super().__init__(*args, **kwargs)

    def filter(self, qs, value):
        if value in (None, ""):
            return qs
        user = self.parent.request.user
        mine = handles.task_id_for(user.pk, self.kind, value)
        match = Q(rater=user, **{self.field_name: mine}) if mine else Q(pk__in=[])
        number = handles.legacy_id(value)
        if number is not None:
            managed = {f"{self.campaign_path}__in": managed_ids(user)}
            match |= Q(**{self.field_name: number}, **managed)
        return qs.filter(match)


class CampaignFilter(filters.FilterSet):
    campaign = filters.CharFilter(field_name="campaign__slug", help_text="Campaign slug.")


class QueryFilter(CampaignFilter):
    external_id = filters.CharFilter()

    class Meta:
        model = Query
        fields = ["campaign", "external_id"]


class DocumentFilter(CampaignFilter):
    external_id = filters.CharFilter()
    is_placeholder = filters.BooleanFilter()

    class Meta:
        model = Document
        fields = ["campaign", "external_id", "is_placeholder"]


class SystemFilter(CampaignFilter):
    name = filters.CharFilter()

    class Meta:
        model = System
        fields = ["campaign", "name"]


class RunFilter(CampaignFilter):
    name = filters.CharFilter()
    system = filters.CharFilter(field_name="system__name")

    class Meta:
        model = Run
        fields = ["campaign", "name", "system"]


class RunEntryFilter(filters.FilterSet):
    query = filters.CharFilter(field_name="query__external_id", help_text="Query external id.")

    class Meta:
        model = RunEntry
        fields = ["query"]


class PoolItemFilter(CampaignFilter):
    query = filters.CharFilter(field_name="query__external_id")
    document = filters.CharFilter(field_name="document__external_id")
    origin = filters.ChoiceFilter(choices=PoolItem.Origin.choices)

    class Meta:
        model = PoolItem
        fields = ["campaign", "query", "document", "origin"]


class GradeFilter(filters.FilterSet):
    campaign = filters.CharFilter(field_name="pool_item__campaign__slug")
    rater = filters.CharFilter(field_name="rater__username", help_text="Rater's username.")
    query = filters.CharFilter(field_name="pool_item__query__external_id")
    document = filters.CharFilter(field_name="pool_item__document__external_id")
    item = TaskRefFilter(
        field_name="pool_item_id",
        kind=handles.GRADED,
        campaign_path="pool_item__campaign_id",
        help_text="Pool item: its id (managers) or the rater's handle (raters).",
    )
    label = filters.CharFilter(field_name="label__name", help_text="Label name, e.g. Good.")
    cant_judge = filters.BooleanFilter()
    changed_after = UtcDateTimeFilter(field_name="changed_at", lookup_expr="gte")
    changed_before = UtcDateTimeFilter(field_name="changed_at", lookup_expr="lt")
    created_after = UtcDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = UtcDateTimeFilter(field_name="created_at", lookup_expr="lt")

    class Meta:
        model = Grade
        fields = ["campaign", "rater", "query", "document", "item", "label", "cant_judge"]


class ComparisonFilter(CampaignFilter):
    class Meta:
        model = Comparison
        fields = ["campaign"]


class TaskFilter(filters.FilterSet):
    query = filters.CharFilter(field_name="query__external_id")
    identical = filters.BooleanFilter()

    class Meta:
        model = SxsTask
        fields = ["query", "identical"]


class VerdictFilter(filters.FilterSet):
    campaign = filters.CharFilter(field_name="task__comparison__campaign__slug")
    comparison = IdFilter(field_name="task__comparison_id")
    rater = filters.CharFilter(field_name="rater__username")
    task = TaskRefFilter(
        field_name="task_id",
        kind=handles.SXS,
        campaign_path="task__comparison__campaign_id",
        help_text="Task: its id (managers) or the rater's handle (raters).",
    )
    changed_after = UtcDateTimeFilter(field_name="changed_at", lookup_expr="gte")
    changed_before = UtcDateTimeFilter(field_name="changed_at", lookup_expr="lt")

    class Meta:
        model = Verdict
        fields = ["campaign", "comparison", "rater", "task"]
