"""The click model's numpy core (metrics.core.clicks) against references: the PBM's EM against
a direct maximisation of the same likelihood by scipy, the shrinkage against hand-derived
values, the floor on expected clicks."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from metrics.core.clicks import (
    click_model_scores,
    fit_pbm,
    pair_index,
    ratio_grades,
    shrunk_ratios,
)

# Three documents of one query, each shown at each of three positions (a randomised log):
# clicks drawn from gamma = (1, 0.6, 0.3), alpha = (0.5, 0.3, 0.1).
GAMMA = np.array([1.0, 0.6, 0.3])
ALPHA = np.array([0.5, 0.3, 0.1])


def randomised_log(seed: int = 4):
    rng = np.random.default_rng(seed)
    pair = np.repeat(np.arange(3), 3)
    position = np.tile(np.arange(3), 3)
    impressions = rng.integers(2_000, 4_000, pair.size)
    clicks = rng.binomial(impressions, GAMMA[position] * ALPHA[pair])
    return pair, position, impressions, clicks


def scipy_mle(pair, position, impressions, clicks):
    """The PBM's maximum likelihood by L-BFGS over logits, gamma at the top fixed to 1."""

    def nll(x):
        gamma = np.r_[1.0, expit(x[:2])]
        alpha = expit(x[2:])
        p = gamma[position] * alpha[pair]
        return -np.sum(clicks * np.log(p) + (impressions - clicks) * np.log1p(-p))

    done = minimize(nll, np.zeros(5), method="L-BFGS-B", options={"ftol": 1e-15, "gtol": 1e-10})
    return np.r_[1.0, expit(done.x[:2])], expit(done.x[2:]), -done.fun


def test_em_reaches_the_maximum_likelihood_that_scipy_finds():
    pair, position, impressions, clicks = randomised_log()
    fit = fit_pbm(
        pair=pair, position=position, impressions=impressions, clicks=clicks,
        n_pairs=3, n_positions=3, max_iter=500, tol=1e-10,
    )  # fmt: skip
    gamma, alpha, ll = scipy_mle(pair, position, impressions, clicks)
    assert fit.converged
    assert fit.log_likelihood == pytest.approx(ll, abs=1e-6)
    assert fit.examination == pytest.approx(gamma, abs=1e-5)
    assert fit.attractiveness == pytest.approx(alpha, abs=1e-5)
    # ... and both are near the truth the clicks were drawn from.
    assert fit.examination == pytest.approx(GAMMA, abs=0.05)


def test_em_does_not_move_where_position_and_document_cannot_be_told_apart():
    # Each document at one position only: any gamma fits as well; EM keeps its start.
    start = np.array([1.0, 0.5])
    fit = fit_pbm(
        pair=np.array([0, 1]), position=np.array([0, 1]), impressions=np.array([100, 100]),
        clicks=np.array([40, 10]), n_pairs=2, n_positions=2, examination=start,
    )  # fmt: skip
    assert fit.examination == pytest.approx(start)
    assert (fit.examination * fit.attractiveness) == pytest.approx([0.4, 0.1])


def test_shrinkage_matches_the_hand_derived_example():
    """One query, two documents of 100 examinations each, 30 and 10 clicks.

    mean = 40 / 200 = 0.2, so expected = 20 each; tau^2 = ((30 - 20)^2 - 20 + (10 - 20)^2 - 20)
    / (20^2 + 20^2) = 160 / 800 = 0.2, k = 5 (equal weights keep the mean); ratios (30 + 5) /
    (20 + 5) = 1.4 and (10 + 5) / 25 = 0.6, against raw ratios of 1.5 and 0.5.
    """
    s = shrunk_ratios(
        clicks=np.array([30.0, 10.0]), examinations=np.array([100.0, 100.0]),
        query=np.array([0, 0]), n_queries=1,
    )  # fmt: skip
    assert s.expected == pytest.approx([20.0, 20.0])
    assert s.evidence == pytest.approx([20.0, 20.0])  # one query: it is the reference
    assert s.prior_strength == pytest.approx(5.0)
    assert s.ratio == pytest.approx([1.4, 0.6])


