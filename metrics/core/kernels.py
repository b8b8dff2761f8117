"""Array-level kernels: every measure for all queries at once.

Inputs are flat arrays in CSR layout (see :class:`metrics.core.align.Ranking`): ``grades`` of
the ranked documents, ``qidx`` (query index of each row) and ``rank`` (0-based rank inside its
query). Per-query sums use ``np.bincount`` with weights, which adds each query's terms in rank
order exactly as trec_eval's loops do; running counts use integer cumulative sums, which are
exact. Nothing loops over queries or documents in Python.

Conventions: a grade of NaN is "not in the qrels", a negative grade "pooled but not judged";
both have gain 0 and are never relevant. Where a denominator is 0 the measure is 0.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

Gain = str | Mapping[float, float]

GAINS = ("linear", "exponential")
DISCOUNTS = ("log2", "jarvelin")


def check_gain(gain: Gain) -> Gain:
    """Validate a gain option; a mapping is checked to map numbers to numbers."""
    if isinstance(gain, Mapping):
        for grade, value in gain.items():
            try:
                ok = float(grade) >= 0 and np.isfinite(float(value))
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise ValueError(
                    f"gain map: bad entry {grade!r}: {value!r} (grades >= 0 -> numbers)"
                )
        return {float(k): float(v) for k, v in gain.items()}
    if gain not in GAINS:
        raise ValueError(
            f"gain must be one of {', '.join(GAINS)} or a grade-to-gain map, not {gain!r}"
        )
    return gain


def gain_values(grades: np.ndarray, gain: Gain = "linear") -> np.ndarray:
    """Gain of each grade.

    ``linear``: g; ``exponential``: 2^g - 1; a map ``{grade: gain}``: the mapped value, and the
    grade itself for grades the map does not list (trec_eval's ``ndcg.1=3,2=7`` rule).
    Unjudged (NaN) and pooled-unjudged (negative) grades get 0.
    """
    judged = grades >= 0  # False for NaN
    g = np.where(judged, grades, 0.0)
    if isinstance(gain, Mapping):
        out = g.copy()
        for grade, value in gain.items():
            out[judged & (g == grade)] = value
        return out
    if gain == "exponential":
        return np.where(judged, np.exp2(g) - 1.0, 0.0)
    return g


def discount_denominators(rank: np.ndarray, discount: str = "log2") -> np.ndarray:
    """Divisor of the gain at each 0-based rank r (1-based rank i = r + 1).

    ``log2``: log2(i + 1). ``jarvelin`` (Järvelin & Kekäläinen 2002, base 2): 1 for i = 1,
    log2(i) after (rank 2 is not discounted either, since log2(2) = 1).
    """
    if discount == "log2":
        return np.log2(rank + 2.0)
    if discount == "jarvelin":
        return np.maximum(np.log2(rank + 1.0), 1.0)
    raise ValueError(f"discount must be one of {', '.join(DISCOUNTS)}, not {discount!r}")


def per_query_sum(
    qidx: np.ndarray, n_queries: int, weights: np.ndarray | None = None
) -> np.ndarray:
    """Sum (or count, without weights) per query, in row order."""
    out = np.bincount(qidx, weights=weights, minlength=n_queries)
    return out.astype(np.float64, copy=False)


def running_count(mask: np.ndarray, offsets: np.ndarray, qidx: np.ndarray) -> np.ndarray:
    """Inclusive count of True rows so far within each query (exact integer arithmetic)."""
    cs = np.cumsum(mask, dtype=np.int64)
    before = np.concatenate(([0], cs))[offsets[:-1]]
    return cs - before[qidx]


def safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, and 0 where den is 0."""
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def dcg_at(
    gains: np.ndarray,
    rank: np.ndarray,
    qidx: np.ndarray,
    n_queries: int,
    k: int | None,
    discount: str = "log2",
    denominators: np.ndarray | None = None,
) -> np.ndarray:
    """DCG@k per query: sum over ranks i <= k of gain_i / d(i); k=None for the whole list."""
    den = discount_denominators(rank, discount) if denominators is None else denominators
    w = gains / den
    if k is not None:
        w = np.where(rank < k, w, 0.0)
    return per_query_sum(qidx, n_queries, w)


def sorted_desc_by_query(values: np.ndarray, qidx: np.ndarray, n_queries: int):
    """Values sorted descending within each query: (values, qidx, rank)."""
    order = np.lexsort((-values, qidx))
    v, q = values[order], qidx[order]
    off = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(q, minlength=n_queries), out=off[1:])
    return v, q, np.arange(len(v), dtype=np.int64) - off[:-1][q]


def first_hit_rank(
    hit: np.ndarray, rank: np.ndarray, qidx: np.ndarray, n_queries: int
) -> np.ndarray:
    """0-based rank of the first True row per query, or -1 when there is none."""
    out = np.full(n_queries, -1, dtype=np.int64)
    rows = np.flatnonzero(hit)
    if len(rows):
        q = qidx[rows]
        first = np.concatenate(([True], q[1:] != q[:-1]))
        out[q[first]] = rank[rows[first]]
    return out


