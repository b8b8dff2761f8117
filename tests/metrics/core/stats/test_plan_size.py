"""The planner's number of queries, checked by simulating the whole decision rule (Tango's
interval with the query design effect and the sign test, metrics.core.stats) at that size:
the planned effect must be detected with the planned power, within ±0.05."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from metrics.core.stats import Decision, gsb_from_query_counts
from metrics.core.stats.plan_size import planned_queries

REPS = 600


def simulated_power(n: int, effect: float, same: float, m: int, rho: float, seed: int) -> float:
    """Share of launches over seeded comparisons of n queries; raters correlate by rho through
    a verdict shared by the query (each rater repeats it with probability √rho)."""
    pg, pb = (1 - same + effect) / 2, (1 - same - effect) / 2
    rng = np.random.default_rng(seed)
    launches = 0
    for _ in range(REPS):
        shared = rng.choice([1, 0, -1], size=n, p=[pg, same, pb])
        own = rng.choice([1, 0, -1], size=(n, m), p=[pg, same, pb])
        x = np.where(rng.random((n, m)) < np.sqrt(rho), shared[:, None], own)
        g, s, b = (x == 1).sum(1), (x == 0).sum(1), (x == -1).sum(1)
        launches += gsb_from_query_counts(g, s, b, min_queries=0).decision == Decision.LAUNCH
    return launches / REPS


@pytest.mark.parametrize(
    ("effect", "same", "raters", "rho"),
    [(0.1, 0.5, 1, 0.0), (0.2, 0.3, 1, 0.0), (0.1, 0.5, 3, 0.3)],
)
def test_the_planned_size_detects_the_planned_effect_with_the_planned_power(
    effect, same, raters, rho
):
    plan = planned_queries(effect=effect, same_share=same, raters=raters, correlation=rho)
    power = simulated_power(plan.queries, effect, same, raters, rho, seed=17)
    assert abs(power - 0.8) <= 0.05


def test_one_rater_matches_the_textbook_formula_from_scipy():
    # One verdict per query, τ = 0: n = ((z_α/2·√(1−s) + z_β·√(1−s−δ²))/δ)², the sign test
    # needing no more.
    effect, same = 0.15, 0.4
    z_a, z_b = norm.ppf(0.975), norm.ppf(0.8)
    expected = ((z_a * np.sqrt(1 - same) + z_b * np.sqrt(1 - same - effect**2)) / effect) ** 2
    assert planned_queries(effect=effect, same_share=same).queries == int(np.ceil(expected))


def test_rater_hours_at_the_median_seconds():
    plan = planned_queries(effect=0.1, same_share=0.5, raters=2, correlation=0.2)
    assert plan.answers == 2 * plan.queries
    assert plan.rater_hours(36.0) == pytest.approx(plan.answers * 36 / 3600)
    assert plan.rater_hours(None) is None


@pytest.mark.parametrize(
    "kwargs",
    [{"effect": 0}, {"effect": 0.1, "same_share": 1.0}, {"effect": 0.6, "same_share": 0.5},
     {"effect": 0.1, "raters": 0}, {"effect": 0.1, "power": 1.0}],
)  # fmt: skip
def test_impossible_plans_are_refused(kwargs):
    with pytest.raises(ValueError):
        planned_queries(**{"same_share": 0.5, **kwargs})
