"""An always-valid confidence sequence for the mean of values bounded in [−1, 1].

A manager who reads a fixed-sample interval after every answer and stops at the first one that
clears the bar launches a truly equal candidate far more often than 1 − confidence. A confidence
sequence (CS) covers the mean at every look at once: P(μ ∈ CS_t for all t) ≥ confidence, so
reading it as often as one likes is safe.

Method: the hedged betting CS with the predictable plug-in bets of Waudby-Smith and Ramdas,
"Estimating means of bounded random variables by betting", JRSS-B 86 (2024), Section 4 (their
Theorem 3 with θ = 1/2, c = 1/2), for values rescaled to [0, 1]. For each candidate mean m on a
grid, two gamblers bet that the mean is above and below m; their average wealth is a nonnegative
martingale with initial value 1 when m is the true mean, so by Ville's inequality it exceeds
1/α with probability at most α, ever. The CS is the set of m whose wealth has stayed below 1/α
(the running intersection). We use the average θK⁺ + (1 − θ)K⁻ (the paper's max is below it, so
ours is never wider and Ville's inequality holds the same).

The grid makes the set exact to one grid step; the bounds are widened by that step so the
sequence never loses coverage to rounding. Values are assumed independent given their order
(queries in the order they completed); for GSB each value is a query's mean verdict score
y_i/m_i, so the sequence estimates the query-weighted GSB. Pure numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["ConfidenceSequence", "betting_confidence_sequence", "ever_excluded"]

GRID = 401  # points over [0, 1]: a step of 0.0025 on the [0, 1] scale, 0.005 on [−1, 1]
_CHUNK = 256  # grid points at a time, so memory stays n × 256 whatever n is
_C = 0.5  # bets are truncated at c/m (c/(1 − m)): the paper's choice, keeps wealth positive


@dataclass(frozen=True)
class ConfidenceSequence:
    """The sequence after each value: low[t], high[t] bound the mean given values 0..t."""

    low: np.ndarray
    high: np.ndarray
    mean: np.ndarray  # running sample mean, on the values' own scale
    confidence: float

    @property
    def n(self) -> int:
        return int(self.low.size)

    @property
    def last(self) -> tuple[float, float]:
        """The current interval ([−1, 1] before any value)."""
        if not self.n:
            return -1.0, 1.0
        return float(self.low[-1]), float(self.high[-1])


def _plugin_bets(z: np.ndarray, alpha: float) -> np.ndarray:
    """λ_t from values before t only (predictable), WSR (2024) eq. (26)-(27), along the last
    axis."""
    n = z.shape[-1]
    t = np.arange(1, n + 1, dtype=np.float64)
    mu_hat = (0.5 + np.cumsum(z, axis=-1)) / (t + 1)
    sigma2 = (0.25 + np.cumsum((z - mu_hat) ** 2, axis=-1)) / (t + 1)
    sigma2_prev = np.concatenate([np.full((*z.shape[:-1], 1), 0.25), sigma2[..., :-1]], axis=-1)
    return np.sqrt(2 * math.log(2 / alpha) / (sigma2_prev * t * np.log(t + 1)))


def _log_wealth(z: np.ndarray, lam: np.ndarray, m: float) -> np.ndarray:
    """log(½K⁺_t(m) + ½K⁻_t(m)) along the last axis."""
    centred = z - m
    log_up = np.cumsum(np.log1p(np.minimum(lam, _C / m) * centred), axis=-1)
    log_down = np.cumsum(np.log1p(-np.minimum(lam, _C / (1 - m)) * centred), axis=-1)
    return np.logaddexp(log_up, log_down) - math.log(2)


def ever_excluded(values: np.ndarray, mean: float, confidence: float = 0.95) -> np.ndarray:
    """Whether the sequence excluded `mean` at some look, per row of `values` (rows: separate
    sequences, each in [−1, 1]). The exact event whose probability is at most 1 − confidence
    when `mean` is the true mean; fast enough to simulate thousands of monitored sequences."""
    z = (np.asarray(values, dtype=np.float64) + 1) / 2
    m = (mean + 1) / 2
    if not 0 < m < 1:
        raise ValueError("mean must lie strictly inside (−1, 1)")
    alpha = 1 - confidence
    return (_log_wealth(z, _plugin_bets(z, alpha), m) >= math.log(1 / alpha)).any(axis=-1)


def _rejected(z: np.ndarray, lam: np.ndarray, grid: np.ndarray, log_bar: float) -> np.ndarray:
    """(n, len(grid)) bool: m already excluded after value t (running intersection)."""
    centred = z[:, None] - grid[None, :]
    up = np.minimum(lam[:, None], _C / grid[None, :])
    down = np.minimum(lam[:, None], _C / (1 - grid[None, :]))
    log_up = np.cumsum(np.log1p(up * centred), axis=0)
    log_down = np.cumsum(np.log1p(-down * centred), axis=0)
    # log(½K⁺ + ½K⁻), computed stably
    log_wealth = np.logaddexp(log_up, log_down) - math.log(2)
    return np.logical_or.accumulate(log_wealth >= log_bar, axis=0)


def betting_confidence_sequence(
    values: np.ndarray, confidence: float = 0.95, *, grid: int = GRID
) -> ConfidenceSequence:
    """The CS for the mean of `values` (each in [−1, 1]) in the order given."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size and (not np.all(np.isfinite(x)) or x.min() < -1 or x.max() > 1):
        raise ValueError("values must be finite and lie in [−1, 1]")
    n = x.size
    if n == 0:
        empty = np.empty(0)
        return ConfidenceSequence(empty, empty, empty, confidence)
    alpha = 1 - confidence
    z = (x + 1) / 2
    lam = _plugin_bets(z, alpha)
    # Open grid: m = 0 or 1 would allow bets of size c/0; the step widening below covers them.
    points = np.linspace(0, 1, grid)[1:-1]
    step = 1 / (grid - 1)
    lowest = np.full(n, np.inf)
    highest = np.full(n, -np.inf)
    log_bar = math.log(1 / alpha)
    for start in range(0, points.size, _CHUNK):
        chunk = points[start : start + _CHUNK]
        kept = ~_rejected(z, lam, chunk, log_bar)
        has = kept.any(axis=1)
        first = np.where(has, chunk[np.argmax(kept, axis=1)], np.inf)
        last = np.where(has, chunk[kept.shape[1] - 1 - np.argmax(kept[:, ::-1], axis=1)], -np.inf)
        lowest = np.minimum(lowest, first)
        highest = np.maximum(highest, last)
    # Widen by one step (the boundary lies between a kept and an excluded point); if every grid
    # point is excluded the mean is within a step of 0 or 1: keep the running mean's end.
    mean_z = np.cumsum(z) / np.arange(1, n + 1)
    empty = ~np.isfinite(lowest)
    lowest = np.where(empty, np.where(mean_z < 0.5, 0.0, 1 - step), lowest - step)
    highest = np.where(empty, np.where(mean_z < 0.5, step, 1.0), highest + step)
    low = np.clip(lowest, 0, 1) * 2 - 1
    high = np.clip(highest, 0, 1) * 2 - 1
    return ConfidenceSequence(low, high, mean_z * 2 - 1, confidence)
