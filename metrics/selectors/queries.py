"""The campaign's queries as the report pages need them: one query a manager opens, and the
names and links of the queries a page lists."""

from __future__ import annotations

from collections.abc import Iterable

from django.http import Http404

from annotate.models import Campaign, Query


def campaign_query(*, campaign: Campaign, query_id: int) -> Query:
    """The query of this campaign with this id; 404 for any other (another campaign's too)."""
    query = Query.objects.filter(campaign=campaign, pk=query_id).first()
    if query is None:
        raise Http404("No such query")
    return query


def queries_by_external_id(
    *, campaign: Campaign, external_ids: Iterable[str]
) -> dict[str, tuple[int, str]]:
    """{external id: (primary key, text)} of those of `external_ids` the campaign has."""
    rows = (
        Query.objects.filter(campaign=campaign, external_id__in=list(external_ids))
        .order_by()
        .values_list("external_id", "pk", "text")
    )
    return {ext: (pk, text) for ext, pk, text in rows}
