"""The human queue ordered by a model judge's doubts: queries where the model gave no usable
answer, or disagrees with the first rater, are served to raters first; and what the raters said
on those items later. The order is a per-query priority (annotate Query.priority) that the
graded queue reads before its walk in id order; it says nothing of systems or ranks, so the
queue stays blind."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Min

from annotate.models import Campaign, Grade, PoolItem, Query, SourceLabel
from annotate.selectors.real import real_grades
from llmjudge.models import ModelJudge

MAX_PRIORITY = 32767  # a PositiveSmallIntegerField


@dataclass(frozen=True)
class Doubt:
    """One pool item the model doubted: no model label, or a label a grade away or more from
    the first rater's."""

    item_id: int
    query: str
    document: str
    model: float | None
    first_rater: float | None
    raters: list[float]


def model_doubts(judge: ModelJudge) -> list[Doubt]:
    """The campaign's pool items the judge's labels leave in doubt, with every rater's grade."""
    campaign = judge.campaign
    model = {
        (q, d): g
        for q, d, g in SourceLabel.objects.filter(
            source__campaign=campaign, source__name=judge.source_name
        ).values_list("query_id", "document_id", "grade")
    }
    grades: dict[int, list[tuple]] = {}
    # The grades that count: an excluded rater's (or an answer to gold) is no "first rater".
    rows = real_grades(
        Grade.objects.filter(pool_item__campaign=campaign, cant_judge=False), campaign
    ).values_list("pool_item_id", "created_at", "label__grade")
    for item_id, at, grade in rows.order_by("created_at", "pk"):
        grades.setdefault(item_id, []).append((at, grade))
    items = PoolItem.objects.filter(campaign=campaign).values_list(
        "pk", "query_id", "document_id", "query__external_id", "document__external_id"
    )
    doubts = []
    for item_id, query_id, document_id, query, document in items.order_by("pk"):
        label = model.get((query_id, document_id))
        given = [g for _, g in grades.get(item_id, [])]
        first = given[0] if given else None
        if label is None or (first is not None and abs(label - first) >= 1):
            doubts.append(Doubt(item_id, query, document, label, first, given))
    return doubts


@transaction.atomic
def queue_order_by_doubt(judge: ModelJudge) -> int:
    """Give every query its number of doubted items as priority (others 0); returns how many
    queries come first now."""
    campaign = judge.campaign
    per_query: dict[int, int] = {}
    item_query = dict(PoolItem.objects.filter(campaign=campaign).values_list("pk", "query_id"))
    for doubt in model_doubts(judge):
        query_id = item_query[doubt.item_id]
        per_query[query_id] = per_query.get(query_id, 0) + 1
    queue_order_reset(campaign)
    for query_id, count in per_query.items():
        Query.objects.filter(pk=query_id).update(priority=min(count, MAX_PRIORITY))
    Campaign.objects.filter(pk=campaign.pk).update(prioritized_queries=len(per_query))
    return len(per_query)


def queue_order_reset(campaign: Campaign) -> int:
    """Back to the plain order; returns how many queries had a priority."""
    Campaign.objects.filter(pk=campaign.pk).update(prioritized_queries=0)
    return Query.objects.filter(campaign=campaign, priority__gt=0).update(priority=0)


def prioritized_queries(campaign: Campaign) -> int:
    return Query.objects.filter(campaign=campaign, priority__gt=0).count()


def first_grade_times(campaign: Campaign) -> dict[int, object]:
    """{pool item: when its first counted grade came} (for "what raters said later")."""
    return dict(
        real_grades(Grade.objects.filter(pool_item__campaign=campaign, cant_judge=False), campaign)
        .values("pool_item_id")
        .annotate(first=Min("created_at"))
        .values_list("pool_item_id", "first")
    )
