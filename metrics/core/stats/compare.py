"""Comparing two runs on a per-query measure (``shared/STATISTICS.md`` §6), d_i = B_i − A_i.

Paired t-test, randomization (sign-flip permutation) test, BCa bootstrap of the mean difference,
and Holm / Benjamini–Hochberg adjustments for several comparisons.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import stats

from metrics.core.stats.resampling import DEFAULT_RESAMPLES, is_constant, mean_interval

__all__ = [
    "EXACT_MAX_N",
    "QueryChange",
    "RunComparison",
    "benjamini_hochberg",
    "compare_runs",
    "holm",
    "paired_t_test",
    "randomization_test",
]

# Up to 2^20 sign patterns are enumerated; beyond, resample.
EXACT_MAX_N = 20


def _pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError("a and b must be 1-d arrays of the same length (one value per query)")
    if a.size < 2:
        raise ValueError("comparing runs needs at least two queries")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("per-query values must be finite")
    return a, b


def paired_t_test(a, b, *, confidence: float = 0.95) -> tuple[float, float, float, float]:
    """Two-sided paired t-test of B against A: ``scipy.stats.ttest_rel(b, a)``.

    ``t = d̄ / (s_d/√n)`` with n − 1 degrees of freedom, and the t interval
    ``d̄ ± t_{n−1, 1−α/2} · s_d/√n``.

    Returns
    -------
    (t, p, ci_low, ci_high) : tuple of float
        When every d_i is equal the variance is 0: all zero gives ``t = 0, p = 1`` and the
        interval ``[0, 0]``; a constant non-zero difference gives ``t = ±inf, p = 0`` and
        ``[d, d]`` (scipy would return NaN or warn of lost precision).
    """
    a, b = _pair(a, b)
    d = b - a
    if is_constant(d):
        mean = float(np.mean(d))
        if mean == 0.0 or abs(mean) <= 1e-12:
            return 0.0, 1.0, 0.0, 0.0
        return math.copysign(math.inf, mean), 0.0, mean, mean
    res = stats.ttest_rel(b, a)
    ci = res.confidence_interval(confidence_level=confidence)
    return float(res.statistic), float(res.pvalue), float(ci.low), float(ci.high)


# Sign patterns evaluated per matrix product when resampling.
_FLIP_BATCH = 1_000


def _null_sums_exact(d: np.ndarray) -> np.ndarray:
    """Σ s_i d_i over all 2ⁿ sign vectors s, by meeting in the middle (2^(n/2) per half)."""
    half = d.size // 2

    def sums(part: np.ndarray) -> np.ndarray:
        bits = (np.arange(2**part.size)[:, None] >> np.arange(part.size)) & 1
        return (2.0 * bits - 1.0) @ part

    return np.add.outer(sums(d[:half]), sums(d[half:])).ravel()


def _null_sums_sampled(d: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    out = np.empty(n_resamples)
    for start in range(0, n_resamples, _FLIP_BATCH):
        size = min(_FLIP_BATCH, n_resamples - start)
        signs = rng.integers(0, 2, size=(size, d.size), dtype=np.int8) * 2.0 - 1.0
        out[start : start + size] = signs @ d
    return out


def randomization_test(
    a, b, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int | None = None
) -> tuple[float, bool]:
    """Two-sided paired randomization test of the mean difference.

    Under the null each pair's labels are exchangeable, i.e. each d_i's sign is a coin flip;
    the statistic is ``T = mean(d)``. This is ``scipy.stats.permutation_test((b, a), mean
    difference, permutation_type="samples")`` computed as sign flips, with scipy's rules: exact
    over all 2ⁿ patterns when n ≤ 20 (p = share of patterns as extreme), otherwise
    ``n_resamples`` random patterns from ``seed`` (p counts the observed one:
    ``(k + 1)/(B + 1)``); two-sided ``p = min(1, 2·min(p_≤, p_≥))``. scipy itself takes ~7 s
    for the exact n = 20 case and ~30 s for 10,000 queries; this takes milliseconds, and the
    tests check it against scipy.

    Ties: a pattern counts as at least as extreme when its T is within
    ``γ = max(100, n)·eps·mean|d_i|`` of the observed T, so values equal in exact arithmetic
    stay equal after rounding. scipy takes ``γ = 100·eps·|T|``, which is too tight when the
    d_i nearly cancel: the rounding of a sum of n terms grows with Σ|d_i|, not with |Σd_i|.
    Then the observed pattern itself, summed in another order, could miss by more than γ
    (n = 8, |T| ≈ 1e−3·mean|d_i|: p = 254/256 instead of 1), and when T is 0 in exact
    arithmetic (say values rounded to tenths) the other zero-sum patterns fall either side of
    T at random and p < 1. Our γ is never below scipy's (mean|d_i| ≥ |T|) and is above the
    worst rounding error of the sums (≈ n·eps/2·mean|d_i|); values that really differ are
    much further apart than γ, so elsewhere the result is scipy's.

    Returns
    -------
    (p, exact) : tuple
        The p-value (1 when every d_i = 0) and whether it was exact.
    """
    a, b = _pair(a, b)
    d = b - a
    if np.all(d == 0):
        return 1.0, True
    if n_resamples < 1:
        raise ValueError("n_resamples must be positive")
    exact = a.size <= EXACT_MAX_N
    observed = float(np.mean(d))
    if exact:
        null = _null_sums_exact(d) / d.size
        extra = 0
    else:
        null = _null_sums_sampled(d, n_resamples, np.random.default_rng(seed)) / d.size
        extra = 1
    gamma = max(100, d.size) * np.finfo(np.float64).eps * float(np.mean(np.abs(d)))
    p_greater = (np.count_nonzero(null >= observed - gamma) + extra) / (null.size + extra)
    p_less = (np.count_nonzero(null <= observed + gamma) + extra) / (null.size + extra)
    return float(min(1.0, 2.0 * min(p_greater, p_less))), exact


def holm(p) -> np.ndarray:
    """Holm's step-down adjustment (family-wise error).

    With p sorted ascending, ``p̃_(j) = max_{k ≤ j} min(1, (m − k + 1) p_(k))``; returned in
    the input order.
    """
    p = _pvalues(p)
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def benjamini_hochberg(p) -> np.ndarray:
    """Benjamini–Hochberg adjustment (false discovery rate).

    Computed by ``scipy.stats.false_discovery_control(p, method="bh")``.
    With p sorted ascending, ``p̃_(j) = min_{k ≥ j} min(1, m p_(k) / k)``.
    """
    p = _pvalues(p)
    return np.asarray(stats.false_discovery_control(p, method="bh"), dtype=np.float64)


def _pvalues(p) -> np.ndarray:
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1 or p.size == 0:
        raise ValueError("p-values must be a non-empty 1-d array")
    if np.any(np.isnan(p)) or np.any(p < 0) or np.any(p > 1):
        raise ValueError("p-values must lie in [0, 1]")
    return p


@dataclass(frozen=True)
class QueryChange:
    """One query's values in both runs."""

    query: str
    a: float
    b: float
    diff: float


