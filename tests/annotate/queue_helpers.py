"""Builders for queue tests: a campaign with queries, documents and pool items."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from annotate.models import Document, PoolItem, Query, Role
from annotate.services.campaigns import membership_set


def build_pool(campaign, *, queries: int, docs_per_query: int) -> list[PoolItem]:
    items = []
    for q in range(queries):
        query = Query.objects.create(campaign=campaign, external_id=f"q{q}", text=f"query {q}")
        for d in range(docs_per_query):
            doc = Document.objects.create(
                campaign=campaign, external_id=f"q{q}-d{d}", title=f"Result {d} for {q}"
            )
            items.append(PoolItem.objects.create(campaign=campaign, query=query, document=doc))
    return items


def make_raters(campaign, count: int, prefix: str = "r") -> list:
    users = []
    for i in range(count):
        user = get_user_model().objects.create_user(username=f"{prefix}{i}", password="x")
        membership_set(campaign=campaign, user=user, role=Role.RATER)
        users.append(user)
    return users


def queue_setup(campaign, *, overlap: int, queries: int, docs_per_query: int, raters: int):
    """(campaign, items, raters, Good, Bad): the fixture of the queue tests."""
    campaign.overlap = overlap
    campaign.save()
    items = build_pool(campaign, queries=queries, docs_per_query=docs_per_query)
    users = make_raters(campaign, raters)
    return (
        campaign,
        items,
        users,
        campaign.labels.get(name="Good"),
        campaign.labels.get(name="Bad"),
    )
