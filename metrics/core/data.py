"""Qrels and runs: columns of query ids, document ids and a number.

Both are thin, immutable wrappers around a polars frame (``qid``, ``docid`` and ``grade`` or
``score``). Ids are strings (numbers given as ids are turned into their decimal text, since ties
are broken on the id's bytes). What evaluation needs besides the columns (query codes, document
hashes) is computed once per object and cached, so evaluating many runs against one qrels does
not redo the qrels' share of the work.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np
import polars as pl

# Fixed seeds: document hashes of a run and of a qrels must agree within one process.
_HASH_SEED = 0x5EED_1D5
# Query code in the high bits, 40 bits of the document hash below: a key that sorts by query.
_KEY_SHIFT = np.uint64(40)
_HASH_DROP = np.uint64(64 - 40)
MAX_KEYED_QUERIES = 1 << 24
# Whole grades below this are sorted as packed integers.
_SMALL_GRADES = 1 << 20


def _as_string_series(values: Any, what: str) -> pl.Series:
    s = values if isinstance(values, pl.Series) else pl.Series(values=np.asarray(values))
    if s.dtype != pl.String:
        if s.dtype == pl.Object or s.dtype.is_float():
            # Objects may mix types and floats would print as "1.0": refuse the ambiguity.
            s = pl.Series(values=[str(v) for v in s.to_list()], dtype=pl.String)
        else:
            s = s.cast(pl.String)
    if s.null_count():
        raise ValueError(f"{what}: ids must not be missing")
    return s.rename(what)


def _as_float_series(values: Any, what: str) -> pl.Series:
    try:
        arr = np.asarray(
            values.to_numpy() if isinstance(values, pl.Series) else values, dtype=np.float64
        )
    except (TypeError, ValueError):
        raise ValueError(f"{what}: every {what} must be a number") from None
    if arr.ndim != 1:
        raise ValueError(f"{what}: expected a one-dimensional column")
    if np.isnan(arr).any():
        raise ValueError(f"{what}: every {what} must be a number (found NaN)")
    return pl.Series(what, arr)


def first_duplicate(df: pl.DataFrame) -> tuple[str, str, int, int] | None:
    """The first repeated (qid, docid) as (qid, docid, first row, repeated row), or None.

    Exact and slow: only called when the hashed keys say something may repeat.
    """
    rows = (
        df.select("qid", "docid")
        .with_row_index("row")
        .filter(pl.struct("qid", "docid").is_duplicated())
    )
    if rows.height == 0:
        return None
    firsts = rows.group_by("qid", "docid").agg(pl.col("row").min().alias("first"))
    repeats = rows.join(firsts, on=["qid", "docid"]).filter(pl.col("row") > pl.col("first"))
    hit = repeats.sort("row").row(0, named=True)
    return hit["qid"], hit["docid"], int(hit["first"]), int(hit["row"])


class _Table:
    """Shared machinery of :class:`Qrels` and :class:`Run`.

    Stored as columns, not as a frame: query codes (int32, into the sorted distinct ids), the
    document ids (a polars string Series, kept in the chunks the reader produced) and the
    numbers (float64). A frame would also hold the query ids and the numbers a second time,
    which for a million-line run is a sixth of the peak memory.
    """

    _value: str = ""

    def __init__(self) -> None:  # pragma: no cover - use the constructors
        raise TypeError(f"use {type(self).__name__}.from_dict, from_arrays or a reader")

    @classmethod
    def _trusted(cls, df: pl.DataFrame, **extra: Any):
        obj = object.__new__(cls)
        obj._vocab, obj._codes = _code_queries(df["qid"])
        # No rechunk of the ids: they are only ever gathered, which polars does across chunks.
        obj._docids = df["docid"]
        values = df[cls._value].to_numpy()
        values.flags.writeable = False
        obj._values = values
        for key, value in extra.items():
            setattr(obj, key, value)
        return obj

    @classmethod
    def _build(cls, qids: Any, docids: Any, values: Any, **extra: Any):
        q = _as_string_series(qids, "qid")
        d = _as_string_series(docids, "docid")
        v = _as_float_series(values, cls._value)
        if not (len(q) == len(d) == len(v)):
            raise ValueError(f"qids, docids and {cls._value}s must have the same length")
        obj = cls._trusted(pl.DataFrame([q, d, v]), **extra)
        dup = obj.duplicate()
        if dup is not None:
            raise ValueError(f"document '{dup[1]}' appears twice in query '{dup[0]}'")
        return obj

    @classmethod
    def _from_nested(cls, mapping: Mapping[Any, Mapping[Any, Any]], **extra: Any):
        if not isinstance(mapping, Mapping):
            raise ValueError(f"expected a mapping {{qid: {{docid: {cls._value}}}}}")
        qids: list[str] = []
        docids: list[str] = []
        values: list[Any] = []
        for qid, docs in mapping.items():
            if not isinstance(docs, Mapping):
                raise ValueError(f"query '{qid}': expected a mapping {{docid: {cls._value}}}")
            qids.extend([str(qid)] * len(docs))
            docids.extend(str(d) for d in docs)
            values.extend(docs.values())
        return cls._build(
            pl.Series(values=qids, dtype=pl.String),
            pl.Series(values=docids, dtype=pl.String),
            values,
            **extra,
        )

    def _frame_of(self, rows: np.ndarray | None = None) -> pl.DataFrame:
        codes = self._codes if rows is None else self._codes[rows]
        docids = self._docids if rows is None else self._docids.gather(rows)
        values = self._values if rows is None else self._values[rows]
        qids = pl.Series("qid", self._vocab, dtype=pl.String).gather(codes)
        return pl.DataFrame([qids, docids.rename("docid"), pl.Series(self._value, values)])

    @property
    def frame(self) -> pl.DataFrame:
        """The columns as a polars frame (``qid``, ``docid`` and the value column), built on
        each call."""
        return self._frame_of()

    @property
    def docids(self) -> pl.Series:
        """The document ids, one per line, as a polars string Series."""
        return self._docids

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {len(self.qids)} queries, {len(self)} lines>"

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{qid: {docid: value}}``."""
        out: dict[str, dict[str, float]] = {}
        vocab = self._vocab
        docids = self._docids.to_list()
        for code, d, v in zip(self._codes.tolist(), docids, self._values.tolist(), strict=True):
            out.setdefault(vocab[code], {})[d] = v
        return out

    @property
    def _coded(self) -> tuple[np.ndarray, np.ndarray]:
        """(sorted unique qids as an object array, the int32 code of each row's qid)."""
        return self._vocab, self._codes

    @property
    def qids(self) -> list[str]:
        """The distinct query ids, in byte order."""
        return self._vocab.tolist()

    @cached_property
    def _key_order(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(row order, sorted keys) by (query code, document hash); None for 2^24+ queries.

        A key is the query code in the high 24 bits and 40 bits of the document hash below, so
        the sort is by query first. Because query codes follow the byte order of the ids, this
        order stays sorted when the codes are mapped into another (qrels') vocabulary, which
        is what lets the join binary-search sorted keys. Equal keys are either a repeated
        document or (rarely) two documents whose hashes share 40 bits: both are checked on
        the ids themselves where it matters, so the sort need not be stable.
        """
        if len(self._vocab) >= MAX_KEYED_QUERIES:
            return None
        keys = self._docids.hash(_HASH_SEED).to_numpy(writable=True)
        keys >>= _HASH_DROP
        high = self._codes.astype(np.uint64)
        high <<= _KEY_SHIFT
        keys |= high
        del high
        # int32 rows: half the memory of argsort's int64 for as long as the object lives.
        order = np.argsort(keys).astype(np.int32) if len(keys) < 2**31 else np.argsort(keys)
        return order, keys[order]

    def duplicate(self) -> tuple[str, str, int, int] | None:
        """A (qid, docid) given twice, as (qid, docid, first row, repeated row), or None."""
        keyed = self._key_order
        if keyed is None:
            return first_duplicate(self.frame)
        order, sk = keyed
        equal = np.flatnonzero(sk[1:] == sk[:-1])
        if len(equal) == 0:
            return None
        # Only rows sharing a key can repeat: check those few exactly, in file order.
        rows = np.unique(np.concatenate((order[equal], order[equal + 1])))
        dup = first_duplicate(self._frame_of(rows))
        if dup is None:
            return None
        qid, docid, first, row = dup
        return qid, docid, int(rows[first]), int(rows[row])


def _code_queries(ids: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct query ids as an object array, the int32 code of each row's id).

    Readers give query ids as a polars Categorical (4 bytes a row instead of a string view);
    its physical codes are mapped once, through the few distinct ids, to byte order.
    """
    if ids.len() == 0:
        return np.array([], dtype=object), np.array([], dtype=np.int32)
    if ids.dtype != pl.Categorical:
        ids = ids.cast(pl.String).cast(pl.Categorical)
    distinct = ids.unique()
    names = distinct.cast(pl.String)
    order = names.arg_sort().to_numpy()
    vocab = names.gather(order).to_numpy().astype(object)
    physical = distinct.to_physical().to_numpy()
    table = np.zeros(int(physical.max()) + 1, dtype=np.int32)
    table[physical[order]] = np.arange(len(order), dtype=np.int32)
    return vocab, table[ids.to_physical().to_numpy()]


class Qrels(_Table):
    """Relevance judgments: one grade per (query, document).

    Grades may be whole or real. A negative grade means "in the pool but not judged" (as in
    trec_eval): it counts neither as relevant nor as judged, and stays out of the ideal ranking.
    """

    _value = "grade"

    @classmethod
    def from_dict(cls, qrels: Mapping[Any, Mapping[Any, float]]) -> Qrels:
        """Build from ``{qid: {docid: grade}}`` (pytrec_eval's shape)."""
        return cls._from_nested(qrels)

    @classmethod
    def from_arrays(
        cls, qids: Sequence[Any], docids: Sequence[Any], grades: Sequence[float]
    ) -> Qrels:
        """Build from three equally long columns (lists, numpy arrays or polars Series).

        Raises
        ------
        ValueError
            On different lengths, a grade that is not a number, or a (qid, docid) given twice.
        """
        return cls._build(qids, docids, grades)

    @property
    def grades(self) -> np.ndarray:
        """The grades as a float64 array (read-only)."""
        return self._values

    @cached_property
    def max_grade(self) -> float:
        """The highest grade (ERR's g_max on the command line); 0 for empty qrels."""
        return float(self._values.max()) if len(self._values) else 0.0

    @cached_property
    def _judged_sorted(self) -> tuple[np.ndarray, np.ndarray]:
        """(query code, grade) of the judged rows (grade >= 0), grades descending per query."""
        codes = self._coded[1]
        grades = self.grades
        keep = grades >= 0
        if not keep.all():
            codes, grades = codes[keep], grades[keep]
        top = grades.max(initial=0.0)
        if top < _SMALL_GRADES and np.all(grades == np.floor(grades)):
            # Whole grades (the usual case): one sort of (code, top - grade) packed in an
            # int64; no permutation needed, the pair is unpacked from the sorted keys.
            width = int(top) + 1
            packed = codes * width + (int(top) - grades.astype(np.int64))
            span = (int(codes.max(initial=0)) + 1) * width
            if span <= 4 * len(packed) + 1024:
                # Few distinct packed values (queries x grades): a counting sort is linear
                # and gives exactly np.sort's result, several times faster.
                packed = np.repeat(
                    np.arange(span, dtype=np.int64), np.bincount(packed, minlength=span)
                )
            else:
                packed = np.sort(packed)
            return packed // width, (int(top) - packed % width).astype(np.float64)
        order = np.lexsort((-grades, codes))
        return codes[order], grades[order]


class Run(_Table):
    """One system's ranked results: a score per (query, document).

    The order is by score, highest first, ties broken by document id in descending byte order
    (trec_eval's order); ranks given in a file are not used.
    """

    _value = "score"
    name: str | None = None

    @classmethod
    def from_dict(cls, run: Mapping[Any, Mapping[Any, float]], *, name: str | None = None) -> Run:
        """Build from ``{qid: {docid: score}}`` (pytrec_eval's shape)."""
        return cls._from_nested(run, name=name)

    @classmethod
    def from_arrays(
        cls,
        qids: Sequence[Any],
        docids: Sequence[Any],
        scores: Sequence[float],
        *,
        name: str | None = None,
    ) -> Run:
        """Build from three equally long columns (lists, numpy arrays or polars Series).

        Raises
        ------
        ValueError
            On different lengths, a score that is not a number (NaN), or a document given twice
            for one query (the message names both).
        """
        return cls._build(qids, docids, scores, name=name)

    @property
    def scores(self) -> np.ndarray:
        """The scores as a float64 array (read-only)."""
        return self._values
