"""Standard error and confidence intervals for GSB = (G − B) / N.

G and B are the discordant cells of a paired comparison (the candidate won, the baseline won),
so GSB is a difference of paired proportions; the default interval is Tango's score interval
(Tango 1998, *Statistics in Medicine* 17:891-908), with a design effect for several raters per
query. The formulas follow ``shared/STATISTICS.md`` section 1 exactly.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

__all__ = [
    "delta_se",
    "design_effect",
    "score_null_variance",
    "tango_interval",
    "tango_intervals",
    "wald_interval",
    "z_value",
]

# Distance kept from ±1 when bracketing: Z is 0/0 or ±inf exactly at the ends.
_EDGE = 1e-12


def z_value(confidence: float) -> float:
    """Two-sided normal quantile ``z = Φ⁻¹(1 − (1 − c)/2)`` for a confidence level ``c``.

    Raises
    ------
    ValueError
        If ``confidence`` is not strictly between 0 and 1.
    """
    if not (0.0 < confidence < 1.0) or math.isnan(confidence):
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    return float(norm.ppf(1.0 - (1.0 - confidence) / 2.0))


def _check_counts(g: float, b: float, n: float) -> None:
    if not all(math.isfinite(x) for x in (g, b, n)):
        raise ValueError("counts must be finite")
    if g < 0 or b < 0:
        raise ValueError(f"counts must be non-negative, got G={g}, B={b}")
    if n <= 0:
        raise ValueError("there are no verdicts (N = 0)")
    if g + b > n * (1 + 1e-12):
        raise ValueError(f"G + B = {g + b} exceeds the number of verdicts N = {n}")


def delta_se(g: float, b: float, n: float) -> float:
    """Delta-method standard error of R = (G − B)/N.

    ``SE² = [p_G + p_B − (p_G − p_B)²] / N`` with ``p_G = G/N``, ``p_B = B/N``.
    """
    _check_counts(g, b, n)
    pg, pb = g / n, b / n
    # max(0, ·) only guards rounding: the bracket is a variance and never negative.
    return math.sqrt(max(0.0, pg + pb - (pg - pb) ** 2) / n)


def wald_interval(g: float, b: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wald interval ``R ± z·SE``, unclustered and not clipped to [−1, 1].

    Shown nowhere (STATISTICS.md §1): it collapses to a point on all-Same data, undercovers at
    small N and ignores the clustering. Kept for the seed's documented value and for callers
    who want the textbook figure.
    """
    z = z_value(confidence)
    r = (g - b) / n
    se = delta_se(g, b, n)
    return r - z * se, r + z * se


def score_null_variance(g: float, b: float, n: float, delta: float) -> float:
    """``2p̃(Δ) + Δ(1 − Δ)``: N times the variance of R under the null GSB = Δ.

    ``p̃ = (−β + √(β² + 8N·B·Δ(1 − Δ))) / (4N)``, ``β = −G − B + (2N − G + B)Δ``
    (the restricted maximum-likelihood estimate of the probability of a B verdict).
    """
    beta = -g - b + (2.0 * n - g + b) * delta
    root_arg = max(0.0, beta * beta + 8.0 * n * b * delta * (1.0 - delta))
    p_tilde = (-beta + math.sqrt(root_arg)) / (4.0 * n)
    return 2.0 * p_tilde + delta * (1.0 - delta)


def _tango_z(g: float, b: float, n: float, delta: float) -> float:
    """Tango's score statistic ``Z(Δ) = (G − B − NΔ) / √(N[2p̃ + Δ(1 − Δ)])``."""
    num = g - b - n * delta
    var = n * score_null_variance(g, b, n, delta)
    if var <= 0.0:
        # Only at the ends Δ → ±1 or at Δ = R on degenerate data; the sign is all that matters.
        return 0.0 if num == 0.0 else math.copysign(math.inf, num)
    return num / math.sqrt(var)


