"""THE ranking order of a run (DESIGN.md section 4), used everywhere a run is shown or cut:
evaluation, pooling's top k, the side-by-side lists, the drill-down.

Within a query:

1. entries with a score come first, by score descending (64-bit floats);
2. equal scores are ordered by document external id, descending, comparing the UTF-8 bytes
   (trec_eval's order), never a locale collation;
3. entries without a score (a competitor's list that has only ranks) follow, by rank
   ascending, equal ranks again by document id descending.

A run is normally all-scored or all-unscored; rule 3 only makes a mixed run well defined.

The work is done on numpy arrays: the entries are fetched as four numeric columns, and each
document's place in byte order comes from one ordered query over document ids (the database
sorts the strings, with a byte-order collation), so a million-entry run never becomes a million
Python objects.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.db import connections
from django.db.models import F, QuerySet
from django.db.models.expressions import BaseExpression
from django.db.models.functions import Collate

from annotate.models import Document, Run, RunEntry

_ENTRY_DTYPE = np.dtype([("query", "i8"), ("document", "i8"), ("score", "f8"), ("rank", "i8")])
_CHUNK = 5000

# Query ids, Query objects or a queryset of queries; None for every query of the run.
Queries = Iterable[object] | QuerySet | None


def byte_order(field: str, *, using: str = "default") -> BaseExpression | None:
    """An expression that orders a text column by its UTF-8 bytes on this database, or None
    where the database cannot be told to (sort in Python then, with `byte_order_keys`).

    SQLite's default BINARY collation compares with memcmp over UTF-8: byte order already.
    PostgreSQL's default collation follows the locale ("B" before "a" only by accident), so
    the column is collated as "C", which compares bytes.
    """
    vendor = connections[using].vendor
    if vendor == "sqlite":
        return F(field)
    if vendor == "postgresql":
        return Collate(F(field), "C")
    return None


def byte_order_keys(strings: Iterable[str]) -> np.ndarray:
    """Integer keys whose order is the UTF-8 byte order of the strings (equal strings, equal
    keys). Python compares str by code point, and UTF-8 preserves code point order, so the
    numpy string sort is the byte order without encoding anything."""
    arr = np.array(list(strings), dtype=np.dtypes.StringDType())
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    _, inverse = np.unique(arr, return_inverse=True)
    return inverse.astype(np.int64).reshape(-1)


def ranking_permutation(
    query: np.ndarray, score: np.ndarray, rank: np.ndarray, doc_key: np.ndarray
) -> np.ndarray:
    """The permutation that puts entries in THE order: grouped by query (ascending id), then
    the order described in the module docstring. `score` is float64 with NaN for "no score";
    `doc_key` orders document ids in byte order (higher key = later in byte order)."""
    unscored = np.isnan(score)
    neg_score = np.where(unscored, 0.0, -score)
    rank_key = np.where(unscored, rank, 0)
    # np.lexsort sorts by the last key first.
    return np.lexsort((-doc_key, rank_key, neg_score, unscored, query))


@dataclass(frozen=True)
class RankedRun:
    """A run's entries in ranking order, grouped by query (ascending query id). `position` is
    the 1-based place in that order within the query (the file's rank column is `rank`)."""

    query_id: np.ndarray
    document_id: np.ndarray
    score: np.ndarray
    rank: np.ndarray
    position: np.ndarray

    def __len__(self) -> int:
        return int(self.query_id.size)

    def by_query(self) -> dict[int, np.ndarray]:
        """{query id: document ids in ranking order}."""
        if not len(self):
            return {}
        starts = np.flatnonzero(np.r_[True, self.query_id[1:] != self.query_id[:-1]])
        ends = np.r_[starts[1:], self.query_id.size]
        return {
            int(self.query_id[s]): self.document_id[s:e] for s, e in zip(starts, ends, strict=True)
        }


def ranked_entries(run: Run, *, k: int | None = None, queries: Queries = None) -> RankedRun:
    """The entries of `run` (optionally only of `queries`: ids, Query objects or a queryset)
    in ranking order, cut at the top `k` of each query when k is given."""
    if k is not None and k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    entries_qs = RunEntry.objects.filter(run=run)
    if queries is not None:
        entries_qs = entries_qs.filter(query__in=queries)
    entries = np.fromiter(
        entries_qs.values_list("query_id", "document_id", "score", "rank").iterator(
            chunk_size=_CHUNK
        ),
        dtype=_ENTRY_DTYPE,
    )
    if entries.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return RankedRun(empty, empty, np.zeros(0), empty, empty)

    doc_key = _document_keys(entries["document"], entries_qs.values("document_id"), entries_qs.db)
    order = ranking_permutation(entries["query"], entries["score"], entries["rank"], doc_key)
    entries = entries[order]
    query = entries["query"]
    new_group = np.r_[True, query[1:] != query[:-1]]
    group_start = np.maximum.accumulate(np.where(new_group, np.arange(query.size), 0))
    position = np.arange(query.size) - group_start + 1
    if k is not None:
        keep = position <= k
        entries, position = entries[keep], position[keep]
    return RankedRun(
        query_id=entries["query"].copy(),
        document_id=entries["document"].copy(),
        score=entries["score"].copy(),
        rank=entries["rank"].copy(),
        position=position,
    )


def run_order(run: Run, *, queries: Queries = None) -> dict[int, np.ndarray]:
    """{query id: document ids of `run` in ranking order}."""
    return ranked_entries(run, queries=queries).by_query()


def run_top_k(run: Run, k: int, *, queries: Queries = None) -> dict[int, np.ndarray]:
    """{query id: the top `k` document ids of `run` in ranking order}."""
    return ranked_entries(run, k=k, queries=queries).by_query()


# A side-by-side reply shows the lists of the one or two queries the rater holds, and building
# them (the entries, the documents' byte order) was most of a verdict's time. A run's order
# changes only when its entries are replaced, which raises its entries_version: the key.
_TOP_K_CACHE: OrderedDict[tuple, np.ndarray] = OrderedDict()
_TOP_K_CACHE_SIZE = 20_000
_TOP_K_LOCK = threading.Lock()


def run_top_k_cached(run: Run, k: int, query_ids: list[int]) -> dict[int, np.ndarray]:
    """run_top_k for a few queries, remembered per process by (run, its entries_version, k,
    query): the same answer, without the two reads after the first time."""
    # created_at too: a database reset (or a test's rollback) can give another run the same id.
    key = (run._state.db, run.pk, run.created_at, run.entries_version, k)
    found: dict[int, np.ndarray] = {}
    with _TOP_K_LOCK:
        for query_id in query_ids:
            hit = _TOP_K_CACHE.get((*key, query_id))
            if hit is not None:
                _TOP_K_CACHE.move_to_end((*key, query_id))
                found[query_id] = hit
    missing = [q for q in query_ids if q not in found]
    if missing:
        fetched = run_top_k(run, k, queries=missing)
        empty = np.zeros(0, dtype=np.int64)
        with _TOP_K_LOCK:
            for query_id in missing:
                found[query_id] = fetched.get(query_id, empty)
                _TOP_K_CACHE[(*key, query_id)] = found[query_id]
            while len(_TOP_K_CACHE) > _TOP_K_CACHE_SIZE:
                _TOP_K_CACHE.popitem(last=False)
    return {q: lists for q, lists in found.items() if lists.size}


def _document_keys(document_ids: np.ndarray, wanted: QuerySet, using: str) -> np.ndarray:
    """Byte-order keys of the external ids of `document_ids` (the documents in `wanted`, a
    values("document_id") queryset used as a subquery so no id list is sent)."""
    docs = Document.objects.using(using).filter(id__in=wanted)
    expression = byte_order("external_id", using=using)
    if expression is not None:
        # The database sorts; only the ids come back, already in byte order.
        ids_in_order = np.fromiter(
            docs.order_by(expression).values_list("id", flat=True).iterator(chunk_size=_CHUNK),
            dtype=np.int64,
        )
        keys_in_order = np.arange(ids_in_order.size, dtype=np.int64)
    else:
        pairs = list(docs.values_list("id", "external_id"))
        ids_in_order = np.fromiter((p[0] for p in pairs), dtype=np.int64, count=len(pairs))
        keys_in_order = byte_order_keys(p[1] for p in pairs)
    by_id = np.argsort(ids_in_order)
    sorted_ids = ids_in_order[by_id]
    return keys_in_order[by_id][np.searchsorted(sorted_ids, document_ids)]