def average_precision(
    rel: np.ndarray,
    rel_so_far: np.ndarray,
    rank: np.ndarray,
    qidx: np.ndarray,
    num_rel: np.ndarray,
    k: int | None = None,
) -> np.ndarray:
    """AP (or AP@k): sum over relevant ranks i <= k of P@i, divided by all relevant R.

    AP = (1/R) * sum_{i: rel_i} (relevant in top i) / i, and 0 when R = 0 (trec_eval).
    """
    mask = rel if k is None else rel & (rank < k)
    w = np.where(mask, rel_so_far / (rank + 1.0), 0.0)
    return safe_divide(per_query_sum(qidx, len(num_rel), w), num_rel)


def bpref(
    grades: np.ndarray,
    rel: np.ndarray,
    qidx: np.ndarray,
    offsets: np.ndarray,
    num_rel: np.ndarray,
    num_nonrel: np.ndarray,
) -> np.ndarray:
    """bpref exactly as trec_eval: (1/R) sum over retrieved relevant r of
    (1 - min(n_r, R) / min(N, R)), n_r = judged non-relevant ranked above r, N = all judged
    non-relevant; the term is 1 when n_r = 0. Unjudged documents are skipped."""
    nonrel = (grades >= 0) & ~rel
    n_above = running_count(nonrel, offsets, qidx)  # inclusive, but 0 change on relevant rows
    r = num_rel[qidx]
    den = np.minimum(num_nonrel[qidx], r)
    frac = safe_divide(np.minimum(n_above, r).astype(np.float64), den.astype(np.float64))
    term = np.where(n_above > 0, 1.0 - frac, 1.0)
    return safe_divide(per_query_sum(qidx, len(num_rel), np.where(rel, term, 0.0)), num_rel)


def interpolated_precision(
    rel: np.ndarray,
    rel_so_far: np.ndarray,
    rank: np.ndarray,
    qidx: np.ndarray,
    num_rel: np.ndarray,
    levels: tuple[float, ...],
) -> np.ndarray:
    """trec_eval's iprec_at_recall: max precision at any rank at or after the point where
    floor(level * R + 0.9) relevant documents have been retrieved; 0 if never reached.
    Returns an array (levels, queries)."""
    nq = len(num_rel)
    rows = np.flatnonzero(rel)
    prec = rel_so_far[rows] / (rank[rows] + 1.0)
    q = qidx[rows]
    start = np.zeros(nq + 1, dtype=np.int64)
    np.cumsum(np.bincount(q, minlength=nq), out=start[1:])
    num_rel_ret = np.diff(start)
    out = np.zeros((len(levels), nq))
    if len(rows) == 0:
        return out
    # A trailing 0 lets the last query's end index stay inside the array for reduceat.
    padded = np.concatenate((prec, [0.0]))
    for li, level in enumerate(levels):
        # trec_eval up to 9.0.7 (and pytrec_eval): (long) (level * R + 0.9). trec_eval 9.0.8
        # switched to lround(level * R); the two differ when level * R has a fraction < 0.5.
        need = np.floor(level * num_rel + 0.9).astype(np.int64)
        ok = (need <= num_rel_ret) & (num_rel_ret > 0)
        first = start[:-1] + np.maximum(need, 1) - 1
        # max over [first, end) of each query: reduceat on interleaved (first, end) pairs.
        idx = np.stack([np.where(ok, first, 0), np.where(ok, start[1:], 0)], axis=1).ravel()
        m = np.maximum.reduceat(padded, idx)[::2]
        out[li] = np.where(ok, m, 0.0)
    return out


def err_at(
    grades: np.ndarray,
    rank: np.ndarray,
    qidx: np.ndarray,
    n_queries: int,
    cutoffs: tuple[int, ...],
    max_grade: float,
) -> np.ndarray:
    """ERR@k (Chapelle et al. 2009) per cut-off: sum_{i<=k} (R_i / i) prod_{j<i} (1 - R_j),
    with R = (2^g - 1) / 2^g_max. Returns an array (cutoffs, queries)."""
    kmax = max(cutoffs)
    g = np.where(grades >= 0, grades, 0.0)
    if max_grade <= 0:
        return np.zeros((len(cutoffs), n_queries))
    if np.any(g > max_grade):
        raise ValueError(f"ERR: a grade {g.max():g} is above the top grade {max_grade:g}")
    stop = np.exp2(g) - 1.0
    stop /= 2.0**max_grade
    keep = rank < kmax
    width = int(min(kmax, rank[keep].max() + 1)) if keep.any() else 1
    out = np.zeros((len(cutoffs), n_queries))
    # Dense (queries x ranks) blocks keep the running product exact and simple; blocks bound
    # the memory when both the query count and the cut-off are large.
    block = max(1, 4_000_000 // width)
    rows_q, rows_r, rows_s = qidx[keep], rank[keep], stop[keep]
    bounds = np.searchsorted(rows_q, np.arange(0, n_queries + block, block))
    for b, q0 in enumerate(range(0, n_queries, block)):
        lo, hi = bounds[b], bounds[b + 1]
        nb = min(block, n_queries - q0)
        m = np.zeros((nb, width))
        m[rows_q[lo:hi] - q0, rows_r[lo:hi]] = rows_s[lo:hi]
        survive = np.cumprod(1.0 - m, axis=1)
        before = np.concatenate((np.ones((nb, 1)), survive[:, :-1]), axis=1)
        cum = np.cumsum(m * before / np.arange(1, width + 1), axis=1)
        for ci, k in enumerate(cutoffs):
            out[ci, q0 : q0 + nb] = cum[:, min(k, width) - 1]
    return out
