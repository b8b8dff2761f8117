"""Array-level kernels: every measure for all queries at once.

The inputs describe the retrieved documents that have a grade (>= 0), one row each, in
(query, rank) order: ``qidx`` (query index), ``rank`` (0-based rank in the query's ranking,
counting unjudged documents too) and ``grades``; plus per-query counts. Unjudged documents have
gain 0 and are never relevant, so they need no rows: they only shift ranks.

Per-query sums use ``np.bincount`` with weights, which adds each query's terms in rank order,
as trec_eval's loops do; running counts use integer arithmetic, which is exact. Nothing loops
over queries or documents in Python. Where a denominator is 0 the measure is 0.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

Gain = str | Mapping[float, float]


class GradesTooLarge(ValueError):
    """A grade whose gain or ERR's 2^g is no float (stored before grades were bounded, or
    given to the library directly): the measure is refused, not an overflow. ``grade`` is the
    largest grade in question."""

    def __init__(self, message: str, grade: float) -> None:
        super().__init__(message)
        self.grade = grade


GAINS = ("linear", "exponential")
DISCOUNTS = ("log2", "jarvelin")


def check_gain(gain: Gain) -> Gain:
    """Validate a gain option; a mapping must map grades >= 0 to finite numbers."""
    if isinstance(gain, Mapping):
        out = {}
        for grade, value in gain.items():
            try:
                g, v = float(grade), float(value)
            except (TypeError, ValueError):
                g, v = -1.0, 0.0
            if not (g >= 0 and np.isfinite(v)):
                raise ValueError(f"gain map: bad entry {grade!r}: {value!r} (grade >= 0 -> number)")
            out[g] = v
        return out
    if gain not in GAINS:
        raise ValueError(
            f"gain must be one of {', '.join(GAINS)} or a grade-to-gain map, not {gain!r}"
        )
    return gain


def gain_values(grades: np.ndarray, gain: Gain = "linear") -> np.ndarray:
    """Gain of each grade (grades >= 0; anything else gets 0).

    ``linear``: g. ``exponential``: 2^g - 1. A map ``{grade: gain}``: the mapped value, and g
    itself for grades the map does not list (trec_eval's rule for ``ndcg.1=3,2=7``).
    """
    judged = grades >= 0  # False for NaN too
    g = np.where(judged, grades, 0.0)
    if isinstance(gain, Mapping):
        out = g.copy()
        for grade, value in gain.items():
            out[judged & (g == grade)] = value
    elif gain == "exponential":
        with np.errstate(over="ignore"):  # refused just below, with the grade named
            out = np.where(judged, np.exp2(g) - 1.0, 0.0)
    else:
        out = g
    return _finite_sums(out, g)


def _finite_sums(gains: np.ndarray, grades: np.ndarray) -> np.ndarray:
    """``gains``, if every sum of them is a finite float; else a ValueError that names the
    largest grade. The sum of the absolute values bounds every partial sum a measure takes,
    so one O(n) check covers DCG, IDCG and the rest."""
    with np.errstate(over="ignore"):
        total = np.abs(gains).sum()
    if not np.isfinite(total):
        raise GradesTooLarge(
            f"grades up to {np.max(grades):g} give gains too large to add up (a float "
            "overflows); use grades of a smaller scale or the linear gain",
            float(np.max(grades)),
        )
    return gains


def discount_denominators(rank: np.ndarray, discount: str = "log2") -> np.ndarray:
    """Divisor of the gain at each 0-based rank r (1-based rank i = r + 1).

    ``log2``: log2(i + 1). ``jarvelin`` (Järvelin & Kekäläinen 2002, base 2): 1 for i = 1, then
    log2(i) (so rank 2 is not discounted either).
    """
    if discount == "log2":
        return np.log2(rank + 2.0)
    if discount == "jarvelin":
        return np.maximum(np.log2(rank + 1.0), 1.0)
    raise ValueError(f"discount must be one of {', '.join(DISCOUNTS)}, not {discount!r}")


def per_query_sum(
    qidx: np.ndarray, n_queries: int, weights: np.ndarray | None = None
) -> np.ndarray:
    """Sum of ``weights`` (or count of rows) per query, adding in row order."""
    return np.bincount(qidx, weights=weights, minlength=n_queries).astype(np.float64, copy=False)


def segment_starts(qidx: np.ndarray, n_queries: int) -> np.ndarray:
    """Index of each query's first row in a query-sorted array (n_queries + 1 offsets)."""
    out = np.zeros(n_queries + 1, dtype=np.int64)
    np.cumsum(np.bincount(qidx, minlength=n_queries), out=out[1:])
    return out


def safe_divide(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, and 0 where den is 0."""
    num, den = np.broadcast_arrays(
        np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    )
    out = np.zeros(num.shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def dcg_at(
    gains: np.ndarray,
    rank: np.ndarray,
    qidx: np.ndarray,
    n_queries: int,
    k: int | None,
    discount: str = "log2",
) -> np.ndarray:
    r"""DCG@k per query: :math:`\sum_{i \le k} \mathrm{gain}_i / d(i)`; ``k=None``: no cut."""
    if k is not None:
        top = rank < k
        gains, rank, qidx = gains[top], rank[top], qidx[top]
    return per_query_sum(qidx, n_queries, gains / discount_denominators(rank, discount))


def sorted_desc_by_query(values: np.ndarray, qidx: np.ndarray, n_queries: int):
    """Values sorted descending within each query: (values, qidx, 0-based rank)."""
    order = np.lexsort((-values, qidx))
    v, q = values[order], qidx[order]
    return v, q, np.arange(len(v), dtype=np.int64) - segment_starts(q, n_queries)[:-1][q]


class Relevant:
    """The relevant retrieved documents (grade >= level), in (query, rank) order."""

    def __init__(
        self, qidx: np.ndarray, rank: np.ndarray, grades: np.ndarray, level: float, n_queries: int
    ):
        self.mask = grades >= level
        self.qidx = qidx[self.mask]
        self.rank = rank[self.mask]
        self.starts = segment_starts(self.qidx, n_queries)
        self.count = np.diff(self.starts)  # num_rel_ret
        # 1-based count of relevant documents up to and including each one (exact integers).
        self.so_far = np.arange(1, len(self.qidx) + 1, dtype=np.int64) - self.starts[:-1][self.qidx]
        first = np.full(n_queries, -1, dtype=np.int64)
        has = self.count > 0
        first[has] = self.rank[self.starts[:-1][has]]
        self.first_rank = first  # 0-based rank of the first relevant document, -1 if none


def average_precision(rel: Relevant, num_rel: np.ndarray, k: int | None = None) -> np.ndarray:
    r"""AP (or AP@k): :math:`\frac{1}{R} \sum_{i:\ rel_i,\ i \le k} \mathrm{P@}i`, with R all
    relevant documents of the query (retrieved or not); 0 when R = 0 (trec_eval)."""
    prec = rel.so_far / (rel.rank + 1.0)
    if k is not None:
        prec = np.where(rel.rank < k, prec, 0.0)
    return safe_divide(per_query_sum(rel.qidx, len(num_rel), prec), num_rel)


def bpref(
    qidx: np.ndarray,
    rel_mask: np.ndarray,
    num_rel: np.ndarray,
    num_nonrel: np.ndarray,
) -> np.ndarray:
    r"""bpref exactly as trec_eval.

    .. math:: \frac{1}{R} \sum_{r} \Bigl(1 - \frac{\min(n_r, R)}{\min(N, R)}\Bigr)

    over retrieved relevant r; n_r = judged non-relevant documents ranked above r, N = all
    judged non-relevant documents of the query; the term is 1 when n_r = 0. ``qidx`` and
    ``rel_mask`` cover the retrieved judged documents in (query, rank) order.
    """
    nq = len(num_rel)
    nonrel = (~rel_mask).astype(np.int64)
    seen = np.cumsum(nonrel)
    before = np.concatenate(([0], seen))[segment_starts(qidx, nq)[:-1]]
    n_above = (seen - before[qidx])[rel_mask]
    q = qidx[rel_mask]
    r = num_rel[q]
    frac = safe_divide(np.minimum(n_above, r), np.minimum(num_nonrel[q], r))
    term = np.where(n_above > 0, 1.0 - frac, 1.0)
    return safe_divide(per_query_sum(q, nq, term), num_rel)


def interpolated_precision(
    rel: Relevant, num_rel: np.ndarray, levels: tuple[float, ...]
) -> np.ndarray:
    """trec_eval's iprec_at_recall, an array (levels, queries).

    At recall level x: the highest precision at any rank at or after the n-th relevant document,
    n = floor(x * R + 0.9) (trec_eval up to 9.0.7 and pytrec_eval; 9.0.8 uses lround(x * R));
    0 if fewer than n relevant documents were retrieved.
    """
    nq = len(num_rel)
    prec = rel.so_far / (rel.rank + 1.0)
    out = np.zeros((len(levels), nq))
    if len(prec) == 0:
        return out
    # A trailing 0 lets the last query's end index stay inside the array for reduceat.
    padded = np.concatenate((prec, [0.0]))
    for li, level in enumerate(levels):
        need = np.floor(level * num_rel + 0.9).astype(np.int64)
        ok = (need <= rel.count) & (rel.count > 0)
        first = rel.starts[:-1] + np.maximum(need, 1) - 1
        # max over [first, end) of each query: reduceat on interleaved (first, end) pairs.
        idx = np.stack([np.where(ok, first, 0), np.where(ok, rel.starts[1:], 0)], axis=1).ravel()
        out[li] = np.where(ok, np.maximum.reduceat(padded, idx)[::2], 0.0)
    return out


def err_at(
    grades: np.ndarray,
    rank: np.ndarray,
    qidx: np.ndarray,
    n_queries: int,
    cutoffs: tuple[int, ...],
    max_grade: float,
) -> np.ndarray:
    r"""ERR@k (Chapelle et al. 2009) per cut-off, an array (cutoffs, queries).

    .. math:: \mathrm{ERR@}k = \sum_{i \le k} \frac{R_i}{i} \prod_{j < i} (1 - R_j), \qquad
              R = \frac{2^g - 1}{2^{g_{\max}}}
    """
    out = np.zeros((len(cutoffs), n_queries))
    if max_grade <= 0 or len(grades) == 0:
        return out
    if grades.max() > max_grade:
        raise ValueError(f"ERR: a grade {grades.max():g} is above the top grade {max_grade:g}")
    if max_grade >= 1024:  # 2^max_grade is no longer a float
        raise GradesTooLarge(
            f"ERR: the top grade {max_grade:g} is too large (2^g overflows)", float(max_grade)
        )
    kmax = max(cutoffs)
    keep = rank < kmax
    if not keep.any():
        return out
    stop = (np.exp2(grades[keep]) - 1.0) / 2.0**max_grade
    rows_q, rows_r = qidx[keep], rank[keep]
    width = int(rows_r.max()) + 1
    # Dense (queries x ranks) blocks make the running product exact and simple; blocking bounds
    # the memory when both the number of queries and the cut-off are large.
    block = max(1, 4_000_000 // width)
    bounds = np.searchsorted(rows_q, np.arange(0, n_queries + block, block))
    for b, q0 in enumerate(range(0, n_queries, block)):
        lo, hi = bounds[b], bounds[b + 1]
        nb = min(block, n_queries - q0)
        m = np.zeros((nb, width))
        m[rows_q[lo:hi] - q0, rows_r[lo:hi]] = stop[lo:hi]
        survive = np.cumprod(1.0 - m, axis=1)
        before = np.concatenate((np.ones((nb, 1)), survive[:, :-1]), axis=1)
        cum = np.cumsum(m * before / np.arange(1, width + 1), axis=1)
        for ci, k in enumerate(cutoffs):
            out[ci, q0 : q0 + nb] = cum[:, min(k, width) - 1]
    return out
