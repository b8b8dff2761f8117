"""The planned number of queries of a side-by-side comparison, fixed before any answer.

From the smallest GSB difference worth detecting δ (above the bar τ), the expected share of
Same answers s, the raters per query m and their expected correlation ρ on the same query, the
confidence c and the power 1 − β (default 0.8): the same normal approximation as STATISTICS.md
section 3's "more queries" estimate, read before the data instead of after it. With verdict
scores in {−1, 0, 1}, one verdict has variance V = (1 − s) − Δ² at true GSB Δ; m verdicts on a
query with intra-query correlation ρ have a query mean of variance V·(1 + (m − 1)ρ)/m, so

    n = ⌈ (1 + (m − 1)ρ)/m · ((z_{1−α/2}·√V₀ + z_{1−β}·√V₁) / δ)² ⌉,

V₀ at Δ = τ and V₁ at Δ = τ + δ. A launch also needs the sign test over queries, which with
several raters per query can need more queries than the interval: the share of queries leaning
to the candidate is computed under a model of the correlation (each rater repeats a verdict
shared by the query with probability √ρ, else answers on their own, so two raters correlate by
ρ), and the planned size is the larger of the two. Tested by simulating the full decision rule
(Tango interval with the design effect and the sign test) at the planned size. Pure
numpy/scipy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.stats import norm

from metrics.core.stats.interval import z_value

__all__ = ["SizePlan", "planned_queries"]


@dataclass(frozen=True)
class SizePlan:
    queries: int
    answers: int
    design_effect: float

    def rater_hours(self, median_seconds: float | None) -> float | None:
        """Rater time at the campaign's median seconds per answer (None when unknown)."""
        if median_seconds is None or not math.isfinite(median_seconds):
            return None
        return self.answers * median_seconds / 3600


def planned_queries(
    *,
    effect: float,
    same_share: float,
    raters: int = 1,
    correlation: float = 0.0,
    threshold: float = 0.0,
    confidence: float = 0.95,
    power: float = 0.8,
) -> SizePlan:
    """The number of queries (and answers) that detects `effect` above `threshold`."""
    if not 0 < effect <= 1 - abs(threshold):
        raise ValueError("the effect must be above 0 and leave GSB inside [−1, 1]")
    if not 0 <= same_share < 1:
        raise ValueError("the share of Same must lie in [0, 1)")
    if raters < 1 or not 0 <= correlation <= 1 or not 0 < power < 1:
        raise ValueError("raters ≥ 1, correlation in [0, 1] and power in (0, 1)")
    target = threshold + effect
    if abs(target) > 1 - same_share:
        raise ValueError("with this share of Same, GSB cannot reach the bar plus the effect")
    v0 = max((1 - same_share) - threshold**2, 1e-12)
    v1 = max((1 - same_share) - target**2, 1e-12)
    deff = 1 + (raters - 1) * correlation
    z_a, z_b = z_value(confidence), float(norm.ppf(power))
    n = math.ceil(deff / raters * ((z_a * math.sqrt(v0) + z_b * math.sqrt(v1)) / effect) ** 2)
    if threshold >= 0:  # the rule asks the sign test only then (STATISTICS.md §3)
        up, down = _leaning(target, same_share, raters, correlation)
        share = up / (up + down)
        if share > 0.5:
            lean = (z_a * 0.5 + z_b * math.sqrt(share * (1 - share))) / (share - 0.5)
            n = max(n, math.ceil(lean**2 / (up + down)))
    return SizePlan(queries=n, answers=n * raters, design_effect=deff)


def _leaning(gsb: float, same: float, m: int, rho: float) -> tuple[float, float]:
    """P(y_i > 0), P(y_i < 0) for a query of m verdicts under the shared-verdict model."""
    pg, pb = (1 - same + gsb) / 2, (1 - same - gsb) / 2
    q = math.sqrt(rho)
    up = down = 0.0
    for copied in range(m + 1):
        w_copy = math.comb(m, copied) * q**copied * (1 - q) ** (m - copied)
        own = m - copied
        for g in range(own + 1):
            for b in range(own - g + 1):
                p_own = (
                    math.factorial(own)
                    / (math.factorial(g) * math.factorial(b) * math.factorial(own - g - b))
                    * pg**g * pb**b * same ** (own - g - b)
                )  # fmt: skip
                for shared, p_shared in ((1, pg), (0, same), (-1, pb)):
                    y = g - b + shared * copied
                    w = w_copy * p_own * (p_shared if copied else (1 if shared == 0 else 0))
                    up += w if y > 0 else 0.0
                    down += w if y < 0 else 0.0
    return up, down
