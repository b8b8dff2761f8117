"""The export of answers to gold, apart from the exports of real work (which leave them out):
each answer beside the accepted one, graded and side-by-side in one file."""

from __future__ import annotations

from collections.abc import Iterator

from annotate.models import Campaign, GoldItem, Grade, Verdict
from annotate.services.exports import Export, _records_export

GOLD_FIELDS = [
    "campaign",
    "kind",
    "comparison",
    "query_id",
    "doc_id",
    "position",
    "rater",
    "answer",
    "accepted",
    "right",
    "cant_judge",
    "seconds",
    "purpose",
    "created",
]


def gold_answer_rows(*, campaign: Campaign) -> Iterator[tuple]:
    """Answers to the campaign's gold: grades first (by query, document, rater), then verdicts
    (by comparison, query, position, rater). `right` is whether the answer is accepted."""
    accepted: dict[int, list[str]] = {}
    for gold in GoldItem.objects.filter(pool_item__campaign=campaign).prefetch_related("accepted"):
        accepted[gold.pool_item_id] = sorted(label.name for label in gold.accepted.all())
    grades = (
        Grade.objects.filter(pool_item__campaign=campaign, gold=True)
        .order_by("pool_item__query__external_id", "pool_item__document__external_id", "rater")
        .values_list(
            "pool_item_id",
            "pool_item__query__external_id",
            "pool_item__document__external_id",
            "rater__username",
            "label__name",
            "cant_judge",
            "seconds",
            "pool_item__gold_entry__purpose",
            "created_at",
        )
    )
    for item_id, qid, docno, rater, label, cant, seconds, purpose, created in grades.iterator():
        right = accepted.get(item_id, [])
        yield (
            campaign.slug, "graded", None, qid, docno, None, rater, label or "",
            "|".join(right), (not cant) and label in right, cant, seconds, purpose, created,
        )  # fmt: skip
    verdicts = (
        Verdict.objects.filter(task__comparison__campaign=campaign, gold=True)
        .order_by("task__comparison__name", "task__query__external_id", "task__position", "rater")
        .values_list(
            "task__comparison__name",
            "task__query__external_id",
            "task__position",
            "rater__username",
            "value",
            "task__gold_entry__value",
            "cant_judge",
            "seconds",
            "task__gold_entry__purpose",
            "created_at",
        )
    )
    for name, qid, position, rater, value, right, cant, seconds, purpose, created in verdicts:
        yield (
            campaign.slug, "side-by-side", name, qid, None, position, rater, value,
            right or "", (not cant) and value == right, cant, seconds, purpose, created,
        )  # fmt: skip


def export_gold_answers(*, campaign: Campaign, fmt: str = "csv") -> Export:
    return _records_export(
        campaign=campaign,
        kind="gold-answers",
        fmt=fmt,
        fields=GOLD_FIELDS,
        rows=gold_answer_rows(campaign=campaign),
    )
