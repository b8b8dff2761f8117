"""Join a run with its qrels and put every query's documents in ranking order.

The result, :class:`Ranking`, is what the kernels work on: for each query that counts, the
ranks and grades of its retrieved judged documents and the grades of all its judged
documents, as flat arrays in query order (CSR layout). No per-query Python loop.

The join uses 64-bit keys (query code in the high bits, a document hash below) and a binary
search in the qrels' sorted keys; every match is then checked on the document id itself, and
any doubt (a hash collision) falls back to an exact join on the strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from .data import Qrels, Run

if TYPE_CHECKING:
    import polars as pl


@dataclass(eq=False)
class Ranking:
    """What the kernels need of a run against its qrels, for the queries that count.

    Only retrieved documents *with a grade* (>= 0) are kept, one row each, in (query, rank)
    order: unjudged documents have gain 0 and are never relevant, so they matter only through
    the ranks they occupy and the number of documents retrieved. In big runs most documents
    are unjudged, which keeps these arrays small.

    Attributes
    ----------
    qids
        Query ids that count, in byte order.
    evaluated
        False where a query counts only because of ``complete`` (no results in the run).
    lengths
        Documents retrieved per query (after ``depth`` and ``judged_docs_only``).
    qidx, rank, grades
        Query index, 0-based rank and grade of each retrieved judged document.
    judged_offsets, judged
        ``judged[judged_offsets[i]:judged_offsets[i+1]]``: every judged grade (>= 0) of query
        i in the qrels, highest first (the material of the ideal ranking).
    """

    qids: np.ndarray
    evaluated: np.ndarray
    lengths: np.ndarray
    qidx: np.ndarray
    rank: np.ndarray
    grades: np.ndarray
    judged_offsets: np.ndarray
    judged: np.ndarray

    @property
    def n_queries(self) -> int:
        return len(self.qids)

    @cached_property
    def judged_qidx(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), np.diff(self.judged_offsets))

    @cached_property
    def judged_rank(self) -> np.ndarray:
        starts = self.judged_offsets[:-1][self.judged_qidx]
        return np.arange(len(self.judged), dtype=np.int64) - starts


def _map_vocab(target: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Index of each ``source`` id in the sorted ``target`` ids, or -1."""
    if len(target) == 0 or len(source) == 0:
        return np.full(len(source), -1, dtype=np.int32)
    pos = np.searchsorted(target, source)
    pos_c = np.minimum(pos, len(target) - 1)
    # int32 like the query codes (fewer than 2^24 queries keyed, 2^31 at most in any case):
    # the per-row code arrays made from this are a million rows long.
    return np.where(target[pos_c] == source, pos_c, -1).astype(np.int32)


