"""GSB statistics against STATISTICS.md's cases and hand computation."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from metrics.core.stats import (
    Decision,
    design_effect,
    gsb_decision,
    gsb_from_counts,
    gsb_from_query_counts,
    position_bias,
    shuffle_check,
    tango_interval,
    wald_interval,
)

Z95 = norm.ppf(0.975)

# STATISTICS.md, "Cases to test against" (c = 0.95, τ = 0, n_min = 30, one verdict per query).
TABLE = [
    ((1, 1, 2), -0.2500, 0.4146, (-0.7783, 0.5047), 1.0000, Decision.DO_NOT_LAUNCH, False),
    ((60, 90, 50), 0.0500, 0.0523, (-0.0529, 0.1518), 0.3909, Decision.MORE_DATA, False),
    ((70, 100, 30), 0.2000, 0.0480, (0.1041, 0.2923), 0.0001, Decision.LAUNCH, True),
    ((30, 100, 70), -0.2000, 0.0480, (-0.2923, -0.1041), 0.0001, Decision.DO_NOT_LAUNCH, True),
    ((0, 10, 0), 0.0000, 0.0000, (-0.2775, 0.2775), 1.0000, Decision.DO_NOT_LAUNCH, False),
]


@pytest.mark.parametrize(("counts", "r", "se", "ci", "sign_p", "decision", "conclusive"), TABLE)
def test_it_reproduces_the_table(counts, r, se, ci, sign_p, decision, conclusive):
    res = gsb_from_counts(*counts)
    assert round(res.gsb, 4) == r
    assert round(res.se, 4) == se
    assert (round(res.ci_low, 4), round(res.ci_high, 4)) == ci
    assert round(res.sign_p, 4) == sign_p
    assert res.decision is decision
    assert res.conclusive is conclusive
    assert res.deff == 1.0
    assert res.n_queries == res.n_verdicts == sum(counts)


def test_it_estimates_1525_more_queries_for_60_90_50():
    res = gsb_from_counts(60, 90, 50)
    assert res.more_queries == 1525
    assert res.reason == "the interval still includes the bar"


def test_it_gives_no_estimate_unless_more_data_is_needed():
    assert gsb_from_counts(70, 100, 30).more_queries is None
    assert gsb_from_counts(1, 1, 2).more_queries is None


def test_the_wald_interval_of_seed_002():
    low, high = wald_interval(1, 2, 4)
    assert (round(low, 4), round(high, 4)) == (-1.0626, 0.5626)
    # A value for tests only: the result carries clustered figures, never this unclustered one.
    assert "wald_low" not in gsb_from_counts(1, 1, 2).to_dict()


@pytest.mark.parametrize("n", [1, 10, 57])
def test_all_same_gives_plus_minus_z2_over_n_plus_z2(n):
    low, high = tango_interval(0, 0, n)
    expected = Z95**2 / (n + Z95**2)
    assert low == pytest.approx(-expected, abs=1e-10)
    assert high == pytest.approx(expected, abs=1e-10)


def test_all_good_reaches_one_and_all_bad_minus_one():
    low, high = tango_interval(10, 0, 10)
    assert high == 1.0 and 0 < low < 1
    low2, high2 = tango_interval(0, 10, 10)
    assert low2 == -1.0 and high2 == pytest.approx(-low, abs=1e-12)


def _z_by_hand(g, b, n, d):
    # STATISTICS.md §1, written out independently of the module.
    beta = -g - b + (2 * n - g + b) * d
    pt = (-beta + math.sqrt(max(0.0, beta**2 + 8 * n * b * d * (1 - d)))) / (4 * n)
    return (g - b - n * d) / math.sqrt(n * (2 * pt + d * (1 - d)))


@pytest.mark.parametrize(("g", "b", "n"), [(1, 2, 4), (60, 50, 200), (3, 0, 7), (5.5, 2.25, 9.5)])
def test_the_ends_solve_z_equals_plus_minus_z(g, b, n):
    low, high = tango_interval(g, b, n)
    assert _z_by_hand(g, b, n, low) == pytest.approx(Z95, abs=1e-8)
    assert _z_by_hand(g, b, n, high) == pytest.approx(-Z95, abs=1e-8)


def test_the_confidence_level_changes_z():
    narrow = tango_interval(60, 50, 200, confidence=0.80)
    wide = tango_interval(60, 50, 200, confidence=0.99)
    assert wide[0] < narrow[0] < narrow[1] < wide[1]


def test_position_bias_70_left_40_right_warns():
    pb = position_bias(70, 40)
    assert round(pb.share_left, 4) == 0.6364
    assert (round(pb.ci_low, 4), round(pb.ci_high, 4)) == (0.5392, 0.7260)
    assert round(pb.p_value, 4) == 0.0054
    assert pb.warn


def test_position_bias_balanced_does_not_warn_and_empty_is_none():
    assert not position_bias(50, 50).warn
    assert position_bias(0, 0) is None


def test_the_shuffle_check_flags_a_broken_shuffle():
    assert shuffle_check(80, 100).error  # p ≈ 1e-9
    assert not shuffle_check(55, 100).error
    assert shuffle_check(0, 0) is None


def test_design_effect_by_hand():
    # Two raters on each of three queries: (G, G), (B, B), (G, S).
    # N = 6, G = 3, B = 2, R = 1/6, V = (5/6 − 1/36)/6 = 29/216, with the small-sample factor
    # G/(G − 1) = 3/2: V_CR = 3/2 · [(2 − 1/3)² + (−2 − 1/3)² + (1 − 1/3)²]/36
    # = 3/2 · (78/9)/36 = 13/36, deff = (13/36)/(29/216) = 78/29.
    g, s, b = np.array([2, 0, 1]), np.array([0, 0, 1]), np.array([0, 2, 0])
    assert design_effect(g, b, g + s + b) == pytest.approx(78 / 29)
    res = gsb_from_query_counts(g, s, b)
    assert res.deff == pytest.approx(78 / 29)
    k = 29 / 78
    assert (res.ci_low, res.ci_high) == pytest.approx(tango_interval(3 * k, 2 * k, 6 * k))
    # The clustered interval is wider than the one that ignores the clustering.
    naive = tango_interval(3, 2, 6)
    assert res.ci_low < naive[0] and res.ci_high > naive[1]
    # Only the clustered standard error is reported: √V_CR.
    assert res.se == pytest.approx(math.sqrt(13 / 36))
    # Sign test over queries: y = (2, −2, 1): k = 2 of n′ = 3, p = 2·P(X ≥ 2) = 1.
    assert (res.sign_k, res.sign_n, res.sign_p) == (2, 3, pytest.approx(1.0))


def test_design_effect_is_at_least_one():
    # Raters always split G/B within a query: V_CR = 0 < V, deff = max(1, 0) = 1.
    assert design_effect(np.array([1, 1]), np.array([1, 1]), np.array([2, 2])) == 1.0


def test_design_effect_is_n_over_queries_when_every_verdict_is_alike():
    # Two queries × three raters, all Same: V = 0, deff = N/n = 3; interval ±z²/(2 + z²).
    z = np.zeros(2, int)
    assert design_effect(z, z, np.array([3, 3])) == 3.0
    res = gsb_from_query_counts(z, np.array([3, 3]), z)
    assert res.ci_high == pytest.approx(Z95**2 / (2 + Z95**2), abs=1e-10)


def test_one_verdict_per_query_has_no_design_effect():
    rng = np.random.default_rng(7)
    y = rng.integers(-1, 2, size=500)
    g, b = (y == 1).astype(int), (y == -1).astype(int)
    assert design_effect(g, b, np.ones(500, int)) == 1.0


def test_few_queries_need_more_data_up_to_the_minimum():
    # 20 Good of 20: L > 0 but n = 20 < 30. V₁ = 1 − 1 = 0, V₀ = 1, δ = 1:
    # n_total = ⌈3.84⌉ = 4, more = max(1, max(4, 30) − 20) = 10.
    res = gsb_from_counts(20, 0, 0)
    assert res.ci_low > 0
    assert res.decision is Decision.MORE_DATA
    assert res.more_queries == 10
    assert res.reason == "fewer than 30 queries"


def test_a_negative_threshold_skips_the_sign_test():
    # τ = −0.1: R = 0.05 > τ and L = −0.0529 > τ, n = 200 ≥ 30 → launch.
    res = gsb_from_counts(60, 90, 50, threshold=-0.1)
    assert res.decision is Decision.LAUNCH


def test_launch_needs_the_sign_test_to_favour_the_candidate():
    common = dict(gsb=0.1, ci_low=0.02, ci_high=0.2, n_queries=100, threshold=0.0,
                  confidence=0.95, min_queries=30)  # fmt: skip
    assert gsb_decision(sign_k=40, sign_n=60, sign_p=0.01, **common)[0] is Decision.LAUNCH
    assert gsb_decision(sign_k=40, sign_n=60, sign_p=0.2, **common)[0] is Decision.MORE_DATA
    # Significant, but for the baseline.
    assert gsb_decision(sign_k=20, sign_n=60, sign_p=0.01, **common)[0] is Decision.MORE_DATA


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(confidence=1.0), "confidence"),
        (dict(confidence=0.0), "confidence"),
        (dict(threshold=1.0), "threshold"),
        (dict(min_queries=-1), "min_queries"),
    ],
)
def test_it_rejects_bad_settings(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gsb_from_counts(1, 1, 1, **kwargs)


@pytest.mark.parametrize("counts", [(0, 0, 0), (-1, 2, 3), (1.5, 1, 1), (True, 1, 1)])
def test_it_rejects_bad_counts(counts):
    with pytest.raises(ValueError):
        gsb_from_counts(*counts)


def test_the_bootstrap_cross_check_is_seeded_and_brackets_r():
    rng = np.random.default_rng(3)
    g = rng.integers(0, 3, 60)
    b = rng.integers(0, 3, 60)
    s = 3 - np.minimum(3, g + b)
    b = np.minimum(b, 3 - g)
    one = gsb_from_query_counts(g, s, b, bootstrap=True, seed=11, n_resamples=2000)
    two = gsb_from_query_counts(g, s, b, bootstrap=True, seed=11, n_resamples=2000)
    assert one.bootstrap_low == two.bootstrap_low and one.bootstrap_high == two.bootstrap_high
    assert one.bootstrap_low < one.gsb < one.bootstrap_high
    assert one.bootstrap_seed == 11
    # Same order of width as the score interval with the design effect.
    ratio = (one.bootstrap_high - one.bootstrap_low) / (one.ci_high - one.ci_low)
    assert 0.7 < ratio < 1.3


def test_the_bootstrap_on_all_same_is_a_point_without_warnings():
    z = np.zeros(40, int)
    res = gsb_from_query_counts(z, z + 2, z, bootstrap=True, seed=1)
    assert (res.bootstrap_low, res.bootstrap_high) == (0.0, 0.0)


counts = st.tuples(st.integers(0, 300), st.integers(0, 300), st.integers(0, 300)).filter(
    lambda c: sum(c) > 0
)


@settings(max_examples=300, deadline=None)
@given(counts)
def test_the_interval_contains_r_and_lies_in_minus_one_one(c):
    res = gsb_from_counts(*c)
    assert -1.0 <= res.ci_low <= res.gsb <= res.ci_high <= 1.0


@settings(max_examples=300, deadline=None)
@given(counts)
def test_swapping_good_and_bad_mirrors_the_interval(c):
    g, s, b = c
    one, two = gsb_from_counts(g, s, b), gsb_from_counts(b, s, g)
    assert one.ci_low == pytest.approx(-two.ci_high, abs=1e-9)
    assert one.ci_high == pytest.approx(-two.ci_low, abs=1e-9)
    assert one.sign_p == pytest.approx(two.sign_p)


@settings(max_examples=300, deadline=None)
@given(
    counts,
    st.floats(-0.5, 0.5),
    st.sampled_from([0.8, 0.9, 0.95, 0.99]),
    st.integers(0, 400),
)
def test_decisions_are_exclusive_and_exhaustive(c, tau, conf, n_min):
    res = gsb_from_counts(*c, threshold=tau, confidence=conf, min_queries=n_min)
    # The three conditions of STATISTICS.md §3, written out independently.
    no = res.gsb <= tau
    favours = res.sign_p < 1 - conf and res.sign_k > res.sign_n / 2
    launch = not no and res.ci_low > tau and res.n_queries >= n_min and (tau < 0 or favours)
    more = not no and not launch
    assert [no, launch, more].count(True) == 1
    expected = Decision.DO_NOT_LAUNCH if no else Decision.LAUNCH if launch else Decision.MORE_DATA
    assert res.decision is expected
    assert (res.more_queries is not None) == more
    if more:
        assert res.more_queries >= 1
    if no:
        assert res.conclusive == (res.ci_high < tau)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4)), min_size=1,
                max_size=40).filter(lambda q: all(sum(t) > 0 for t in q)))  # fmt: skip
def test_the_clustered_interval_contains_r(queries):
    g, s, b = (np.array(x) for x in zip(*queries, strict=True))
    res = gsb_from_query_counts(g, s, b)
    assert res.deff >= 1.0
    assert -1.0 <= res.ci_low <= res.gsb <= res.ci_high <= 1.0