def test_a_query_with_more_clicks_does_not_lift_its_ratios():
    # Query 1 is query 0 with every click doubled: its expected clicks double, the raw
    # ratios stay; pooling over queries (today's method) would call query 1's documents better.
    c = np.array([30.0, 10.0, 60.0, 20.0])
    s = shrunk_ratios(
        clicks=c, examinations=np.full(4, 100.0), query=np.array([0, 0, 1, 1]), n_queries=2
    )
    assert s.expected == pytest.approx([20.0, 20.0, 40.0, 40.0])
    assert (c / s.expected) == pytest.approx([1.5, 0.5, 1.5, 0.5])


def test_shrinkage_and_floor_do_not_depend_on_the_querys_click_rate():
    """The same two queries, by hand. Means 0.2 and 0.4, reference (their median) 0.3, so
    E' = 100 x 0.3 = 30 for every pair; on that scale (x1.5 and x0.75) the clicks are 45 and
    15 in both queries. tau^2 = [2 (15^2 - 1.5 x 30) + 2 (15^2 - 0.75 x 30)] / (4 x 30^2)
    = (360 + 405) / 3600 = 0.2125, k = 1 / 0.2125 = 4.70588; ratios (45 + k) / (30 + k) =
    1.43220 and (15 + k) / (30 + k) = 0.56780, the same in both queries (with k in each
    query's own clicks they would be 1.4 / 0.6 and about 1.45 / 0.55)."""
    s = shrunk_ratios(
        clicks=np.array([30.0, 10.0, 60.0, 20.0]), examinations=np.full(4, 100.0),
        query=np.array([0, 0, 1, 1]), n_queries=2,
    )  # fmt: skip
    assert s.reference == pytest.approx(0.3)
    assert s.evidence == pytest.approx([30.0] * 4)
    assert s.prior_strength == pytest.approx(1 / 0.2125)
    assert s.ratio == pytest.approx([1.43220, 0.56780, 1.43220, 0.56780], abs=1e-5)


def test_a_query_without_clicks_gets_no_label_even_with_no_floor():
    # Its documents cannot be told apart by clicks: no ratio, not the middle grade.
    s = click_model_scores(
        query=np.array([1, 1, 2, 2]), document=np.array([1, 2, 3, 4]),
        position=np.array([1, 2, 1, 2]), impressions=np.array([500, 500, 500, 500]),
        clicks=np.array([100, 40, 0, 0]), min_expected=0,
    )  # fmt: skip
    assert s.enough.tolist() == [True, True, False, False]
    assert np.isnan(s.ratio[2:]).all()


def test_few_expected_clicks_are_too_little_data_not_a_grade():
    # d3 was shown 40 times at position 9, examined a tenth as often as the top.
    few = click_model_scores(
        query=np.array([1, 1, 1]), document=np.array([1, 2, 3]), position=np.array([1, 2, 9]),
        impressions=np.array([1_000, 1_000, 40]), clicks=np.array([300, 150, 1]), min_expected=5,
        start_positions=np.array([1, 2, 9]), start_examination=np.array([1.0, 0.5, 0.1]),
    )  # fmt: skip
    # d3: 40 impressions x 0.1 examination x the query's mean (about 0.3) = about 1.2.
    assert few.expected[2] < 5 and few.enough.tolist() == [True, True, False]
    assert few.impressions[2] == 40  # 40 impressions: today's floor of 20 would grade it


def test_pairs_are_numbered_by_query_then_document():
    q, d, pair = pair_index(np.array([2, 1, 2, 1, 2]), np.array([5, 7, 5, 3, 4]))
    assert q.tolist() == [1, 1, 2, 2] and d.tolist() == [3, 7, 4, 5]
    assert pair.tolist() == [3, 1, 3, 0, 2]


def test_grades_follow_descending_thresholds():
    got = ratio_grades(np.array([2.0, 1.5, 1.0, 0.75, 0.5]), [1.5, 0.75], np.array([3.0, 2, 1]))
    assert got.tolist() == [3.0, 3.0, 2.0, 2.0, 1.0]
