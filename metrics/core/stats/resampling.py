"""Seeded BCa bootstrap intervals shared by run comparison and the GSB cross-check.

scipy's BCa is undefined on degenerate samples (every resample gives the same statistic, so the
acceleration and bias terms are 0/0): it warns and returns NaN. Degenerate input is handled here
explicitly, so callers never see NaN or a warning for an answer that is known exactly.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from scipy import stats

__all__ = [
    "DEFAULT_RESAMPLES",
    "bca_interval",
    "cluster_ratio_interval",
    "is_constant",
    "mean_interval",
]

DEFAULT_RESAMPLES = 10_000
# Resamples evaluated per vectorised batch: bounds memory to batch × n floats per array.
_BATCH = 1_000


def is_constant(d: np.ndarray) -> bool:
    """All values equal up to rounding (differences b − a of equal shifts differ by ~1e-17)."""
    scale = max(1.0, float(np.max(np.abs(d))))
    return float(np.ptp(d)) <= 1e-12 * scale


def bca_interval(
    data: tuple[np.ndarray, ...],
    statistic: Callable[..., np.ndarray],
    *,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
) -> tuple[float, float]:
    """BCa bootstrap interval of a statistic of paired 1-d samples (resampled together).

    Parameters
    ----------
    data : tuple of ndarray
        Samples of equal length n ≥ 2, resampled by the same indices (``paired=True``).
    statistic : callable
        ``statistic(*samples, axis=-1)``, vectorised over leading axes.
    confidence : float
        Two-sided confidence level.
    n_resamples : int
        Number of bootstrap resamples.
    seed : int or None
        Seed of the generator; store it to reproduce the interval.

    Returns
    -------
    (low, high) : tuple of float
        Falls back to the percentile interval if BCa is undefined despite varying data (for
        example when nearly every resample gives the same value).
    """
    if not (0.0 < confidence < 1.0):
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    if n_resamples < 1:
        raise ValueError("n_resamples must be positive")
    arrays = tuple(np.asarray(x, dtype=np.float64) for x in data)
    if arrays[0].ndim != 1 or arrays[0].size < 2:
        raise ValueError("the bootstrap needs at least two observations")
    # Same generator state for BCa and a possible percentile fallback: reproducible either way.
    for method in ("BCa", "percentile"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = stats.bootstrap(
                arrays,
                statistic,
                n_resamples=n_resamples,
                batch=_BATCH,
                vectorized=True,
                paired=True,
                confidence_level=confidence,
                method=method,
                rng=np.random.default_rng(seed),
            )
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
        if np.isfinite(low) and np.isfinite(high):
            return low, high
    raise ValueError("the bootstrap interval is undefined for this sample")


def _mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis)


def mean_interval(
    d: np.ndarray,
    *,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
) -> tuple[float, float]:
    """BCa interval of the mean of ``d``; ``(d̄, d̄)`` when every value is equal."""
    d = np.asarray(d, dtype=np.float64)
    if d.ndim != 1 or d.size < 2:
        raise ValueError("the bootstrap needs at least two observations")
    if is_constant(d):
        mean = float(np.mean(d))
        return mean, mean
    return bca_interval((d,), _mean, confidence=confidence, n_resamples=n_resamples, seed=seed)


def _ratio(y: np.ndarray, m: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.sum(y, axis=axis) / np.sum(m, axis=axis)


def cluster_ratio_interval(
    y: np.ndarray,
    m: np.ndarray,
    *,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
) -> tuple[float, float]:
    """Cluster bootstrap of ``R = Σy_i / Σm_i``, resampling queries with replacement.

    BCa's acceleration comes from the jackknife over queries (scipy's jackknife over the
    resampled unit). When every query has ``y_i = R·m_i`` each resample gives R exactly,
    and the interval is ``(R, R)``.
    """
    y = np.asarray(y, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    if y.shape != m.shape or y.ndim != 1 or y.size < 2:
        raise ValueError("the cluster bootstrap needs at least two queries")
    r = float(y.sum() / m.sum())
    if np.allclose(y, r * m, rtol=0.0, atol=1e-12):
        return r, r
    return bca_interval((y, m), _ratio, confidence=confidence, n_resamples=n_resamples, seed=seed)