def _join(qrels: Qrels, run: Run, to_qrels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(run rows found in the qrels, their grades)."""
    if len(qrels) == 0 or len(run) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    qkeyed, rkeyed = qrels._key_order, run._key_order
    if qkeyed is None or rkeyed is None:
        return _exact_join(qrels, run, to_qrels)
    q_order, q_keys = qkeyed
    r_order, r_keys = rkeyed
    if len(to_qrels) == len(qrels._coded[0]) and np.array_equal(to_qrels, np.arange(len(to_qrels))):
        # Same queries on both sides (the usual case): the run's keys are already right.
        needles, sorted_rows = r_keys, r_order
    else:
        # Re-key the run's sorted keys with the qrels' query codes; the order stays sorted.
        codes = to_qrels[run._coded[1][r_order]]
        keep = codes >= 0
        low = r_keys[keep] & np.uint64((1 << 40) - 1)
        needles = (codes[keep].astype(np.uint64) << np.uint64(40)) | low
        sorted_rows = r_order[keep]
    if len(needles) > len(q_keys) and len(needles) and not (needles[1:] == needles[:-1]).any():
        # Usually the run is the longer side: search the qrels' keys in the run's instead
        # (fewer binary searches). Exact only while no two run keys are equal, since each
        # qrels key then has at most one candidate; the id check below rejects the rest.
        rpos = np.searchsorted(needles, q_keys)
        np.minimum(rpos, len(needles) - 1, out=rpos)
        qhit = np.flatnonzero(needles[rpos] == q_keys)
        rpos = rpos[qhit]
        # Back in run-key order, as the other direction yields them.
        back = np.argsort(rpos)
        run_rows = sorted_rows[rpos[back]]
        qrels_rows = q_order[qhit[back]]
        del rpos, qhit, back
        run_docs = run.docids.gather(run_rows)
        same = (run_docs == qrels.docids.gather(qrels_rows)).to_numpy()
        if not same.all():
            run_rows, qrels_rows = run_rows[same], qrels_rows[same]
        return run_rows, qrels.grades[qrels_rows]
    pos = np.searchsorted(q_keys, needles)
    np.minimum(pos, len(q_keys) - 1, out=pos)
    hit = q_keys[pos] == needles
    run_rows = sorted_rows[hit]
    qrels_rows = q_order[pos[hit]]
    del pos, hit
    # Equal keys may still be different documents (40 bits of hash): check the ids.
    run_docs = run.docids.gather(run_rows)
    same = (run_docs == qrels.docids.gather(qrels_rows)).to_numpy()
    grades = qrels.grades[qrels_rows]
    if not same.all():
        grades = _resolve_collisions(
            qrels, q_order, q_keys, run_docs, _needles_of(run_rows, run, to_qrels), grades, same
        )
    found = ~np.isnan(grades)
    return run_rows[found], grades[found]


def _needles_of(rows: np.ndarray, run: Run, to_qrels: np.ndarray) -> np.ndarray:
    """The qrels-side keys of some run rows (used only after a hash collision)."""
    order, keys = run._key_order
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    low = keys[position[rows]] & np.uint64((1 << 40) - 1)
    return (to_qrels[run._coded[1][rows]].astype(np.uint64) << np.uint64(40)) | low


def _resolve_collisions(qrels, q_order, q_keys, run_docs, needles, grades, same) -> np.ndarray:
    """Fix the matches whose key is shared by another document: look at every qrels entry
    with that key and compare the ids. Rare (a 40-bit collision), hence a plain loop."""
    grades = grades.copy()
    qdocs = qrels.docids
    for i in np.flatnonzero(~same):
        lo = np.searchsorted(q_keys, needles[i], side="left")
        hi = np.searchsorted(q_keys, needles[i], side="right")
        grades[i] = np.nan
        for j in range(lo, hi):
            if qdocs[int(q_order[j])] == run_docs[int(i)]:
                grades[i] = qrels.grades[q_order[j]]
    return grades


def _exact_join(qrels: Qrels, run: Run, to_qrels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Join on the strings: for 2^24 queries or more, where the keys have no room."""
    import polars as pl  # imported where used, as in _ranking_order

    left = pl.DataFrame({"code": to_qrels[run._coded[1]], "docid": run.docids})
    right = pl.DataFrame({"code": qrels._coded[1], "docid": qrels.docids, "grade": qrels.grades})
    joined = left.join(right, on=["code", "docid"], how="left", maintain_order="left")
    grades = joined["grade"].to_numpy()
    rows = np.flatnonzero(~np.isnan(grades))
    return rows, grades[rows]


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
    import polars as pl  # imported where used: the admin loads this module through the
    # package and never sorts, and polars costs every web and job process half a second

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
    vocab, _ = qrels._coded
    run_vocab, run_codes = run._coded
    nv = len(vocab)
    to_qrels = _map_vocab(vocab, run_vocab)
    present = np.zeros(nv, dtype=bool)
    present[to_qrels[to_qrels >= 0]] = True
    # The kept rows go straight into the next call, which is then their only holder and can
    # drop them as it goes (a run of millions of rows: each array is tens of megabytes).
    q, rank, grades, counts = _judged_in_ranking_order(
        qrels, run, to_qrels, *_kept_rows(run_codes, to_qrels), nv
    )
    if depth is not None:
        counts = np.minimum(counts, depth)
        top = rank < depth
        q, rank, grades = q[top], rank[top], grades[top]
    if judged_docs_only:
        # Unjudged documents leave the ranking: ranks close up (trec_eval -J).
        counts = np.bincount(q, minlength=nv)
        first = np.concatenate(([0], np.cumsum(counts)[:-1]))
        rank = np.arange(len(q), dtype=np.int64) - first[q]

    selected = np.ones(nv, dtype=bool) if complete else present
    missing = vocab[~present].tolist()
    sel_idx = np.flatnonzero(selected)
    if not selected.all():
        # Without complete, every kept row already belongs to a selected (present) query.
        q = (np.cumsum(selected) - 1)[q]
    joffsets, jgrades = _judged_lists(qrels, selected, sel_idx, nv)
    ranking = Ranking(
        qids=vocab[sel_idx],
        evaluated=present[sel_idx],
        lengths=counts[sel_idx].astype(np.int64),
        qidx=q.astype(np.int64, copy=False),
        rank=rank.astype(np.int64, copy=False),
        grades=grades,
        judged_offsets=joffsets,
        judged=jgrades,
    )
    return ranking, missing


def _kept_rows(run_codes: np.ndarray, to_qrels: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """(qrels query code of each kept run row, the kept rows or None for all of them): the run
    rows whose query is in the qrels."""
    codes = to_qrels[run_codes] if len(run_codes) else np.zeros(0, dtype=np.int32)
    keep = codes >= 0
    if keep.all():
        return codes, None
    rows = np.flatnonzero(keep)
    return codes[rows], rows


def _judged_in_ranking_order(
    qrels: Qrels,
    run: Run,
    to_qrels: np.ndarray,
    codes: np.ndarray,
    rows: np.ndarray | None,
    nv: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(query code, 0-based rank, grade) of every judged retrieved document in (query, rank)
    order, and the number of retrieved documents per query code."""
    # Ranking order of the kept rows, and where each judged run row lands in it.
    scores = run.scores if rows is None else run.scores[rows]
    docs = run.docids if rows is None else run.docids.gather(rows)
    order = _ranking_order(codes, scores, docs)
    del scores, docs
    hit_rows, hit_grades = _join(qrels, run, to_qrels)
    pos = hit_rows if rows is None else np.searchsorted(rows, hit_rows)
    if order is not None:
        inverse = np.empty(len(order), dtype=np.int64)
        inverse[order] = np.arange(len(order))
        pos = inverse[pos]
        del inverse
        codes = codes[order]
    # Scatter the grades into ranking order: judged documents (>= 0) come out in
    # (query, rank) order without another sort.
    ordered = np.full(len(codes), np.nan)
    ordered[pos] = hit_grades
    del pos, hit_rows, hit_grades
    judged_rows = np.flatnonzero(ordered >= 0)
    grades = ordered[judged_rows]
    del ordered
    q = codes[judged_rows]
    counts = np.bincount(codes, minlength=nv)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    return q, judged_rows - starts[q], grades, counts


def _judged_lists(
    qrels: Qrels, selected: np.ndarray, sel_idx: np.ndarray, nv: int
) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, grades) of every selected query's judged documents, CSR layout."""
    jcodes, jgrades = qrels._judged_sorted
    if not selected.all():
        jkeep = selected[jcodes]
        jcodes, jgrades = jcodes[jkeep], jgrades[jkeep]
    jcounts = np.bincount(jcodes, minlength=nv)[sel_idx]
    joffsets = np.zeros(len(sel_idx) + 1, dtype=np.int64)
    np.cumsum(jcounts, out=joffsets[1:])
    return joffsets, jgrades
