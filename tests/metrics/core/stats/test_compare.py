"""Run comparison against STATISTICS.md §6 and hand computation."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

from metrics.core.stats import (
    benjamini_hochberg,
    compare_runs,
    holm,
    paired_t_test,
    randomization_test,
)

A = np.array([0.50, 0.60, 0.70, 0.40, 0.80, 0.30])
B = np.array([0.60, 0.65, 0.68, 0.55, 0.80, 0.42])


def test_the_runs_case_of_statistics_md():
    res = compare_runs(A, B, query_ids=["q1", "q2", "q3", "q4", "q5", "q6"], seed=0)
    assert round(res.diff, 4) == 0.0667
    assert round(res.t, 4) == 2.4008
    assert round(res.p_t, 4) == 0.0616
    assert (round(res.ci_t_low, 4), round(res.ci_t_high, 4)) == (-0.0047, 0.1380)
    assert res.p_randomization == pytest.approx(0.1250)
    assert res.randomization_exact
    assert (res.wins, res.losses, res.ties) == (4, 1, 1)


def test_the_exact_randomization_p_by_hand():
    # d = (0.1, 0.05, −0.02, 0.15, 0, 0.12), Σd = 0.4. Of the 64 sign patterns, those with
    # |Σ ±d_i| ≥ 0.4: all-positive, the same with −0.02 flipped to +0.02 (Σ = 0.44), each with
    # the zero either sign, and their mirror images: 8 of 64 = 0.125.
    p, exact = randomization_test(A, B)
    assert exact and p == pytest.approx(8 / 64)


def test_gains_and_losses_are_ranked():
    res = compare_runs(A, B, query_ids=["q1", "q2", "q3", "q4", "q5", "q6"], seed=0, top=2)
    assert [c.query for c in res.gained] == ["q4", "q6"]
    assert [c.query for c in res.lost] == ["q3"]
    assert res.lost[0].diff == pytest.approx(-0.02)


def test_the_bootstrap_interval_is_seeded_and_contains_the_mean():
    one = compare_runs(A, B, seed=5)
    two = compare_runs(A, B, seed=5)
    assert (one.ci_boot_low, one.ci_boot_high) == (two.ci_boot_low, two.ci_boot_high)
    assert one.ci_boot_low < one.diff < one.ci_boot_high


def test_identical_runs_give_p_one_without_warnings(recwarn):
    t, p, lo, hi = paired_t_test(A, A)
    assert (t, p, lo, hi) == (0.0, 1.0, 0.0, 0.0)
    res = compare_runs(A, A, seed=1)
    assert res.p_randomization == 1.0
    assert (res.ci_boot_low, res.ci_boot_high) == (0.0, 0.0)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_a_constant_shift_is_certain_for_the_t_test(recwarn):
    t, p, lo, hi = paired_t_test(A, A + 0.1)
    assert t == np.inf and p == 0.0
    assert lo == pytest.approx(0.1) and hi == pytest.approx(0.1)
    # Randomization: only the all-positive and all-negative patterns reach |Σd| = 0.6: 2/64.
    assert randomization_test(A, A + 0.1)[0] == pytest.approx(2 / 64)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_more_than_twenty_queries_resample_with_the_seed():
    rng = np.random.default_rng(1)
    a = rng.random(50)
    b = a + rng.normal(0.03, 0.1, 50)
    p1, exact = randomization_test(a, b, seed=9)
    p2, _ = randomization_test(a, b, seed=9)
    assert not exact and p1 == p2
    # The randomization and t-test p-values agree roughly on a large, well-behaved sample.
    _, p_t, _, _ = paired_t_test(a, b)
    assert abs(p1 - p_t) < 0.05


@pytest.mark.parametrize(("a", "b"), [([1.0], [2.0]), ([1, 2], [1, 2, 3]), ([1, np.nan], [1, 2])])
def test_it_rejects_bad_input(a, b):
    with pytest.raises(ValueError):
        compare_runs(a, b)


def test_holm_by_hand():
    # Sorted 0.005, 0.01, 0.03, 0.04 → ×4, ×3, ×2, ×1 = 0.02, 0.03, 0.06, 0.04 → running max
    # 0.02, 0.03, 0.06, 0.06; back to input order.
    np.testing.assert_allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(holm([0.5, 0.6]), [1.0, 1.0])


def test_benjamini_hochberg_by_hand():
    # Sorted 0.005, 0.01, 0.03, 0.04 → m·p/k = 0.02, 0.02, 0.04, 0.04 (already monotone).
    np.testing.assert_allclose(
        benjamini_hochberg([0.01, 0.04, 0.03, 0.005]), [0.02, 0.04, 0.04, 0.02]
    )
    # Running minimum from the top: 0.01·3/1 = 0.03, 0.04·3/2 = 0.06, 0.045·3/3 = 0.045 → 0.045.
    np.testing.assert_allclose(benjamini_hochberg([0.01, 0.04, 0.045]), [0.03, 0.045, 0.045])


def test_adjustments_reject_bad_p_values():
    for bad in ([], [0.1, 1.2], [np.nan]):
        with pytest.raises(ValueError):
            holm(bad)
        with pytest.raises(ValueError):
            benjamini_hochberg(bad)


def _scipy_randomization(a, b, n_resamples, seed=None):
    res = stats.permutation_test(
        (b, a),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        rng=seed,
    )
    return res.pvalue


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(0, 2**32 - 1), st.booleans())
# Found by hypothesis: mean(d) ≈ −6.8e−5 is a thousandth of mean|d| ≈ 0.08 (see the tests below).
@example(n=8, seed=219, coarse=False)
# Σd = 0 in tenths but −1.1e−16 in floats; scipy on the floats says 0.875 (see below).
@example(n=8, seed=17, coarse=True)
def test_the_exact_randomization_test_equals_scipys(n, seed, coarse):
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = a + rng.normal(0.02, 0.1, n)
    ref_a, ref_b = a, b
    if coarse:  # ties and repeated |d_i|: the tolerance rules matter
        a, b = np.round(a, 1), np.round(b, 1)
        # scipy's tolerance (100 ulp of |T|) misses ties when T is 0 in exact arithmetic, so
        # it gets the same values counted in tenths: whole numbers, whose sums are exact.
        # Scaling every d_i by 10 leaves p unchanged.
        ref_a, ref_b = np.round(a * 10), np.round(b * 10)
        assert randomization_test(ref_a, ref_b) == randomization_test(a, b)
    p, exact = randomization_test(a, b)
    assert exact
    assert p == pytest.approx(_scipy_randomization(ref_a, ref_b, np.inf), abs=1e-12)


def test_the_observed_sign_pattern_counts_although_its_sum_cancels():
    # d̄ ≈ −6.8e−5 while the d_i are ~0.08: the sum cancels almost entirely, so rounding the sum
    # of the all-positive pattern in another order moves it by ~1e−18, more than 100 ulp of |d̄|
    # (1.5e−18). That pattern is the observed one and must count: in exact arithmetic 128 of
    # the 256 patterns have T ≤ d̄ (the 128 negative ones; d̄ is the negative nearest 0), so
    # p = 2 · 128/256 = 1, not 2 · 127/256 = 0.9921875.
    rng = np.random.default_rng(219)
    a = rng.random(8)
    b = a + rng.normal(0.02, 0.1, 8)
    d = b - a
    assert abs(d.mean()) < 1e-4 < 0.05 < np.abs(d).mean()
    assert randomization_test(a, b) == (1.0, True)
    # Mirrored, T ≥ d̄ for the 128 positive patterns: p is 1 either way.
    assert randomization_test(b, a) == (1.0, True)


def test_a_mean_difference_of_zero_in_exact_arithmetic_gives_p_one():
    # d = (0.1, 0, −0.1, 0.1, −0.1): Σd = 0, so by symmetry at least half of the 32 patterns
    # have T ≤ 0 and at least half T ≥ 0, and p = 1. In floats the d_i are 0.09999999999999998,
    # 0, −0.10000000000000009, 0.1, −0.1 and d̄ = −2.2e−17; 100 ulp of that (4.9e−31) can't
    # tell the other zero-sum patterns (rounded to ±1e−17 or so) from it, which gave 0.875
    # (as scipy does).
    a = np.array([0.9, 0.9, 0.8, 0.0, 0.1])
    b = np.array([1.0, 0.9, 0.7, 0.1, 0.0])
    assert (b - a).sum() != 0
    assert randomization_test(a, b) == (1.0, True)
    assert randomization_test(a * 10, b * 10) == (1.0, True)
    assert randomization_test(np.round(a * 10), np.round(b * 10)) == (1.0, True)


def test_the_sampled_randomization_test_agrees_with_scipy_within_noise():
    rng = np.random.default_rng(4)
    a = rng.random(40)
    b = a + rng.normal(0.02, 0.1, 40)
    ref = _scipy_randomization(a, b, 100_000, seed=1)
    p, exact = randomization_test(a, b, n_resamples=100_000, seed=2)
    assert not exact
    # Two Monte Carlo estimates of one p: SE ≤ √(p(1 − p)/B) each.
    assert abs(p - ref) < 5 * np.sqrt(2 * ref * (1 - ref) / 100_000)
