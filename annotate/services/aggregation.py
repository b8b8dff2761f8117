"""Grades into qrels: one label per query-document pair, by the campaign's rule (mean, median or
majority) or one asked for; and the qrels of an imported label source.

The rules and the ruling merge are the pure kernel, metrics.core.aggregate (``aggregate``,
``merge_rulings``); this module reads the database and hands the kernel arrays. A pool item
without a counted grade gives no qrels line (unjudged: gain 0, not relevant).

Adjudication: a manager may settle a pair by hand (annotate.services.adjudication). The ruling
overrides the aggregate of that pair (its `grade` is replaced, its `n` kept; a ruled pair with no
counted grade gets a line with n = 0), here, before any caller sees it; the table's
`adjudicated` column marks those pairs.

Two forms of the same qrels: ``aggregate_qrels`` gives numpy columns (the metrics engine needs
every line at once anyway), ``qrels_stream`` gives the lines one by one for exports, reading the
grades in the output's order and aggregating a few thousand at a time, so an export holds the
same memory for a thousand grades as for ten million. Both run the same kernel and the same
ruling merge, so a rule cannot mean one thing in a report and another in a file; the tests
hold the two forms equal line for line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from django.db import connections
from django.db.models import Count, Exists, F, FilteredRelation, OuterRef, Q, QuerySet
from django.db.models.functions import Collate

from annotate.models import (
    Adjudication,
    Aggregation,
    Campaign,
    Document,
    Grade,
    LabelSource,
    PoolItem,
    SourceLabel,
)
from annotate.selectors.confusion import campaign_fit
from annotate.selectors.real import excluded_raters, real_grades
from annotate.services.adjudication import adjudication_rows
from metrics.core.aggregate import aggregate, apply_adjudications, check_rule, merge_rulings

_CHUNK = 5000
SOURCE_RULE = "source"

RULE_NOTES: dict[str, str] = {
    Aggregation.MEAN: "mean of the raters' grades",
    Aggregation.MEDIAN: (
        "median of the raters' grades; an even count takes the mean of the two middle grades"
    ),
    Aggregation.MAJORITY: "most frequent grade; a tie goes to the lower grade",
    Aggregation.DAWID_SKENE: (
        "most probable grade under Dawid-Skene: each rater weighted by their estimated "
        "confusion matrix"
    ),
    SOURCE_RULE: "imported labels, as imported",
}


def rule_note(rule: str) -> str:
    """One line that says how the labels were made, for export headers and command output."""
    note = RULE_NOTES[rule]
    return note if rule == SOURCE_RULE else f"{note}; can't-judge answers left out"


@dataclass(frozen=True)
class QrelsTable:
    """Qrels as columns, sorted by query external id then document external id (byte order).
    `rule` is the aggregation rule, or "source" for an imported label source (then `source`
    names it and every `n` is 1)."""

    rule: str
    query_id: np.ndarray
    document_id: np.ndarray
    query_external_id: np.ndarray
    document_external_id: np.ndarray
    grade: np.ndarray
    n: np.ndarray
    source: str | None = None
    adjudicated: np.ndarray | None = None  # bool per line: a manager's ruling (None: a source)

    def __len__(self) -> int:
        return int(self.grade.size)

    def rows(self) -> Iterator[tuple[str, str, float, int]]:
        """(query external id, document external id, grade, number of grades)."""
        for i in range(len(self)):
            yield (
                str(self.query_external_id[i]),
                str(self.document_external_id[i]),
                float(self.grade[i]),
                int(self.n[i]),
            )

    @property
    def note(self) -> str:
        settled = 0 if self.adjudicated is None else int(self.adjudicated.sum())
        return _settled_note(self.rule, settled)


def _settled_note(rule: str, settled: int) -> str:
    if not settled:
        return rule_note(rule)
    pairs = "pair" if settled == 1 else "pairs"
    return f"{rule_note(rule)}; {settled} {pairs} settled by a manager (the ruling wins)"


class QrelsLine(NamedTuple):
    query: str  # external ids
    document: str
    grade: float
    n: int  # counted grades behind the label (1 for an imported label)
    adjudicated: bool  # a manager's ruling gave the grade


@dataclass(frozen=True)
class QrelsStream:
    """Qrels as lines read on demand, in QrelsTable's order (query then document external id,
    byte order), for exports. `count` (lines) and `settled` (ruled lines) are counted before
    any line is read, so a header can state them; each ``lines()`` call reads the database
    afresh."""

    rule: str
    count: int
    settled: int
    read: Callable[[], Iterator[QrelsLine]]
    source: str | None = None

    def __len__(self) -> int:
        return self.count

    def lines(self) -> Iterator[QrelsLine]:
        return self.read()

    def rows(self) -> Iterator[tuple[str, str, float, int]]:
        """(query external id, document external id, grade, number of grades), as
        QrelsTable.rows."""
        for line in self.read():
            yield line[:4]

    @property
    def note(self) -> str:
        return _settled_note(self.rule, self.settled)


def _checked_rule(campaign: Campaign, rule: str | None) -> str:
    return check_rule(rule or campaign.aggregation)


def aggregate_qrels(*, campaign: Campaign, rule: str | None = None) -> QrelsTable:
    """The campaign's qrels from its raters' grades, by `rule` (default: the campaign's)."""
    rule = _checked_rule(campaign, rule)
    rows = _counted_grades(campaign, ("pool_item__query_id", "q"), ("pool_item__document_id", "d"))
    if rule == Aggregation.DAWID_SKENE:
        items, counts = np.unique(rows["item"], return_counts=True)
        values = _fitted_values(items, _dawid_skene_grades(campaign))
    else:
        items, values, counts = aggregate(rows["item"], rows["g"], rule)
    # Each item's query and document, from its first grade row (items ascending, as above).
    rows = rows[np.argsort(rows["item"], kind="stable")]
    by_item = rows[np.r_[True, rows["item"][1:] != rows["item"][:-1]]] if rows.size else rows
    settled = apply_adjudications(
        item=items,
        query_id=by_item["q"],
        document_id=by_item["d"],
        grade=values,
        n=counts,
        rulings=adjudication_rows(campaign=campaign),
    )
    query_ext = _external_ids(campaign.queries.all(), settled.query_id)
    # One IN (subquery), never two OR-ed: PostgreSQL cannot turn `IN (a) OR IN (b)` into a
    # semi-join, and once the graded documents outgrow work_mem it scanned them again for
    # every document of the table (minutes for a million grades).
    excluded = list(excluded_raters(campaign).values_list("user_id", flat=True))
    lined = PoolItem.objects.filter(campaign=campaign).filter(
        (Q(grades__cant_judge=False, grades__gold=False) & ~Q(grades__rater_id__in=excluded))
        | Q(adjudication__isnull=False)
    )
    doc_ext = _external_ids(
        Document.objects.filter(pk__in=lined.values("document_id")), settled.document_id
    )
    return _sorted_table(
        rule=rule,
        query_id=settled.query_id,
        document_id=settled.document_id,
        query_external_id=query_ext,
        document_external_id=doc_ext,
        grade=settled.grade,
        n=settled.n,
        adjudicated=settled.adjudicated,
    )


def source_qrels(*, source: LabelSource) -> QrelsTable:
    """The qrels of an imported label source, grades as imported (negative grades included:
    "pooled but not judged", as trec_eval reads them)."""
    labels = SourceLabel.objects.filter(source=source)
    rows = np.fromiter(
        labels.values_list("query_id", "document_id", "grade").iterator(chunk_size=_CHUNK),
        dtype=np.dtype([("q", "i8"), ("d", "i8"), ("g", "f8")]),
    )
    query_ext = _external_ids(source.campaign.queries.all(), rows["q"])
    doc_ext = _external_ids(Document.objects.filter(pk__in=labels.values("document_id")), rows["d"])
    return _sorted_table(
        rule=SOURCE_RULE,
        source=source.name,
        query_id=rows["q"],
        document_id=rows["d"],
        query_external_id=query_ext,
        document_external_id=doc_ext,
        grade=rows["g"],
        n=np.ones(rows.size, dtype=np.int64),
    )


def _external_ids(objects: QuerySet, ids: np.ndarray) -> np.ndarray:
    """The external ids of `ids` (all among `objects`), as a numpy string array. Fetched in
    chunks, so a million ids never become a million tuples at once."""
    id_chunks, text_chunks = [], []
    chunk: list[tuple[int, str]] = []
    # order_by(): the models' default order joins the campaign to sort by its name, for nothing.
    for row in objects.order_by().values_list("id", "external_id").iterator(chunk_size=_CHUNK):
        chunk.append(row)
        if len(chunk) == _CHUNK:
            id_chunks.append(np.fromiter((r[0] for r in chunk), dtype=np.int64))
            text_chunks.append(np.array([r[1] for r in chunk], dtype=np.dtypes.StringDType()))
            chunk = []
    if chunk:
        id_chunks.append(np.fromiter((r[0] for r in chunk), dtype=np.int64))
        text_chunks.append(np.array([r[1] for r in chunk], dtype=np.dtypes.StringDType()))
    if not id_chunks:
        return np.array([], dtype=np.dtypes.StringDType())
    all_ids, texts = np.concatenate(id_chunks), np.concatenate(text_chunks)
    order = np.argsort(all_ids)
    return texts[order][np.searchsorted(all_ids[order], ids)]


def _sorted_table(**columns) -> QrelsTable:
    """Sort the columns by query then document external id; numpy compares strings by code
    point, which is UTF-8 byte order."""
    order = np.lexsort(
        (
            np.unique(columns["document_external_id"], return_inverse=True)[1].reshape(-1),
            np.unique(columns["query_external_id"], return_inverse=True)[1].reshape(-1),
        )
    )
    fixed = {k: v[order] if isinstance(v, np.ndarray) else v for k, v in columns.items()}
    return QrelsTable(**fixed)


# Streamed qrels --------------------------------------------------------------------------------


def qrels_stream(*, campaign: Campaign, rule: str | None = None) -> QrelsStream:
    """The campaign's qrels as aggregate_qrels makes them (same lines, grades, order and
    errors), read and aggregated a batch of pool items at a time."""
    rule = _checked_rule(campaign, rule)
    items = PoolItem.objects.filter(campaign=campaign)
    # Excluded raters' grades are no grades (#18); few ids, read once.
    excluded = list(excluded_raters(campaign).values_list("user_id", flat=True))
    # Nor are answers to gold (its accepted label is the pair's ruling).
    counted = Q(grades__cant_judge=False, grades__gold=False) & ~Q(grades__rater_id__in=excluded)
    counted_grades = Grade.objects.filter(cant_judge=False, gold=False).exclude(
        rater_id__in=excluded
    )
    # A line is a pair with a counted grade or a ruling. A bare EXISTS becomes a hash semi-join
    # on PostgreSQL (0.5 s for a million grades); OR-ed with the ruling it stays a subquery run
    # once per pool item (four times slower), so the rulings, few, are counted apart.
    graded = items.filter(Exists(counted_grades.filter(pool_item=OuterRef("pk")))).count()
    rulings = Adjudication.objects.filter(pool_item__campaign=campaign).aggregate(
        settled=Count("pk"),
        alone=Count(
            "pk",
            filter=~Q(Exists(counted_grades.filter(pool_item=OuterRef("pool_item")))),
        ),
    )
    # Every pool item, its counted grades joined on (none: one row with a NULL grade) and its
    # ruling's grade: the rulings travel in the same ordered read as the grades.
    rows = (
        items.annotate(
            counted_grade=FilteredRelation("grades", condition=counted),
            q_ext=_byte_order("query__external_id", items.db),
            d_ext=_byte_order("document__external_id", items.db),
        )
        .order_by("q_ext", "d_ext")
        .values_list(
            "q_ext", "d_ext", "pk", "counted_grade__label__grade", "adjudication__label__grade"
        )
    )

    # Dawid-Skene weighs each rater by all their answers, gold included: fitted once on the
    # whole campaign (three integer columns), then looked up as the batches stream by.
    fitted = _dawid_skene_grades(campaign) if rule == Aggregation.DAWID_SKENE else None

    def read() -> Iterator[QrelsLine]:
        lines = rows.iterator(chunk_size=_CHUNK)
        return aggregated_lines(lines, rule, batch=_CHUNK, fitted=fitted)

    return QrelsStream(
        rule=rule, count=graded + rulings["alone"], settled=rulings["settled"], read=read
    )


def source_qrels_stream(*, source: LabelSource) -> QrelsStream:
    """An imported label source's qrels as source_qrels makes them, read line by line."""
    labels = SourceLabel.objects.filter(source=source)
    rows = (
        labels.annotate(
            q_ext=_byte_order("query__external_id", labels.db),
            d_ext=_byte_order("document__external_id", labels.db),
        )
        .order_by("q_ext", "d_ext")
        .values_list("q_ext", "d_ext", "grade")
    )

    def read() -> Iterator[QrelsLine]:
        for q, d, g in rows.iterator(chunk_size=_CHUNK):
            yield QrelsLine(q, d, float(g), 1, False)

    return QrelsStream(
        rule=SOURCE_RULE, count=labels.count(), settled=0, read=read, source=source.name
    )


def _byte_order(field: str, db: str) -> F | Collate:
    """`field` compared byte by byte, the order numpy gives QrelsTable. SQLite compares text
    that way already (BINARY); PostgreSQL follows the database's collation unless told "C"."""
    return Collate(field, "C") if connections[db].vendor == "postgresql" else F(field)


def _counted_grades(campaign: Campaign, *extra: tuple[str, str]) -> np.ndarray:
    """Every counted grade of the campaign as columns: item, grade, rater, and the `extra`
    (field, column name) pairs, all integers."""
    graded = real_grades(
        Grade.objects.filter(pool_item__campaign=campaign, cant_judge=False), campaign
    )
    fields = ["pool_item_id", "label__grade", "rater_id", *(field for field, _ in extra)]
    dtype = [("item", "i8"), ("g", "f8"), ("r", "i8"), *((name, "i8") for _, name in extra)]
    return np.fromiter(
        graded.values_list(*fields).iterator(chunk_size=_CHUNK), dtype=np.dtype(dtype)
    )


def _dawid_skene_grades(campaign: Campaign) -> dict[int, float]:
    """{pool item: its Dawid-Skene grade}: the campaign's one fit (campaign_fit: the real grades
    and the answers to gold, gold clamped to its accepted label), whose matrices the rater
    quality page shows. Only items with a counted grade are looked up: a gold item's line is
    its ruling."""
    return campaign_fit(campaign).by_item


def _fitted_values(items: np.ndarray, fitted: dict[int, float]) -> np.ndarray:
    return np.fromiter((fitted[i] for i in items.tolist()), dtype=np.float64, count=items.size)


def aggregated_lines(
    rows: Iterable[tuple[str, str, int, float | None, float | None]],
    rule: str,
    *,
    batch: int = _CHUNK,
    fitted: dict[int, float] | None = None,
) -> Iterator[QrelsLine]:
    """The qrels lines of `rows`, one per pool item with a counted grade or a ruling, in the
    rows' order. A row is (query external id, document external id, pool item, counted grade or
    None, the item's ruling or None); an item's rows must be adjacent. Rows are consumed about
    `batch` at a time (never splitting an item), so memory does not grow with the input.
    `fitted` gives each item's grade where the rule needs the whole campaign (Dawid-Skene)."""
    pending: list[tuple] = []
    for row in rows:
        if len(pending) >= batch and row[2] != pending[-1][2]:
            yield from _batch_lines(pending, rule, fitted)
            pending = []
        pending.append(row)
    if pending:
        yield from _batch_lines(pending, rule, fitted)


def _batch_lines(
    rows: list[tuple], rule: str, fitted: dict[int, float] | None = None
) -> Iterator[QrelsLine]:
    """The lines of whole items, in the rows' order: ``aggregate`` for the grades, then
    ``merge_rulings``, as aggregate_qrels does on whole columns."""
    q_ext, d_ext, item_col, grade_col, ruling_col = zip(*rows, strict=True)
    item = np.fromiter(item_col, dtype=np.int64, count=len(rows))
    # None (no counted grade, no ruling) becomes NaN; a label's grade is never NULL.
    grade = np.array(grade_col, dtype=np.float64)
    ruling = np.array(ruling_col, dtype=np.float64)
    counted = ~np.isnan(grade)
    if fitted is None:
        items, values, counts = aggregate(item[counted], grade[counted], rule)
    else:
        items, counts = np.unique(item[counted], return_counts=True)
        values = _fitted_values(items, fitted)
    starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
    first, first_ruling = item[starts], ruling[starts]
    ruled = ~np.isnan(first_ruling)
    merged = merge_rulings(
        item=items, grade=values, n=counts, ruled_item=first[ruled], ruled_grade=first_ruling[ruled]
    )
    # Every line's item is among `first` (the batch's items, in the rows' order).
    line = np.searchsorted(merged.item, first)
    has_line = line < merged.item.size
    has_line[has_line] = merged.item[line[has_line]] == first[has_line]
    for i in np.flatnonzero(has_line).tolist():
        at, j = int(starts[i]), int(line[i])
        yield QrelsLine(
            q_ext[at],
            d_ext[at],
            float(merged.grade[j]),
            int(merged.n[j]),
            bool(merged.adjudicated[j]),
        )
