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
from scipy.stats import t as t_dist

from metrics.core.stats.interval import delta_se, design_effect, tango_interval, z_value
from metrics.core.stats.planning import MoreQueries, describe_more_queries, more_queries_plan
from metrics.core.stats.position import PositionBias, ShuffleCheck
from metrics.core.stats.resampling import DEFAULT_RESAMPLES, cluster_ratio_interval

__all__ = [
    "Decision",
    "GsbResult",
    "gsb_decision",
    "gsb_from_counts",
    "gsb_from_query_counts",
    "sign_test",
]


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
    se: float  # clustered: √deff times the delta-method SE (STATISTICS.md §1)
    deff: float
    ci_low: float
    ci_high: float
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
    n_informative: int  # queries whose two lists differ: what n_min counts
    more_queries_low: int | None = None
    more_queries_high: int | None = None  # None with "more data": no upper end
    more_queries_limited_by: str | None = None
    n_raters: int | None = None  # distinct raters, when known
    rater_clustered: bool = False  # False: the interval describes these raters only
    interval_df: int | None = None  # t critical value's degrees of freedom; None: normal
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

    @property
    def more_queries_text(self) -> str | None:
        """The more-queries estimate as a range in words (None unless more data is needed)."""
        if self.more_queries is None:
            return None
        plan = MoreQueries(
            more=self.more_queries,
            low=self.more_queries_low if self.more_queries_low is not None else self.more_queries,
            high=self.more_queries_high,
            limited_by=self.more_queries_limited_by or "interval",
        )
        return describe_more_queries(plan)

    def to_dict(self) -> dict:
        """JSON-ready dictionary (NaN becomes None, the decision its string value)."""
        out = asdict(self)
        out["decision"] = self.decision.value
        out["more_queries_text"] = self.more_queries_text
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
    - Launch when L > τ, n ≥ n_min (``n_queries``: the informative queries) and (τ < 0 or the
      sign test favours the candidate at level 1 − c: p < 1 − c with more queries won than lost).
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


def _validated_counts(g, s, b) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
    if g.size == 0 or np.any(g + s + b == 0):
        raise ValueError("every query needs at least one verdict")
    return g, s, b


def _informative_mask(informative, shape: tuple[int, ...]) -> np.ndarray:
    """Which queries' two lists differ: all of them unless ``informative`` says otherwise."""
    inf = np.ones(shape, bool) if informative is None else np.asarray(informative, bool)
    if inf.shape != shape:
        raise ValueError("informative must have one entry per query")
    return inf


def _checked_deff(deff: float | None, g: np.ndarray, b: np.ndarray, m: np.ndarray) -> float:
    """The design effect given, checked, or else the one by query alone from the counts."""
    if deff is None:
        return design_effect(g, b, m)
    if not (math.isfinite(deff) and deff >= 1.0):
        raise ValueError(f"a design effect is at least 1, got {deff!r}")
    return deff


