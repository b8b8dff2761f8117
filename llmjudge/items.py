"""Which pool items a model judge labels, what its prompt shows of each, and the few-shot
examples (items a manager adjudicated, with the ruling as the answer)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Q

from annotate.inputs import clamp
from annotate.models import Adjudication, Grade, PoolItem
from llmjudge.models import ModelJudge, Scope
from llmjudge.prompt import Example, ItemText, PromptBuilder, ScaleStep


@dataclass(frozen=True)
class Item:
    query_id: int
    document_id: int
    text: ItemText


def query_id_list(text: str) -> list[str]:
    return [part for part in re.split(r"[\s,]+", text or "") if part]


def builder_for(judge: ModelJudge, *, template: str | None = None) -> PromptBuilder:
    """The prompt builder of ``judge`` (or of another template, for a preview)."""
    campaign = judge.campaign
    scale = [ScaleStep(name, grade) for name, grade in campaign.labels.values_list("name", "grade")]
    if not scale:
        raise ValueError("the campaign has no label scale")
    return PromptBuilder(
        template=judge.template if template is None else template,
        scale=scale,
        guidelines=campaign.guidelines,
        examples=[Example(item.text, grade) for item, grade in example_items(judge)],
    )


def example_items(judge: ModelJudge) -> list[tuple[Item, float]]:
    """The first ``judge.examples`` adjudicated items (oldest ruling first: adding a ruling
    does not change the prompt of a judge that already has its examples)."""
    if not judge.examples:
        return []
    rulings = (
        Adjudication.objects.filter(pool_item__campaign=judge.campaign)
        .select_related("pool_item__query", "pool_item__document", "label")
        .order_by("created_at", "pk")[: judge.examples]
    )
    return [(_item(r.pool_item), float(r.label.grade)) for r in rulings]


def selected_items(judge: ModelJudge) -> list[Item]:
    """The pool items of the judge's scope and queries, example items left out, in query
    then document order."""
    items = PoolItem.objects.filter(campaign=judge.campaign)
    if judge.scope == Scope.UNJUDGED:
        counted = Grade.objects.filter(pool_item=OuterRef("pk"), cant_judge=False)
        items = items.filter(~Exists(counted))
    elif judge.scope == Scope.DISAGREED:
        items = items.annotate(
            distinct_grades=Count("grades__label__grade", distinct=True,
                                  filter=Q(grades__cant_judge=False))
        ).filter(distinct_grades__gte=2)  # fmt: skip
    wanted = query_id_list(judge.query_ids)
    if wanted:
        items = items.filter(query__external_id__in=wanted)
    examples = {(i.query_id, i.document_id) for i, _ in example_items(judge)}
    items = items.select_related("query", "document").order_by(
        "query__external_id", "document__external_id"
    )
    return [
        item
        for item in (_item(p) for p in items.iterator(chunk_size=2000))
        if (item.query_id, item.document_id) not in examples
    ]


def _item(pool_item: PoolItem) -> Item:
    q, d = pool_item.query, pool_item.document
    # Text stored above a limit set later goes to the model clamped, as to raters.
    text = ItemText(query=clamp(q.text, "query_text"), intent=clamp(q.description, "intent"),
                    title=clamp(d.title, "title"), url=d.url,
                    snippet=clamp(d.snippet, "snippet"), fields=d.extra or {})  # fmt: skip
    return Item(q.pk, d.pk, text)
