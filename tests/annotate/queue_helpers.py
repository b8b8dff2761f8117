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


def handle(user, item) -> str:
    """The user's handle for a pool item (or its id), as their pages name it."""
    from annotate.judging import handles

    return handles.handle_for(user.pk, handles.GRADED, getattr(item, "pk", item))


def item_id(user, item_handle: str) -> int:
    """The pool item id a user's handle names (the services and the database use ids)."""
    from annotate.judging import handles

    return handles.task_id_for(user.pk, handles.GRADED, item_handle)