def tango_interval(g: float, b: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Tango's score interval for GSB: the set of Δ with ``|Z(Δ)| ≤ z``.

    ``Z(Δ) = (G − B − NΔ) / √(N[2p̃ + Δ(1 − Δ)])`` decreases in Δ and ``Z(R) = 0``, so the
    lower end solves ``Z(L) = z`` on ``[−1, R]`` and the upper end ``Z(U) = −z`` on
    ``[R, 1]`` (Brent's bracketing method). Counts may be non-integer (divided by a design
    effect).

    Parameters
    ----------
    g, b, n : float
        Good and Bad counts and the number of verdicts N (G + S + B).
    confidence : float
        Confidence level c.

    Returns
    -------
    (L, U) : tuple of float
        ``U = 1`` when G = N, ``L = −1`` when B = N; all-Same data give ``±z²/(N + z²)``.
    """
    _check_counts(g, b, n)
    z = z_value(confidence)
    r = (g - b) / n

    def lower(delta: float) -> float:
        return _tango_z(g, b, n, delta) - z

    def upper(delta: float) -> float:
        return _tango_z(g, b, n, delta) + z

    # Z(R) = 0 by construction, so lower(R) = −z < 0 and upper(R) = z > 0: R brackets both roots
    # from the inside. If Z has not crossed ±z by the edge, the interval reaches the edge.
    lo_edge, hi_edge = -1.0 + _EDGE, 1.0 - _EDGE
    if r <= lo_edge or lower(lo_edge) <= 0.0:
        low = -1.0
    else:
        low = brentq(lower, lo_edge, r, xtol=1e-14, rtol=1e-14)
    if r >= hi_edge or upper(hi_edge) >= 0.0:
        high = 1.0
    else:
        high = brentq(upper, r, hi_edge, xtol=1e-14, rtol=1e-14)
    return float(low), float(high)


def _tango_z_many(g, b, n, delta):
    beta = -g - b + (2.0 * n - g + b) * delta
    root_arg = np.maximum(0.0, beta * beta + 8.0 * n * b * delta * (1.0 - delta))
    p_tilde = (-beta + np.sqrt(root_arg)) / (4.0 * n)
    var = n * (2.0 * p_tilde + delta * (1.0 - delta))
    num = g - b - n * delta
    with np.errstate(divide="ignore", invalid="ignore"):
        z = num / np.sqrt(var)
    return np.where(var > 0.0, z, np.where(num == 0.0, 0.0, np.copysign(np.inf, num)))


def tango_intervals(
    g: np.ndarray, b: np.ndarray, n: np.ndarray, confidence: float = 0.95, *, steps: int = 60
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`tango_interval` for many count triples at once (vectorised bisection).

    For simulations: ``steps`` halvings of ``[−1, R]`` and ``[R, 1]`` leave the ends within
    2^−steps of the roots (60 steps: below 1e-18, i.e. exact in double precision).
    """
    g, b, n = (np.asarray(a, dtype=np.float64) for a in (g, b, n))
    z = z_value(confidence)
    r = (g - b) / n
    ends = []
    for sign, edge in ((1.0, -1.0 + _EDGE), (-1.0, 1.0 - _EDGE)):
        # Lower end: Z(Δ) − z decreases from > 0 at the edge to −z at R; upper end: Z(Δ) + z.
        reaches_edge = sign * (_tango_z_many(g, b, n, np.full_like(r, edge)) - sign * z) <= 0.0
        inner, outer = r.copy(), np.full_like(r, edge)
        for _ in range(steps):
            mid = (inner + outer) / 2.0
            past = sign * (_tango_z_many(g, b, n, mid) - sign * z) > 0.0
            outer = np.where(past, mid, outer)
            inner = np.where(past, inner, mid)
        end = (inner + outer) / 2.0
        ends.append(np.where(reaches_edge | (sign * r <= sign * edge), -sign, end))
    return ends[0], ends[1]


def design_effect(g: np.ndarray, b: np.ndarray, m: np.ndarray) -> float:
    """Design effect of verdicts clustered by query alone, from per-query counts.

    ``V_query = n/(n − 1) · Σ(y_i − R·m_i)² / N²`` (cluster-robust with its small-sample factor,
    ``y_i = g_i − b_i``) against the naive ``V = (p_G + p_B − R²) / N`` gives
    ``deff = max(1, V_query / V)``; ``deff = N/n`` when V = 0 (every verdict alike, so a query's
    further raters add nothing); ``deff = 1`` with one verdict per query (nothing to cluster).
    The raters' clustering needs the verdicts themselves:
    :func:`metrics.core.stats.cluster.clustered_variance`.

    Parameters
    ----------
    g, b, m : ndarray of shape (n,)
        Per query Good and Bad counts and number of verdicts ``m_i`` (``g_i + b_i ≤ m_i``).

    Returns
    -------
    float
        The design effect, at least 1.
    """
    g = np.asarray(g, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    if not (g.shape == b.shape == m.shape) or g.ndim != 1 or g.size == 0:
        raise ValueError("per-query counts must be non-empty 1-d arrays of the same length")
    if np.any(g < 0) or np.any(b < 0) or np.any(g + b > m) or np.any(m <= 0):
        raise ValueError("per-query counts need 0 <= g_i, b_i, g_i + b_i <= m_i and m_i > 0")
    if np.all(m == 1):
        return 1.0
    n_verdicts = float(m.sum())
    g_tot, b_tot = float(g.sum()), float(b.sum())
    # V = 0 exactly when every verdict is alike (all Good, all Bad or all Same); test the counts
    # rather than a rounded variance.
    if g_tot == n_verdicts or b_tot == n_verdicts or g_tot + b_tot == 0.0:
        return n_verdicts / g.size
    n = g.size
    r = (g_tot - b_tot) / n_verdicts
    factor = n / (n - 1) if n > 1 else 0.0
    v_query = factor * float(np.sum((g - b - r * m) ** 2)) / n_verdicts**2
    v = ((g_tot + b_tot) / n_verdicts - r * r) / n_verdicts
    ratio = v_query / v
    return 1.0 if ratio <= 1.0 + 1e-9 else ratio
