"""The per-rater quality maths (#18) against references: Wilson intervals against statsmodels,
pair agreement against a brute-force count over every pair, times against numpy's median."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from metrics.core.stats.rater_quality import (
    daily_medians,
    distribution,
    others_agreement,
    pair_agreement,
    shares,
    timing,
    total_variation,
    wilson,
)


@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_matches_statsmodels(confidence):
    for n in (1, 2, 5, 10, 37, 1000):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            if not 0 <= k <= n:
                continue
            low, high = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
            got = wilson(k, n, confidence)
            assert got.low == pytest.approx(low, abs=1e-12)
            assert got.high == pytest.approx(high, abs=1e-12)
            assert got.k == k and got.n == n


def test_wilson_without_answers_and_bad_counts():
    empty = wilson(0, 0)
    assert (empty.low, empty.high, empty.share) == (None, None, None)
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_pair_agreement_counts_equal_pairs():
    got = pair_agreement(["G", "B", "S", "G"], ["G", "G", "S", "B"])
    assert (got.k, got.n) == (2, 4)
    with pytest.raises(ValueError):
        pair_agreement(["G"], ["G", "B"])


def test_agreement_with_others_matches_every_pair_counted_by_hand():
    rng = np.random.default_rng(5)
    items = rng.integers(0, 40, 400)
    raters = rng.integers(0, 8, 400)
    # One answer per rater and item, as the app stores them.
    seen, rows = set(), []
    for item, rater in zip(items.tolist(), raters.tolist(), strict=True):
        if (item, rater) not in seen:
            seen.add((item, rater))
            rows.append((item, rater, int(rng.integers(0, 3))))
    got = others_agreement(*zip(*rows, strict=True))
    k: dict[int, int] = {}
    n: dict[int, int] = {}
    for a, b in itertools.permutations(rows, 2):
        if a[0] == b[0]:
            n[a[1]] = n.get(a[1], 0) + 1
            k[a[1]] = k.get(a[1], 0) + (a[2] == b[2])
    assert {r: (p.k, p.n) for r, p in got.items()} == {r: (k[r], n[r]) for r in n}


def test_timing_median_and_fast_share():
    seconds = [0.5, 1.9, 2.0, 3.0, 10.0, float("nan")]
    got = timing(seconds, floor=2.0)
    assert got.timed == 5
    assert got.median == np.median([0.5, 1.9, 2.0, 3.0, 10.0])
    assert (got.fast.k, got.fast.n) == (2, 5)  # strictly below the floor
    assert timing([], 2.0).median is None


def test_distribution_and_distance():
    p = distribution([1, 1, 2, 3], [1, 2, 3])
    q = distribution([3, 3], [1, 2, 3])
    assert p.tolist() == [0.5, 0.25, 0.25]
    assert total_variation(p, q) == pytest.approx(0.75)
    assert total_variation(p, p) == 0


def test_shares_of_counts_are_the_distribution_of_the_values_counted():
    assert shares([2, 1, 1]).tolist() == [0.5, 0.25, 0.25]
    assert shares([2, 1, 1]).tolist() == distribution([1, 1, 2, 3], [1, 2, 3]).tolist()
    assert shares([0, 0]).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError):
        shares([1, -1])


def test_daily_medians():
    got = daily_medians(["d2", "d1", "d1", "d1"], [4.0, 1.0, 3.0, None])
    assert got == [("d1", 2.0), ("d2", 4.0)]
