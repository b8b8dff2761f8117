"""One query, looked at closely: each system's top k in THE run order (annotate.ranking), every
document with every rater's grade and the label the metrics used, so a manager sees why NDCG
moved.

The label of a pair is made by the same code as the whole campaign's qrels (the aggregation
kernel, adjudications winning, or the label source's line), restricted to this query; a fixed
number of queries whatever the number of systems or documents.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from annotate.models import (
    Adjudication,
    Campaign,
    Grade,
    LabelSource,
    PoolItem,
    Query,
    RunEntry,
    SourceLabel,
)
from annotate.ranking import byte_order_keys, ranking_permutation
from annotate.selectors.confusion import campaign_fit
from annotate.selectors.real import real_grades
from metrics.core.aggregate import DAWID_SKENE, aggregate


@dataclass
class Judgement:
    rater: str
    label: str | None  # None: can't judge
    grade: float | None
    comment: str


@dataclass
class DocumentRow:
    document_id: int
    external_id: str
    title: str
    url: str
    grades: list[Judgement] = field(default_factory=list)
    label: float | None = None  # what the metrics used; None: unjudged
    adjudicated: str | None = None  # the ruling's label name, when a manager settled it
    adjudication_note: str = ""

    @property
    def judged(self) -> bool:
        return self.label is not None and self.label >= 0


@dataclass
class RankedRow:
    position: int
    rank: int
    score: float | None
    document: DocumentRow


@dataclass
class SystemList:
    run_id: int
    run: str
    system: str
    rows: list[RankedRow]


@dataclass
class QueryDrilldown:
    query: Query
    lists: list[SystemList]
    documents: dict[int, DocumentRow]
    unretrieved: list[DocumentRow]  # judged, but in no system's top k


def query_drilldown(
    *,
    campaign: Campaign,
    query: Query,
    k: int,
    rule: str,
    source: LabelSource | None,
    runs: list[tuple[int, str, str]],
) -> QueryDrilldown:
    """`runs`: (run id, run name, system name) in the order the systems table shows them."""
    entries = list(
        RunEntry.objects.filter(run__campaign=campaign, query=query)
        .order_by()
        .values_list(
            "run_id",
            "document_id",
            "score",
            "rank",
            "document__external_id",
            "document__title",
            "document__url",
        )
    )
    documents: dict[int, DocumentRow] = {}
    for _, doc_id, _, _, ext, title, url in entries:
        documents.setdefault(doc_id, DocumentRow(doc_id, ext, title, url))
    _attach_labels(query=query, rule=rule, source=source, documents=documents)

    lists = []
    for run_id, run_name, system in runs:
        mine = [e for e in entries if e[0] == run_id]
        lists.append(SystemList(run_id, run_name, system, _top(mine, k, documents)))
    shown = {row.document.document_id for sl in lists for row in sl.rows}
    unretrieved = sorted(
        (d for d in documents.values() if d.judged and d.document_id not in shown),
        key=lambda d: (-(d.label or 0), d.external_id),
    )
    return QueryDrilldown(query=query, lists=lists, documents=documents, unretrieved=unretrieved)


def _top(entries: list[tuple], k: int, documents: dict[int, DocumentRow]) -> list[RankedRow]:
    """The first k entries of one run in THE order (annotate.ranking's permutation)."""
    if not entries:
        return []
    score = np.array([np.nan if e[2] is None else e[2] for e in entries], dtype=np.float64)
    rank = np.array([e[3] for e in entries], dtype=np.int64)
    keys = byte_order_keys(e[4] for e in entries)
    order = ranking_permutation(np.zeros(len(entries), dtype=np.int64), score, rank, keys)
    rows = []
    for position, i in enumerate(order[:k], start=1):
        run_id, doc_id, s, r, *_ = entries[i]
        rows.append(RankedRow(position, r, s, documents[doc_id]))
    return rows


def _attach_fitted_labels(
    query: Query, graded: set[int], documents: dict[int, DocumentRow]
) -> None:
    """Dawid–Skene weighs each rater by the whole campaign: the labels are the campaign's one
    fit (campaign_fit, as the qrels), looked up for this query's graded pairs."""
    fitted = campaign_fit(query.campaign).by_item
    items = PoolItem.objects.filter(query=query, document_id__in=graded).order_by()
    for doc_id, item in items.values_list("document_id", "pk"):
        if item in fitted:
            documents[doc_id].label = fitted[item]


def _attach_labels(
    *,
    query: Query,
    rule: str,
    source: LabelSource | None,
    documents: dict[int, DocumentRow],
) -> None:
    """Every rater's grade of the query's pairs, and the label the metrics used. Judged pairs
    no run retrieved are added too (they shape the ideal ranking)."""
    # Only the grades that count (no excluded rater's, no answer to gold), as in the qrels.
    grades = (
        real_grades(Grade.objects.filter(pool_item__query=query), query.campaign_id)
        .order_by("rater__username")
        .values_list(
            "pool_item__document_id",
            "pool_item__document__external_id",
            "pool_item__document__title",
            "pool_item__document__url",
            "rater__username",
            "label__name",
            "label__grade",
            "comment",
        )
    )
    item_doc, item_grade = [], []
    for doc_id, ext, title, url, rater, label, grade, comment in grades:
        row = documents.setdefault(doc_id, DocumentRow(doc_id, ext, title, url))
        row.grades.append(Judgement(rater, label, grade, comment))
        if grade is not None:
            item_doc.append(doc_id)
            item_grade.append(grade)
    if source is not None:
        labels = SourceLabel.objects.filter(source=source, query=query).values_list(
            "document_id", "document__external_id", "document__title", "document__url", "grade"
        )
        for doc_id, ext, title, url, grade in labels:
            documents.setdefault(doc_id, DocumentRow(doc_id, ext, title, url)).label = grade
        return
    if rule == DAWID_SKENE:
        _attach_fitted_labels(query, set(item_doc), documents)
    else:
        docs, values, _ = aggregate(np.array(item_doc, dtype=np.int64), np.array(item_grade), rule)
        for doc_id, value in zip(docs.tolist(), values.tolist(), strict=True):
            documents[doc_id].label = value
    rulings = Adjudication.objects.filter(pool_item__query=query).values_list(
        "pool_item__document_id",
        "pool_item__document__external_id",
        "pool_item__document__title",
        "pool_item__document__url",
        "label__name",
        "label__grade",
        "note",
    )
    for doc_id, ext, title, url, name, grade, note in rulings:
        row = documents.setdefault(doc_id, DocumentRow(doc_id, ext, title, url))
        row.label, row.adjudicated, row.adjudication_note = grade, name, note
