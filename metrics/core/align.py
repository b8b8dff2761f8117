"""Join a run with its qrels and put every query's documents in ranking order.

The result, :class:`Ranking`, is what the kernels work on: for each query that counts, the
grades of its retrieved documents in rank order and the grades of its judged documents,
both as flat arrays cut into queries by offsets (CSR layout). No per-query Python loop.

The join uses 64-bit keys (query code in the high bits, a document hash below) and a binary
search in the qrels' sorted keys; every match is then checked on the document id itself, and
any doubt (a hash collision) falls back to an exact join on the strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import polars as pl

from .data import Qrels, Run


@dataclass(eq=False)
class Ranking:
    """Ranked and judged grades of the queries that count, in CSR layout.

    Attributes
    ----------
    qids
        Query ids that count, in byte order.
    evaluated
        False where a query counts only because of ``complete`` (no results in the run).
    offsets, grades
        ``grades[offsets[i]:offsets[i+1]]`` are query i's retrieved documents in rank order;
        NaN = not in the qrels, negative = pooled but not judged.
    judged_offsets, judged
        ``judged[judged_offsets[i]:judged_offsets[i+1]]``: query i's judged grades (>= 0),
        highest first.
    """

    qids: np.ndarray
    evaluated: np.ndarray
    offsets: np.ndarray
    grades: np.ndarray
    judged_offsets: np.ndarray
    judged: np.ndarray

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    @cached_property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def qidx(self) -> np.ndarray:
        """Query index of each ranked row."""
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), self.lengths)

    @cached_property
    def rank(self) -> np.ndarray:
        """0-based rank of each ranked row within its query."""
        return np.arange(len(self.grades), dtype=np.int64) - self.offsets[:-1][self.qidx]

    @cached_property
    def judged_qidx(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), np.diff(self.judged_offsets))

    @cached_property
    def judged_rank(self) -> np.ndarray:
        return (
            np.arange(len(self.judged), dtype=np.int64) - self.judged_offsets[:-1][self.judged_qidx]
        )


def _offsets(codes: np.ndarray, n: int) -> np.ndarray:
    out = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=n), out=out[1:])
    return out


def _map_vocab(target: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Index of each ``source`` id in the sorted ``target`` ids, or -1."""
    if len(target) == 0 or len(source) == 0:
        return np.full(len(source), -1, dtype=np.int64)
    pos = np.searchsorted(target, source)
    pos_c = np.minimum(pos, len(target) - 1)
    return np.where(target[pos_c] == source, pos_c, -1).astype(np.int64)


def _join_grades(qrels: Qrels, run: Run, to_qrels: np.ndarray) -> np.ndarray:
    """Grade of every run row: NaN where the qrels do not have the (query, document)."""
    out = np.full(len(run), np.nan)
    qkeyed, rkeyed = qrels._key_order, run._key_order
    if len(qrels) == 0 or len(run) == 0:
        return out
    if qkeyed is not None and rkeyed is not None and qkeyed[2] and rkeyed[2]:
        q_order, q_keys, _ = qkeyed
        r_order, r_keys, _ = rkeyed
        if len(to_qrels) == len(qrels._coded[0]) and np.array_equal(
            to_qrels, np.arange(len(to_qrels))
        ):
            # Same queries on both sides (the usual case): the run's keys are already right.
            needles, sorted_rows = r_keys, r_order
        else:
            # Re-key the run's sorted keys with the qrels' query codes; the order stays sorted.
            codes = to_qrels[run._coded[1][r_order]]
            keep = codes >= 0
            low = r_keys[keep] & np.uint64((1 << 40) - 1)
            needles = (codes[keep].astype(np.uint64) << np.uint64(40)) | low
            sorted_rows = r_order[keep]
        pos = np.minimum(np.searchsorted(q_keys, needles), len(q_keys) - 1)
        hit = q_keys[pos] == needles
        run_rows = sorted_rows[hit]
        qrels_rows = q_order[pos[hit]]
        # Equal keys may still be different documents (40 bits of hash): check the ids.
        same = run.frame["docid"].gather(run_rows) == qrels.frame["docid"].gather(qrels_rows)
        if bool(same.all()):
            out[run_rows] = qrels.grades[qrels_rows]
            return out
    # Exact join on the strings: after a hash collision, or for 2^24 queries or more.
    left = pl.DataFrame({"code": to_qrels[run._coded[1]], "docid": run.frame["docid"]})
    right = pl.DataFrame(
        {"code": qrels._coded[1], "docid": qrels.frame["docid"], "grade": qrels.grades}
    )
    joined = left.join(right, on=["code", "docid"], how="left", maintain_order="left")
    return joined["grade"].fill_null(np.nan).to_numpy()


