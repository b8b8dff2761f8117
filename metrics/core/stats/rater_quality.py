"""Per-rater quality figures (#18) as pure maths: proportions with Wilson score intervals,
agreement of paired answers, answer times against a floor, and a rater's label distribution
against the campaign's. No Django: annotate/selectors/quality.py reads the rows and calls these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np


@dataclass(frozen=True)
class Proportion:
    """k of n, with a Wilson score interval (both None when n is 0)."""

    k: int
    n: int
    low: float | None
    high: float | None

    @property
    def share(self) -> float | None:
        return self.k / self.n if self.n else None

    def as_dict(self) -> dict:
        return {"k": self.k, "n": self.n, "share": self.share, "low": self.low, "high": self.high}


def wilson(k: int, n: int, confidence: float = 0.95) -> Proportion:
    """Wilson's score interval for k successes in n trials (Wilson 1927): the interval
    statsmodels' proportion_confint(method="wilson") gives. Unlike the Wald interval it stays
    inside [0, 1] and is sensible for a handful of answers and for shares of 0 or 1."""
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return Proportion(k=0, n=0, low=None, high=None)
    # The standard library's quantile (Wichura's AS241, exact to double precision): scipy.stats
    # would be imported by every process that only loads the admin.
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = k / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * np.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    return Proportion(
        k=k, n=n, low=float(max(0.0, centre - half)), high=float(min(1.0, centre + half))
    )


def pair_agreement(first: Sequence, second: Sequence, confidence: float = 0.95) -> Proportion:
    """How many of the pairs (first[i], second[i]) are equal, as a proportion."""
    a, b = np.asarray(first, dtype=object), np.asarray(second, dtype=object)
    if a.shape != b.shape:
        raise ValueError("the two answer lists differ in length")
    return wilson(int(np.sum(a == b)), int(a.size), confidence)


def others_agreement(
    items: Sequence[int], raters: Sequence[int], values: Sequence, confidence: float = 0.95
) -> dict[int, Proportion]:
    """Per rater: of the pairs (their answer, another rater's answer on the same item), how
    many agree. An item answered by one rater only gives no pair."""
    item = np.asarray(items, dtype=np.int64)
    rater = np.asarray(raters, dtype=np.int64)
    value = np.asarray(values, dtype=object)
    agree: dict[int, int] = {}
    pairs: dict[int, int] = {}
    order = np.argsort(item, kind="stable")
    item, rater, value = item[order], rater[order], value[order]
    starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]]) if item.size else np.array([])
    ends = np.r_[starts[1:], item.size] if item.size else np.array([])
    for start, end in zip(starts, ends, strict=True):
        if end - start < 2:
            continue
        block_values = value[start:end]
        for i in range(start, end):
            same = int(np.sum(block_values == value[i])) - 1  # not with oneself
            agree[int(rater[i])] = agree.get(int(rater[i]), 0) + same
            pairs[int(rater[i])] = pairs.get(int(rater[i]), 0) + (end - start - 1)
    return {r: wilson(agree[r], pairs[r], confidence) for r in pairs}


@dataclass(frozen=True)
class Timing:
    """A rater's answer times: how many were timed, the median, and how many fell below the
    floor (as a proportion of the timed answers)."""

    timed: int
    median: float | None
    fast: Proportion


def timing(seconds: Sequence[float], floor: float, confidence: float = 0.95) -> Timing:
    values = np.asarray(seconds, dtype=np.float64)
    values = values[np.isfinite(values)]
    median = float(np.median(values)) if values.size else None
    fast = wilson(int(np.sum(values < floor)), int(values.size), confidence)
    return Timing(timed=int(values.size), median=median, fast=fast)


def distribution(values: Sequence, categories: Sequence) -> np.ndarray:
    """Shares of each category (in the order given) among the values; zeros when empty."""
    counts = np.array([sum(1 for v in values if v == c) for c in categories], dtype=np.float64)
    total = counts.sum()
    return counts / total if total else counts


def shares(counts: Sequence[float]) -> np.ndarray:
    """Each count's share of their total, counts[i] / sum(counts): `distribution` for values
    already counted (by the database); zeros when the total is 0."""
    values = np.asarray(counts, dtype=np.float64)
    if values.ndim != 1 or np.any(values < 0):
        raise ValueError("counts must be a flat sequence of non-negative numbers")
    total = values.sum()
    return values / total if total else values


def total_variation(p: np.ndarray, q: np.ndarray) -> float:
    """Half the L1 distance between two distributions: the largest difference in the share
    of any set of labels (0: the same, 1: disjoint)."""
    return float(0.5 * np.abs(np.asarray(p) - np.asarray(q)).sum())


def daily_medians(days: Sequence[str], seconds: Sequence[float]) -> list[tuple[str, float]]:
    """(day, median seconds) per day in order, over the timed answers: a rater's sparkline."""
    by_day: dict[str, list[float]] = {}
    for day, value in zip(days, seconds, strict=True):
        if value is not None and np.isfinite(value):
            by_day.setdefault(day, []).append(float(value))
    return [(day, float(np.median(values))) for day, values in sorted(by_day.items())]
