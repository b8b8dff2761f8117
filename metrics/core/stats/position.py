"""Position bias of raters and the check of the side shuffling (``shared/STATISTICS.md`` §4)."""

from __future__ import annotations

from dataclasses import dataclass

from scipy.stats import binomtest

__all__ = ["PositionBias", "ShuffleCheck", "position_bias", "shuffle_check"]

POSITION_BIAS_ALPHA = 0.05
SHUFFLE_ALPHA = 0.001


@dataclass(frozen=True)
class PositionBias:
    """Share of non-Same verdicts preferring the left side, with its exact test."""

    left: int
    right: int
    share_left: float
    ci_low: float  # Clopper–Pearson
    ci_high: float
    p_value: float  # two-sided binomial test of share = 1/2
    warn: bool  # p < 0.05


@dataclass(frozen=True)
class ShuffleCheck:
    """Share of tasks that showed the candidate on the left; p < 0.001 means broken shuffling."""

    candidate_left: int
    tasks: int
    share_left: float
    p_value: float
    error: bool


def position_bias(left: int, right: int) -> PositionBias | None:
    """Position bias over non-Same verdicts: ℓ chose the left side, r the right.

    Share ``ℓ/(ℓ + r)`` with its Clopper–Pearson interval (95 %) and the two-sided exact
    binomial test of 1/2; ``warn`` when p < 0.05. None when ℓ + r = 0.
    """
    left, right = int(left), int(right)
    if left < 0 or right < 0:
        raise ValueError("side counts must be non-negative")
    total = left + right
    if total == 0:
        return None
    test = binomtest(left, total, 0.5)
    ci = test.proportion_ci(confidence_level=0.95, method="exact")
    p = float(test.pvalue)
    return PositionBias(
        left=left,
        right=right,
        share_left=left / total,
        ci_low=float(ci.low),
        ci_high=float(ci.high),
        p_value=p,
        warn=p < POSITION_BIAS_ALPHA,
    )


def shuffle_check(candidate_left: int, tasks: int) -> ShuffleCheck | None:
    """Check the side shuffling: the candidate should be on the left in half the tasks.

    Two-sided exact binomial test; ``error`` when p < 0.001. None when there are no tasks.
    """
    candidate_left, tasks = int(candidate_left), int(tasks)
    if tasks < 0 or not (0 <= candidate_left <= tasks):
        raise ValueError("need 0 <= candidate_left <= tasks")
    if tasks == 0:
        return None
    p = float(binomtest(candidate_left, tasks, 0.5).pvalue)
    return ShuffleCheck(
        candidate_left=candidate_left,
        tasks=tasks,
        share_left=candidate_left / tasks,
        p_value=p,
        error=p < SHUFFLE_ALPHA,
    )
