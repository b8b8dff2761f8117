"""Issue: two-way clustered GSB, informative queries, the more-queries range, constant memory.

Expected values come from statsmodels' cluster-robust covariance (an OLS of the verdict score
on a constant has the mean as its coefficient, and statsmodels' small-sample correction for one
regressor is exactly G/(G − 1)) or from the formulas written out here by hand.
"""

import math
import tracemalloc

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.optimize import brentq
from scipy.stats import norm
from scipy.stats import t as t_dist

from metrics.core.stats import (
    Decision,
    clustered_variance,
    gsb_from_counts,
    gsb_from_verdicts,
    tango_interval,
    tango_intervals,
)

Z95 = norm.ppf(0.975)
Z_BETA = 0.8416


def crossed(n_queries=40, n_raters=12, keep=0.6, leniency=0.5, seed=0):
    """Verdicts of raters shared across queries, some cells missing, raters differing."""
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(n_queries), n_raters)
    r = np.tile(np.arange(n_raters), n_queries)
    pick = rng.random(q.size) < keep
    q, r = q[pick], r[pick]
    latent = rng.normal(size=n_queries)[q] + leniency * rng.normal(size=n_raters)[r]
    latent = latent + rng.normal(size=q.size) + 0.2
    x = np.where(latent > 0.5, 1, np.where(latent < -0.5, -1, 0))
    return q, r, x


def statsmodels_variance(x, groups):
    fit = sm.OLS(x.astype(float), np.ones((x.size, 1))).fit(
        cov_type="cluster", cov_kwds={"groups": groups}
    )
    return float(fit.cov_params()[0, 0])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_two_way_variance_matches_statsmodels(seed):
    q, r, x = crossed(seed=seed)
    cv = clustered_variance(x, q, r)
    assert cv.rater_clustered and cv.n_raters == 12
    assert cv.query == pytest.approx(statsmodels_variance(x, q), rel=1e-10)
    assert cv.rater == pytest.approx(statsmodels_variance(x, r), rel=1e-10)
    two_way = statsmodels_variance(x, np.column_stack([q, r]))
    assert cv.query + cv.rater - cv.pair == pytest.approx(two_way, rel=1e-10)
    assert cv.robust == pytest.approx(max(cv.query, cv.rater, two_way), rel=1e-10)
    naive = np.mean((x - x.mean()) ** 2) / x.size
    assert cv.deff == pytest.approx(max(1.0, cv.robust / naive))


def test_the_variance_is_never_below_the_larger_one_way_variance():
    # Ten raters agree on every query and the queries split evenly: every rater's residuals
    # sum to (almost) 0, so V_rater is tiny, V_pair is not, and V_2 = V_query + V_rater − V_pair
    # falls below V_query. The rule keeps V_query.
    q = np.repeat(np.arange(20), 10)
    r = np.tile(np.arange(10), 20)
    x = np.where(q % 2 == 0, 1, -1)
    x[(q == 0) & (r < 3)] = 0
    cv = clustered_variance(x, q, r)
    two_way = statsmodels_variance(x, np.column_stack([q, r]))
    assert two_way < statsmodels_variance(x, q)  # the rule matters here
    assert cv.robust == pytest.approx(statsmodels_variance(x, q), rel=1e-10)
    naive = np.mean((x - x.mean()) ** 2) / x.size
    assert cv.deff == pytest.approx(statsmodels_variance(x, q) / naive, rel=1e-10)


def test_with_fewer_than_ten_raters_the_interval_describes_these_raters():
    q, r, x = crossed(n_raters=5)
    res = gsb_from_verdicts(q, x, raters=r, agreement=False)
    assert res.n_raters == 5 and not res.rater_clustered
    assert any("describes these raters, not raters in general" in w for w in res.warnings)
    # By query only, with the small-sample factor: statsmodels' one-way variance.
    naive = np.mean((x - x.mean()) ** 2) / x.size
    assert res.deff == pytest.approx(statsmodels_variance(x, q) / naive)


def test_ten_raters_are_clustered_and_widen_the_interval():
    q, r, x = crossed(n_raters=10, leniency=1.0, keep=1.0)
    by_query = gsb_from_verdicts(q, x)
    both = gsb_from_verdicts(q, x, raters=r)
    assert both.rater_clustered and not any("describes these" in w for w in both.warnings)
    assert both.deff > by_query.deff
    naive = np.mean((x - x.mean()) ** 2) / x.size
    two_way = statsmodels_variance(x, np.column_stack([q, r]))
    v_query = statsmodels_variance(x, q)
    expected = max(v_query, statsmodels_variance(x, r), two_way) / naive
    assert both.deff == pytest.approx(expected)
    # Few clusters: the critical value is t with min(G_query, G_rater) − 1 = 9 degrees of
    # freedom (CGM 2011) when the rater side carries the variance, as here.
    assert expected * naive > v_query and both.interval_df == 9
    shrink = expected * (t_dist.ppf(0.975, 9) / Z95) ** 2
    g, b, n = both.good / shrink, both.bad / shrink, both.n_verdicts / shrink
    assert (both.ci_low, both.ci_high) == pytest.approx(tango_interval(g, b, n))
    # Only the clustered standard error is reported.
    assert both.se == pytest.approx(math.sqrt(max(two_way, statsmodels_variance(x, q),
                                                  statsmodels_variance(x, r))))  # fmt: skip