@dataclass
class RunComparison:
    """Result of :func:`compare_runs`."""

    n: int
    mean_a: float
    mean_b: float
    diff: float
    t: float
    p_t: float
    ci_t_low: float
    ci_t_high: float
    p_randomization: float
    randomization_exact: bool
    ci_boot_low: float  # BCa
    ci_boot_high: float
    confidence: float
    seed: int | None
    n_resamples: int
    gained: list[QueryChange] = field(default_factory=list)
    lost: list[QueryChange] = field(default_factory=list)
    wins: int = 0
    losses: int = 0
    ties: int = 0

    def to_dict(self) -> dict:
        """JSON-ready dictionary (infinite t becomes a string)."""
        out = asdict(self)
        if math.isinf(self.t):
            out["t"] = "inf" if self.t > 0 else "-inf"
        return out


def _checked_pairs(
    a, b, query_ids, *, confidence: float, top: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(a, b, query names) as arrays of one entry per query, the settings checked first."""
    if not (0.0 < confidence < 1.0):
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    if top < 0:
        raise ValueError("top must be non-negative")
    a, b = _pair(a, b)
    names = np.arange(a.size).astype(str) if query_ids is None else np.asarray(query_ids)
    if names.shape != a.shape:
        raise ValueError("query_ids must have one entry per query")
    return a, b, names


def _biggest_changes(
    names: np.ndarray, a: np.ndarray, b: np.ndarray, top: int
) -> tuple[list[QueryChange], list[QueryChange]]:
    """The ``top`` queries that gained most from A to B, and the ``top`` that lost most."""
    d = b - a
    # Largest gains first; ties broken by query name for a stable report.
    order = np.lexsort((names.astype(str), -d))
    gained = [i for i in order if d[i] > 0][:top]
    lost = [i for i in np.lexsort((names.astype(str), d)) if d[i] < 0][:top]

    def change(i: int) -> QueryChange:
        return QueryChange(str(names[i]), float(a[i]), float(b[i]), float(d[i]))

    return [change(i) for i in gained], [change(i) for i in lost]


def compare_runs(
    a,
    b,
    *,
    query_ids=None,
    confidence: float = 0.95,
    seed: int | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    top: int = 5,
) -> RunComparison:
    """Compare run B with run A on paired per-query values (a :class:`RunComparison`).

    Parameters
    ----------
    a, b : array_like, shape (n,)
        The measure for each query under A (baseline) and B, aligned.
    query_ids : array_like, optional
        Query names, for the lists of queries that gained and lost most.
    confidence : float
        Level of the t and bootstrap intervals.
    seed : int, optional
        Seed of the resampling (randomization beyond 20 queries, bootstrap); store it.
    n_resamples : int
        Resamples for the bootstrap and the non-exact randomization test.
    top : int
        How many queries to list among those that gained and those that lost most.
    """
    a, b, names = _checked_pairs(a, b, query_ids, confidence=confidence, top=top)
    d = b - a
    t, p_t, lo, hi = paired_t_test(a, b, confidence=confidence)
    p_r, exact = randomization_test(a, b, n_resamples=n_resamples, seed=seed)
    blo, bhi = mean_interval(d, confidence=confidence, n_resamples=n_resamples, seed=seed)
    gained, lost = _biggest_changes(names, a, b, top)
    return RunComparison(
        n=int(a.size),
        mean_a=float(a.mean()),
        mean_b=float(b.mean()),
        diff=float(d.mean()),
        t=t,
        p_t=p_t,
        ci_t_low=lo,
        ci_t_high=hi,
        p_randomization=p_r,
        randomization_exact=exact,
        ci_boot_low=blo,
        ci_boot_high=bhi,
        confidence=float(confidence),
        seed=seed,
        n_resamples=int(n_resamples),
        gained=gained,
        lost=lost,
        wins=int(np.count_nonzero(d > 0)),
        losses=int(np.count_nonzero(d < 0)),
        ties=int(np.count_nonzero(d == 0)),
    )
