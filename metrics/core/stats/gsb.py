"""GSB (Good/Same/Bad) statistics and the launch decision (``shared/STATISTICS.md`` §1-4).

Notation: query i has m_i verdicts, g_i Good, s_i Same and b_i Bad for the candidate;
y_i = g_i − b_i, N = Σm_i, n = number of queries, R = GSB = (G − B)/N.
"""

from __future__ import annotations

import enum
import math
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy.stats import binomtest

from metrics.core.stats.interval import (
    delta_se,
    design_effect,
    score_null_variance,
    tango_interval,
    wald_interval,
    z_value,
)
from metrics.core.stats.position import PositionBias, ShuffleCheck
from metrics.core.stats.resampling import DEFAULT_RESAMPLES, cluster_ratio_interval

__all__ = [
    "Z_BETA",
    "Decision",
    "GsbResult",
    "gsb_decision",
    "gsb_from_counts",
    "gsb_from_query_counts",
    "more_queries_estimate",
    "sign_test",
]

# z for power 0.8, as written in STATISTICS.md §3 (norm.ppf(0.8) = 0.841621…; the document's
# rounded value is normative and is what reproduces its 1,525).
Z_BETA = 0.8416
# Cap of the more-queries estimate (reached only when GSB is within ~1e-6 of the bar).
MAX_QUERIES_ESTIMATE = 10**12


class Decision(enum.StrEnum):
    """The three outcomes; exactly one applies to any data."""

    LAUNCH = "launch"
    DO_NOT_LAUNCH = "do_not_launch"
    MORE_DATA = "more_data"