def gsb_from_query_counts(
    g: np.ndarray,
    s: np.ndarray,
    b: np.ndarray,
    *,
    informative: np.ndarray | None = None,
    deff: float | None = None,
    df: int | None = None,
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
    informative : array_like of bool, shape (n,), optional
        Queries whose two lists differ (default: all). Only these count towards n_min.
    deff : float, optional
        Design effect computed from the verdicts (two-way, by query and rater:
        :func:`metrics.core.stats.cluster.clustered_variance`); default: by query alone from
        the counts (:func:`metrics.core.stats.interval.design_effect`).
    df : int, optional
        With few clusters (clustered by rater too), the interval uses the t quantile with ``df``
        degrees of freedom instead of the normal one (Cameron, Gelbach and Miller 2011): Tango's
        interval on the counts divided by ``deff·(t/z)²``.
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
    g, s, b = _validated_counts(g, s, b)
    m = g + s + b
    inf = _informative_mask(informative, g.shape)
    deff = _checked_deff(deff, g, b, m)
    result = _result(
        good=int(g.sum()), same=int(s.sum()), bad=int(b.sum()), n_queries=int(g.size),
        n_informative=int(inf.sum()), deff=float(deff), sign=sign_test(g - b),
        confidence=confidence, threshold=threshold, min_queries=int(min_queries), df=df,
    )  # fmt: skip
    if bootstrap:
        _add_bootstrap(result, g - b, m, seed=seed, n_resamples=n_resamples)
    return result


def _result(
    *, good: int, same: int, bad: int, n_queries: int, n_informative: int, deff: float,
    sign: tuple[int, int, float], confidence: float, threshold: float, min_queries: int,
    df: int | None = None,
) -> GsbResult:  # fmt: skip
    """Interval, decision and estimate from totals, the design effect and the sign test."""
    n_v = good + same + bad
    r = (good - bad) / n_v
    # A t critical value with few clusters: the same as Tango's z on counts shrunk by (t/z)².
    widen = 1.0 if df is None else (t_dist.ppf(0.5 + confidence / 2, df) / z_value(confidence)) ** 2
    shrink = deff * widen
    low, high = tango_interval(good / shrink, bad / shrink, n_v / shrink, confidence)
    k, n_prime, p = sign
    settings = dict(threshold=threshold, confidence=confidence, min_queries=min_queries)
    decision, conclusive, reason = gsb_decision(
        gsb=r, ci_low=low, ci_high=high, n_queries=n_informative,
        sign_k=k, sign_n=n_prime, sign_p=p, **settings,
    )  # fmt: skip
    if n_informative < n_queries and reason.startswith("fewer than"):
        reason += " whose lists differ"
    plan: MoreQueries | None = None
    if decision is Decision.MORE_DATA:
        plan = more_queries_plan(
            good=good, bad=bad, n_verdicts=n_v, n_queries=n_queries, n_informative=n_informative,
            deff=deff, sign_k=k, sign_n=n_prime, **settings,
        )  # fmt: skip
    return GsbResult(
        good=good, same=same, bad=bad, n_verdicts=n_v, n_queries=n_queries, gsb=r,
        se=delta_se(good, bad, n_v) * math.sqrt(deff), deff=deff, ci_low=low, ci_high=high,
        sign_k=k, sign_n=n_prime, sign_p=p, decision=decision, conclusive=conclusive,
        more_queries=None if plan is None else plan.more, reason=reason,
        confidence=float(confidence), threshold=float(threshold), min_queries=min_queries,
        n_informative=n_informative,
        more_queries_low=None if plan is None else plan.low,
        more_queries_high=None if plan is None else plan.high,
        more_queries_limited_by=None if plan is None else plan.limited_by, interval_df=df,
    )  # fmt: skip


def _add_bootstrap(result: GsbResult, y, m, *, seed, n_resamples) -> None:
    if y.size < 2:
        result.warnings.append("the bootstrap cross-check needs at least two queries")
        return
    result.bootstrap_low, result.bootstrap_high = cluster_ratio_interval(
        y, m, confidence=result.confidence, n_resamples=n_resamples, seed=seed
    )
    result.bootstrap_seed = seed
    if y.size < 30:
        result.warnings.append("bootstrap with fewer than 30 queries: do not rely on it")


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

    Constant memory whatever the counts: the sign test over N one-verdict queries is
    ``binomtest(G, G + B)``, with nothing to expand per verdict.

    Examples
    --------
    >>> r = gsb_from_counts(70, 100, 30)
    >>> round(r.gsb, 4), round(r.ci_low, 4), round(r.ci_high, 4), r.decision.value
    (0.2, 0.1041, 0.2923, 'launch')
    """
    _check_settings(confidence, threshold, min_queries)
    counts = []
    for name, x in (("G", g), ("S", s), ("B", b)):
        if isinstance(x, bool) or not isinstance(x, int | np.integer) or x < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {x!r}")
        counts.append(int(x))
    g, s, b = counts
    n = g + s + b
    if n == 0:
        raise ValueError("there are no verdicts (G + S + B = 0)")
    # One verdict per query: y_i > 0 for the G queries, < 0 for the B ones.
    sign = (g, g + b, 1.0 if g + b == 0 else float(binomtest(g, g + b, 0.5).pvalue))
    return _result(
        good=g, same=s, bad=b, n_queries=n, n_informative=n, deff=1.0, sign=sign,
        confidence=confidence, threshold=threshold, min_queries=int(min_queries),
    )  # fmt: skip