def test_nothing_to_cluster_gives_no_design_effect():
    # Every query and every rater one verdict: the STATISTICS.md cases (deff = 1).
    x = np.array([1] * 7 + [0] * 10 + [-1] * 3)
    res = gsb_from_verdicts(np.arange(20), x, raters=[f"r{i}" for i in range(20)])
    assert res.deff == 1.0
    counts = gsb_from_counts(7, 10, 3)
    assert (res.ci_low, res.ci_high, res.se) == (counts.ci_low, counts.ci_high, counts.se)


def test_identical_list_queries_do_not_count_towards_the_minimum():
    # 24 identical-list queries plus 6 all-Good queries, 3 raters each: used to say Launch.
    q = np.repeat(np.arange(30), 3)
    ident = q < 24
    v = np.where(ident, "S", "G")
    res = gsb_from_verdicts(q, v, identical=ident)
    assert res.ci_low > 0 and res.sign_p < 0.05  # the other conditions hold
    assert (res.n_queries, res.n_informative) == (30, 6)
    assert res.decision is Decision.MORE_DATA
    assert res.reason == "fewer than 30 queries whose lists differ"
    # 30 informative queries at a share of 6/30 informative: 150 in all, 120 more.
    assert res.more_queries == res.more_queries_low == res.more_queries_high == 120


def test_the_estimate_accounts_for_the_sign_test():
    # 14 queries 5 Good, 12 queries 1 Bad + 4 Same, 8 queries 5 Same: L > 0, n ≥ 30, but the
    # sign test (14 of 26, p = 0.845) fails. It used to say "about 1 more query".
    q = np.repeat(np.arange(34), 5)
    v = ["G"] * 70 + ["B", "S", "S", "S", "S"] * 12 + ["S"] * 40
    res = gsb_from_verdicts(q, v)
    assert res.ci_low > 0 and round(res.sign_p, 3) == 0.845
    assert res.decision is Decision.MORE_DATA
    # n′ = ((z/2 + z_β√(q(1 − q)))/(q − 1/2))², q = 14/26, over the leaning share f = 26/34.
    share = 14 / 26
    n_prime = ((Z95 / 2 + Z_BETA * math.sqrt(share * (1 - share))) / (share - 0.5)) ** 2
    assert res.more_queries == math.ceil(n_prime / (26 / 34)) - 34  # 1,698
    assert res.more_queries_limited_by == "sign test"
    # 14 of 26 is compatible with no lean at all: no upper end.
    assert res.more_queries_high is None and res.more_queries_low < res.more_queries


def _z_by_hand(g, b, n, d):
    beta = -g - b + (2 * n - g + b) * d
    pt = (-beta + math.sqrt(max(0.0, beta**2 + 8 * n * b * d * (1 - d)))) / (4 * n)
    return (g - b - n * d) / math.sqrt(n * (2 * pt + d * (1 - d)))


def test_the_estimate_is_a_range_around_the_formula():
    # 60, 90, 50: the formula of STATISTICS.md §3 gives 1,525 (kept as the central figure).
    res = gsb_from_counts(60, 90, 50)
    assert res.more_queries == 1525
    # Favourable end: GSB at the upper end of its 80% score interval, discordance 0.55 kept.
    upper = brentq(lambda d: _z_by_hand(60, 50, 200, d) + norm.ppf(0.9), 0.05, 0.99)
    v0, v1 = 0.55, 0.55 - upper**2
    interval_total = ((Z95 * math.sqrt(v0) + Z_BETA * math.sqrt(v1)) / upper) ** 2
    # ... and the share of leaning queries for the candidate at the upper end of Wilson's 80%.
    k, n, zq = 60, 110, norm.ppf(0.9)
    centre = (k + zq**2 / 2) / (n + zq**2)
    share = centre + zq * math.sqrt(k * (n - k) / n + zq**2 / 4) / (n + zq**2)
    sign_total = ((Z95 / 2 + Z_BETA * math.sqrt(share * (1 - share))) / (share - 0.5)) ** 2
    sign_total /= 110 / 200
    assert res.more_queries_low == math.ceil(max(interval_total, sign_total)) - 200  # 119
    # Unfavourable end: the 80% interval reaches below 0, so no number is sure to be enough.
    assert res.more_queries_high is None
    assert "at least 119 more queries, with no upper end" in res.more_queries_text


def test_counts_are_not_expanded_per_verdict():
    tracemalloc.start()
    try:
        res = gsb_from_counts(40_000_000, 30_000_000, 30_000_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # One int64 per verdict would be 800 MB; the same memory as (40, 30, 30) is a few kB.
    assert peak < 1_000_000
    assert res.n_queries == 100_000_000 and res.decision is Decision.LAUNCH
    assert res.sign_k == 40_000_000 and res.sign_n == 70_000_000


def test_many_intervals_at_once_match_one_at_a_time():
    rng = np.random.default_rng(5)
    n = rng.integers(1, 200, 300).astype(float)
    g = np.floor(rng.random(300) * n)
    b = np.floor(rng.random(300) * (n - g))
    g[:3], b[:3] = n[:3], 0  # all Good
    g[3:6], b[3:6] = 0, n[3:6]  # all Bad
    g[6:9], b[6:9] = 0, 0  # all Same
    deff = 1 + 2 * rng.random(300)
    low, high = tango_intervals(g / deff, b / deff, n / deff)
    expected = np.array(
        [tango_interval(*t) for t in zip(g / deff, b / deff, n / deff, strict=True)]
    )
    assert np.max(np.abs(low - expected[:, 0])) < 1e-12
    assert np.max(np.abs(high - expected[:, 1])) < 1e-12