@dataclass
class GsbResult:
    """Everything a GSB report shows. ``ci_low``/``ci_high`` are Tango's interval with deff."""

    good: int
    same: int
    bad: int
    n_verdicts: int
    n_queries: int
    gsb: float
    se: float  # delta method, unclustered (STATISTICS.md §1)
    deff: float
    se_clustered: float  # se · √deff
    ci_low: float
    ci_high: float
    wald_low: float  # R ± z·SE, unclipped: a cross-check only
    wald_high: float
    sign_k: int
    sign_n: int
    sign_p: float
    decision: Decision
    conclusive: bool
    more_queries: int | None
    reason: str
    confidence: float
    threshold: float
    min_queries: int
    identical_queries: int = 0
    identical_verdicts: int = 0
    position_bias: PositionBias | None = None
    shuffle: ShuffleCheck | None = None
    strength_distribution: dict[int, int] | None = None
    strength_missing: int = 0
    alpha: float | None = None  # Krippendorff's ordinal alpha between raters
    raw_agreement: float | None = None
    bootstrap_low: float | None = None
    bootstrap_high: float | None = None
    bootstrap_seed: int | None = None
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON-ready dictionary (NaN becomes None, the decision its string value)."""
        out = asdict(self)
        out["decision"] = self.decision.value
        if self.strength_distribution is not None:
            dist = self.strength_distribution
            out["strength_distribution"] = {str(k): v for k, v in dist.items()}
        return _nan_to_none(out)


def _nan_to_none(obj):
    if isinstance(obj, dict):
        return {k: _nan_to_none(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_nan_to_none(v) for v in obj]
    if isinstance(obj, float) and math.isnan(obj):
        return None
    return obj


def sign_test(y: np.ndarray) -> tuple[int, int, float]:
    """Two-sided exact sign test over queries.

    ``k = #{y_i > 0}``, ``n′ = #{y_i ≠ 0}``, ``p = binomtest(k, n′, 1/2).pvalue``; p = 1 when
    n′ = 0.

    Returns
    -------
    (k, n′, p) : tuple
    """
    y = np.asarray(y)
    k = int(np.count_nonzero(y > 0))
    n_prime = int(np.count_nonzero(y != 0))
    if n_prime == 0:
        return k, 0, 1.0
    return k, n_prime, float(binomtest(k, n_prime, 0.5).pvalue)


def more_queries_estimate(
    *,
    good: float,
    bad: float,
    n_verdicts: float,
    n_queries: int,
    deff: float,
    threshold: float,
    confidence: float,
    min_queries: int,
) -> int:
    """Estimated further queries for the interval to clear the threshold (STATISTICS.md §3).

    ``δ = R − τ``, ``V₁ = p_G + p_B − R²``, ``V₀ = 2p̃(τ) + τ(1 − τ)``, ``m̄ = N/n``,
    ``n_total = ⌈(deff/m̄)·((z√V₀ + z_β√V₁)/δ)²⌉`` with ``z_β = 0.8416`` (power 0.8), and
    ``more = max(1, max(n_total, n_min) − n)``. An estimate, assuming the observed rates hold;
    n_total is capped at 10¹².

    Raises
    ------
    ValueError
        If R ≤ τ (no number of further queries is expected to clear the bar).
    """
    r = (good - bad) / n_verdicts
    delta = r - threshold
    if delta <= 0.0:
        raise ValueError("more queries cannot be estimated when GSB does not exceed the threshold")
    z = z_value(confidence)
    v1 = max(0.0, (good + bad) / n_verdicts - r * r)
    v0 = max(0.0, score_null_variance(good, bad, n_verdicts, threshold))
    m_bar = n_verdicts / n_queries
    ratio = (z * math.sqrt(v0) + Z_BETA * math.sqrt(v1)) / delta
    if ratio > 1e6:
        # A GSB a hair above the bar: the estimate is astronomically large (and would overflow);
        # cap it, the message is the same.
        n_total = MAX_QUERIES_ESTIMATE
    else:
        # Rounding guard: (deff/m̄)·(...)² can land a hair above an integer it equals exactly.
        n_total = min(MAX_QUERIES_ESTIMATE, math.ceil((deff / m_bar) * ratio**2 - 1e-9))
    return max(1, max(n_total, min_queries) - n_queries)


def gsb_decision(
    *,
    gsb: float,
    ci_low: float,
    ci_high: float,
    n_queries: int,
    sign_k: int,
    sign_n: int,
    sign_p: float,
    threshold: float,
    confidence: float,
    min_queries: int,
) -> tuple[Decision, bool, str]:
    """The decision of STATISTICS.md §3, with whether it is conclusive and why.

    - Do not launch when R ≤ τ (conclusive when also U < τ).
    - Launch when L > τ, n ≥ n_min and (τ < 0 or the sign test favours the candidate at level
      1 − c: p < 1 − c with more queries won than lost).
    - More data needed otherwise.
    """
    if gsb <= threshold:
        if ci_high < threshold:
            return Decision.DO_NOT_LAUNCH, True, "the candidate is worse than the bar"
        return Decision.DO_NOT_LAUNCH, False, "the candidate did not beat the bar"
    sign_favours = sign_p < 1.0 - confidence and 2 * sign_k > sign_n
    if ci_low > threshold and n_queries >= min_queries and (threshold < 0 or sign_favours):
        return Decision.LAUNCH, True, "the candidate beats the bar"
    if ci_low <= threshold:
        why = "the interval still includes the bar"
    elif n_queries < min_queries:
        why = f"fewer than {min_queries} queries"
    else:
        why = "the sign test over queries does not favour the candidate"
    return Decision.MORE_DATA, False, why


def _check_settings(confidence: float, threshold: float, min_queries: int) -> None:
    z_value(confidence)  # validates
    if not (-1.0 <= threshold < 1.0) or math.isnan(threshold):
        raise ValueError(f"threshold must be in [-1, 1), got {threshold!r}")
    if isinstance(min_queries, bool) or int(min_queries) != min_queries or min_queries < 0:
        raise ValueError(f"min_queries must be a non-negative integer, got {min_queries!r}")


def gsb_from_query_counts(
    g: np.ndarray,
    s: np.ndarray,
    b: np.ndarray,
    *,
    confidence: float = 0.95,
    threshold: float = 0.0,
    min_queries: int = 30,
    bootstrap: bool = False,
    seed: int | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
) -> GsbResult:
    """GSB, its interval, sign test and decision from per-query verdict counts.

    Parameters
    ----------
    g, s, b : array_like of int, shape (n,)
        Good, Same and Bad verdicts of each query (identical-list queries count as Same once
        per rater they would have had).
    confidence, threshold, min_queries
        The manager's c, τ and n_min.
    bootstrap : bool
        Also compute the cluster-bootstrap cross-check (never used for the decision).
    seed, n_resamples
        Seed and size of that bootstrap.

    Returns
    -------
    GsbResult
        The interval is Tango's applied to G/deff, B/deff, N/deff.
    """
    _check_settings(confidence, threshold, min_queries)
    arrays = []
    for name, x in (("g", g), ("s", s), ("b", b)):
        arr = np.asarray(x)
        if arr.ndim != 1:
            raise ValueError(f"{name} must be a 1-d array of per-query counts")
        if arr.size and (not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr))):
            raise ValueError(f"{name} must hold whole numbers")
        arrays.append(arr.astype(np.int64))
    g, s, b = arrays
    if not (g.shape == s.shape == b.shape):
        raise ValueError("g, s and b must have the same length")
    if np.any(g < 0) or np.any(s < 0) or np.any(b < 0):
        raise ValueError("counts must be non-negative")
    m = g + s + b
    if g.size == 0 or np.any(m == 0):
        raise ValueError("every query needs at least one verdict")
    gt, st, bt, n_v = int(g.sum()), int(s.sum()), int(b.sum()), int(m.sum())
    r = (gt - bt) / n_v
    deff = design_effect(g, b, m)
    low, high = tango_interval(gt / deff, bt / deff, n_v / deff, confidence)
    se = delta_se(gt, bt, n_v)
    wald = wald_interval(gt, bt, n_v, confidence)
    k, n_prime, p = sign_test(g - b)
    decision, conclusive, reason = gsb_decision(
        gsb=r,
        ci_low=low,
        ci_high=high,
        n_queries=int(g.size),
        sign_k=k,
        sign_n=n_prime,
        sign_p=p,
        threshold=threshold,
        confidence=confidence,
        min_queries=int(min_queries),
    )
    more = None
    if decision is Decision.MORE_DATA:
        more = more_queries_estimate(
            good=gt,
            bad=bt,
            n_verdicts=n_v,
            n_queries=int(g.size),
            deff=deff,
            threshold=threshold,
            confidence=confidence,
            min_queries=int(min_queries),
        )
    result = GsbResult(
        good=gt,
        same=st,
        bad=bt,
        n_verdicts=n_v,
        n_queries=int(g.size),
        gsb=r,
        se=se,
        deff=deff,
        se_clustered=se * math.sqrt(deff),
        ci_low=low,
        ci_high=high,
        wald_low=wald[0],
        wald_high=wald[1],
        sign_k=k,
        sign_n=n_prime,
        sign_p=p,
        decision=decision,
        conclusive=conclusive,
        more_queries=more,
        reason=reason,
        confidence=float(confidence),
        threshold=float(threshold),
        min_queries=int(min_queries),
    )
    if bootstrap:
        if g.size < 2:
            result.warnings.append("the bootstrap cross-check needs at least two queries")
        else:
            result.bootstrap_low, result.bootstrap_high = cluster_ratio_interval(
                g - b, m, confidence=confidence, n_resamples=n_resamples, seed=seed
            )
            result.bootstrap_seed = seed
            if g.size < 30:
                result.warnings.append("bootstrap with fewer than 30 queries: do not rely on it")
    return result


def gsb_from_counts(
    g: int,
    s: int,
    b: int,
    *,
    confidence: float = 0.95,
    threshold: float = 0.0,
    min_queries: int = 30,
) -> GsbResult:
    """GSB from totals, taken as one verdict per query (n = N, deff = 1).

    Examples
    --------
    >>> r = gsb_from_counts(70, 100, 30)
    >>> round(r.gsb, 4), round(r.ci_low, 4), round(r.ci_high, 4), r.decision.value
    (0.2, 0.1041, 0.2923, 'launch')
    """
    counts = []
    for name, x in (("G", g), ("S", s), ("B", b)):
        if isinstance(x, bool) or not isinstance(x, int | np.integer) or x < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {x!r}")
        counts.append(int(x))
    g, s, b = counts
    if g + s + b == 0:
        raise ValueError("there are no verdicts (G + S + B = 0)")
    # One verdict per query: expand to per-query indicator counts (one code path with clusters).
    y = np.repeat(np.array([1, 0, -1], dtype=np.int64), [g, s, b])
    return gsb_from_query_counts(
        (y == 1).astype(np.int64),
        (y == 0).astype(np.int64),
        (y == -1).astype(np.int64),
        confidence=confidence,
        threshold=threshold,
        min_queries=min_queries,
    )
