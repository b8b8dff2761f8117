"""The always-valid confidence sequence (metrics.core.stats.sequence).

Two references. On fixed inputs: the paper authors' own code, `confseq` 0.0.11's betting
confidence sequence, vendored in tests/reference/confseq_betting.py (the package is source-only
and does not build offline); these are the authors' code, not numbers printed in the paper.
Under continuous monitoring: seeded simulations of a manager who looks after every answer, on
GSB-like values (−1, 0, +1 and per-query means of several raters) and on continuous per-query
differences such as those of NDCG. The fixed-sample interval used for contrast is computed in
the test from scipy's normal quantile, not from our code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

from metrics.core.stats.sequence import betting_confidence_sequence, ever_excluded

REPS, LOOKS = 2000, 300
ALPHA = 0.05
# Monte Carlo slack: three standard errors of a rate of ALPHA over REPS sequences.
SLACK = 3 * math.sqrt(ALPHA * (1 - ALPHA) / REPS)


@pytest.mark.parametrize(
    "p_bad_same_good",
    [(0.25, 0.5, 0.25), (0.05, 0.9, 0.05), (0.1, 0.5, 0.4), (0.45, 0.1, 0.45), (0.0, 0.7, 0.3)],
)
def test_coverage_holds_at_every_look_at_once(p_bad_same_good):
    rng = np.random.default_rng(20261125)
    x = rng.choice([-1, 0, 1], size=(REPS, LOOKS), p=p_bad_same_good)
    true_mean = p_bad_same_good[2] - p_bad_same_good[0]
    missed = ever_excluded(x, true_mean, 1 - ALPHA).mean()
    assert missed <= ALPHA + SLACK


def test_coverage_with_per_query_means_of_several_raters():
    # A query's value is y_i/m_i with 3 raters: values in {−1, −2/3, …, 1}.
    rng = np.random.default_rng(7)
    verdicts = rng.choice([-1, 0, 1], size=(REPS, LOOKS, 3), p=(0.2, 0.5, 0.3))
    missed = ever_excluded(verdicts.mean(axis=2), 0.1, 1 - ALPHA).mean()
    assert missed <= ALPHA + SLACK


def _beta_difference(rng, shape):
    """B − A of two independent Beta measures: E = 3/6 − 2/5 = 0.1."""
    return rng.beta(3, 3, size=shape) - rng.beta(2, 3, size=shape)


def _identical_or_equal(rng, shape):
    """Four queries in ten with identical lists (exactly 0), the rest B − A of two equal Beta(1, 4)
    measures (skewed to 0, as NDCG of hard queries is): E = 0."""
    d = rng.beta(1, 4, size=shape) - rng.beta(1, 4, size=shape)
    return np.where(rng.random(shape) < 0.4, 0.0, d)


def _near_the_top(rng, shape):
    """1 − 2U³, piled up near +1: E = 1 − 2/4 = 0.5."""
    return 1 - 2 * rng.random(shape) ** 3


@pytest.mark.parametrize(
    ("draw", "true_mean"),
    [(_beta_difference, 0.1), (_identical_or_equal, 0.0), (_near_the_top, 0.5)],
)
def test_coverage_holds_at_every_look_on_continuous_per_query_differences(draw, true_mean):
    # The graded primary measure's per-query differences (NDCG@k of B minus A) are continuous
    # in [−1, 1]; the expected values are worked out by hand in each draw's docstring.
    x = draw(np.random.default_rng(20261126), (REPS, LOOKS))
    assert abs(x.mean() - true_mean) < 0.002  # the hand-worked mean, checked on the draws
    missed = ever_excluded(x, true_mean, 1 - ALPHA).mean()
    assert missed <= ALPHA + SLACK


def _fixed_wrong_launch(x: np.ndarray, n_min: int, confidence: float) -> np.ndarray:
    """Whether a fixed-sample normal interval read after every answer from n_min on ever had
    its lower end above 0 (a launch), per row."""
    t = np.arange(1, x.shape[1] + 1)
    mean = np.cumsum(x, axis=1) / t
    var = np.cumsum(x**2, axis=1) / t - mean**2
    low = mean - norm.ppf(1 - (1 - confidence) / 2) * np.sqrt(var / t)
    return (low[:, n_min - 1 :] > 0).any(axis=1)


def test_looking_after_every_answer_wrong_launches_stay_rare_only_with_the_sequence():
    """Candidate truly equal to the baseline: the share of sequences that ever declare a
    launch. The fixed interval's one-sided error is 2.5% per look; read 270 times it is many
    times that, while the sequence stays under 1 − confidence (the numbers are in
    benchmarks/README.md, "Looking early")."""
    rng = np.random.default_rng(11)
    x = rng.choice([-1, 0, 1], size=(REPS, LOOKS), p=(0.25, 0.5, 0.25))
    fixed = _fixed_wrong_launch(x, 30, 0.95).mean()
    # Launch needs the lower end above 0, i.e. 0 excluded from above: at most the miss rate.
    sequence = ever_excluded(x, 0.0, 0.95).mean()
    assert sequence <= ALPHA + SLACK
    assert fixed > 3 * ALPHA


def test_the_grid_bounds_hold_every_mean_never_excluded():
    rng = np.random.default_rng(3)
    x = rng.choice([-1, 0, 1], size=400, p=(0.15, 0.45, 0.4))
    cs = betting_confidence_sequence(x, 0.95)
    fine = np.linspace(-0.999, 0.999, 1999)
    kept = ~np.array([ever_excluded(x[None, :], m, 0.95)[0] for m in fine])
    assert kept.any()
    low, high = cs.last
    assert low <= fine[kept].min() and fine[kept].max() <= high
    # Never wider than needed by more than two grid steps on either side.
    assert fine[kept].min() - low < 0.011 and high - fine[kept].max() < 0.011


def test_the_sequence_stays_in_range_and_only_narrows():
    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, size=500)
    cs = betting_confidence_sequence(x, 0.9)
    assert np.all(cs.low >= -1) and np.all(cs.high <= 1) and np.all(cs.low <= cs.high)
    assert np.all(np.diff(cs.low) >= 0) and np.all(np.diff(cs.high) <= 0)
    assert cs.mean[-1] == pytest.approx(x.mean())


def test_all_good_reaches_the_top_and_all_same_centres_on_zero():
    assert betting_confidence_sequence(np.ones(200)).last[1] == 1.0
    low, high = betting_confidence_sequence(np.zeros(200)).last
    assert low < 0 < high and low == pytest.approx(-high, abs=0.006)
    assert betting_confidence_sequence(np.empty(0)).last == (-1.0, 1.0)


@pytest.mark.parametrize(("values", "confidence"), [([0, 2], 0.95), ([0, np.nan], 0.95),
                                                    ([0, 1], 1.0)])  # fmt: skip
def test_bad_input_is_refused(values, confidence):
    with pytest.raises(ValueError):
        betting_confidence_sequence(np.array(values, dtype=float), confidence)


@pytest.mark.parametrize(
    "seed, probabilities, raters",
    [
        (1, (0.2, 0.5, 0.3), 1),
        (2, (0.1, 0.3, 0.6), 1),
        (3, (0.33, 0.34, 0.33), 3),  # per-query means of 3 raters: thirds
        (4, (0.6, 0.3, 0.1), 5),
        (5, (0.0, 0.0, 1.0), 1),  # all Good: the upper end stays at 1
    ],
)
def test_the_sequence_equals_confseqs_betting_cs_on_fixed_inputs(seed, probabilities, raters):
    # confseq (the paper's authors' implementation, tests/reference) with the same choices:
    # predictable plug-in bets, truncation c = 1/2 by m, the average of the two gamblers
    # (convex_comb), a grid of 400 steps widened by one, the running intersection.
    from tests.reference.confseq_betting import betting_cs

    rng = np.random.default_rng(seed)
    answers = rng.choice([-1.0, 0.0, 1.0], size=(150, raters), p=probabilities)
    x = answers.mean(axis=1)
    ours = betting_confidence_sequence(x, 0.95)
    low, high = betting_cs(
        (x + 1) / 2, alpha=0.05, breaks=400, running_intersection=True, convex_comb=True
    )
    np.testing.assert_allclose(ours.low, low * 2 - 1, atol=1e-12)
    np.testing.assert_allclose(ours.high, high * 2 - 1, atol=1e-12)