def _ranking_order(codes: np.ndarray, scores: np.ndarray, docs: pl.Series) -> np.ndarray | None:
    """Permutation into (query, score descending, docid descending) order; None if already."""
    n = len(codes)
    order: np.ndarray | None = None
    if n > 1:
        dq = codes[1:] - codes[:-1]
        ds = scores[1:] - scores[:-1]
        # Runs are usually written in rank order already: check before sorting.
        in_order = bool(np.all((dq > 0) | ((dq == 0) & (ds <= 0))))
        if not in_order:
            order = np.lexsort((-scores, codes))
    c = codes if order is None else codes[order]
    s = scores if order is None else scores[order]
    tie = (c[1:] == c[:-1]) & (s[1:] == s[:-1]) if n > 1 else np.zeros(0, dtype=bool)
    if not tie.any():
        return order
    # Equal scores in one query: order those rows by document id, descending bytes.
    in_tie = np.zeros(n, dtype=bool)
    in_tie[1:] |= tie
    in_tie[:-1] |= tie
    pos = np.flatnonzero(in_tie)
    group = np.cumsum(np.concatenate(([True], ~tie)))[pos]
    src = pos if order is None else order[pos]
    sub = pl.DataFrame({"g": group, "d": docs.gather(src)})
    perm = sub.select(pl.arg_sort_by("g", "d", descending=[False, True])).to_series().to_numpy()
    full = np.arange(n) if order is None else order
    full[pos] = src[perm]
    return full


def align(
    qrels: Qrels,
    run: Run,
    *,
    complete: bool = False,
    depth: int | None = None,
    judged_docs_only: bool = False,
) -> tuple[Ranking, list[str]]:
    """Build the :class:`Ranking` of ``run`` against ``qrels``.

    Returns the ranking and the qrels queries that have no results in the run (skipped unless
    ``complete``, where they count with empty result lists).
    """
    vocab, qcodes = qrels._coded
    run_vocab, run_codes = run._coded
    nv = len(vocab)
    to_qrels = _map_vocab(vocab, run_vocab)
    codes = to_qrels[run_codes] if len(run_codes) else np.zeros(0, dtype=np.int64)
    keep = codes >= 0
    rows: np.ndarray | None = None
    if not keep.all():
        rows = np.flatnonzero(keep)
        codes = codes[rows]
    present = np.zeros(nv, dtype=bool)
    present[to_qrels[to_qrels >= 0]] = True

    grades = _join_grades(qrels, run, to_qrels)
    if rows is not None:
        grades = grades[rows]
    scores = run.scores if rows is None else run.scores[rows]
    docs = run.frame["docid"] if rows is None else run.frame["docid"].gather(rows)
    order = _ranking_order(codes, scores, docs)
    if order is not None:
        codes, grades = codes[order], grades[order]

    cut = np.ones(len(codes), dtype=bool)
    if depth is not None:
        off = _offsets(codes, nv)
        cut &= (np.arange(len(codes)) - off[:-1][codes]) < depth
    if judged_docs_only:
        cut &= grades >= 0
    if not cut.all():
        codes, grades = codes[cut], grades[cut]

    selected = np.ones(nv, dtype=bool) if complete else present
    missing = vocab[~present].tolist()
    sel_idx = np.flatnonzero(selected)
    counts = np.bincount(codes, minlength=nv)[sel_idx]
    offsets = np.zeros(len(sel_idx) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])

    jcodes, jgrades = qrels._judged_sorted
    if not selected.all():
        jkeep = selected[jcodes]
        jcodes, jgrades = jcodes[jkeep], jgrades[jkeep]
    jcounts = np.bincount(jcodes, minlength=nv)[sel_idx]
    joffsets = np.zeros(len(sel_idx) + 1, dtype=np.int64)
    np.cumsum(jcounts, out=joffsets[1:])

    ranking = Ranking(
        qids=vocab[sel_idx],
        evaluated=present[sel_idx],
        offsets=offsets,
        grades=grades,
        judged_offsets=joffsets,
        judged=jgrades,
    )
    return ranking, missing
