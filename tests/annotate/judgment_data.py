"""Small builders for runs, pools and grades, shared by the ranking, pooling, aggregation and
export tests. Each takes plain tuples so a test reads like the data it describes."""

from __future__ import annotations

from collections.abc import Iterable

from annotate.models import (
    Campaign,
    Document,
    Grade,
    PoolItem,
    Query,
    Run,
    RunEntry,
    System,
)


def query(campaign: Campaign, external_id: str) -> Query:
    return Query.objects.get_or_create(
        campaign=campaign, external_id=external_id, defaults={"text": f"text of {external_id}"}
    )[0]


def document(campaign: Campaign, external_id: str, *, placeholder: bool = False) -> Document:
    return Document.objects.get_or_create(
        campaign=campaign,
        external_id=external_id,
        defaults={"title": f"title of {external_id}", "is_placeholder": placeholder},
    )[0]


def make_run(
    campaign: Campaign,
    name: str,
    rows: Iterable[tuple[str, str, int, float | None]],
    *,
    placeholders: Iterable[str] = (),
) -> Run:
    """A run from (query id, document id, rank, score) rows; unknown ids are created."""
    placeholders = set(placeholders)
    system = System.objects.get_or_create(campaign=campaign, name=name)[0]
    run = Run.objects.create(campaign=campaign, system=system, name=name)
    RunEntry.objects.bulk_create(
        RunEntry(
            run=run,
            query=query(campaign, qid),
            document=document(campaign, did, placeholder=did in placeholders),
            rank=rank,
            score=score,
        )
        for qid, did, rank, score in rows
    )
    return run


def pool_item(campaign: Campaign, qid: str, did: str) -> PoolItem:
    return PoolItem.objects.get_or_create(
        campaign=campaign, query=query(campaign, qid), document=document(campaign, did)
    )[0]


def grade(item: PoolItem, rater, label_name: str | None, **extra) -> Grade:
    """A rater's grade by label name; None means "can't judge"."""
    if label_name is None:
        return Grade.objects.create(pool_item=item, rater=rater, cant_judge=True, **extra)
    label = item.campaign.labels.get(name=label_name)
    return Grade.objects.create(pool_item=item, rater=rater, label=label, **extra)


def external_ids(order: dict[int, object]) -> dict[str, list[str]]:
    """{query id: [doc ids]} with internal ids turned into external ids, for readable asserts."""
    queries = dict(Query.objects.values_list("id", "external_id"))
    docs = dict(Document.objects.values_list("id", "external_id"))
    return {queries[q]: [docs[int(d)] for d in ds] for q, ds in order.items()}
