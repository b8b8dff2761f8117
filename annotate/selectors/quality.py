"""Per-rater quality figures of a campaign (#18), each with its counts and a 95% Wilson
interval: agreement with the other raters of the same items, mirrored-duplicate consistency,
answer times (median, share below the campaign's floor) and the label distribution against the
campaign's. The counts are taken by the database (annotate/selectors/quality_counts.py and, for
gold, annotate/selectors/gold.py), in a fixed number of queries whatever the size of the
campaign; the maths is metrics/core/stats/rater_quality.py.

Every rater's figures are computed, the excluded ones included, so a manager can see why.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from django.contrib.auth import get_user_model

from annotate.models import Campaign, Membership, Role, Verdict
from annotate.selectors.gold import graded_gold_counts, sxs_gold_counts
from annotate.selectors.quality_counts import (
    agreement_counts,
    answer_counts,
    answer_times,
    label_counts,
    mirror_counts,
)
from metrics.core.stats.rater_quality import (
    Proportion,
    Timing,
    daily_medians,
    shares,
    timing,
    total_variation,
    wilson,
)

CONFIDENCE = 0.95


@dataclass
class RaterQuality:
    """One rater's figures, with their accuracy on gold (annotate/selectors/gold.py): graded
    exact and within one grade, and side-by-side over the campaign's comparisons."""

    rater_id: int
    username: str
    answers: int = 0
    agreement: Proportion = field(default_factory=lambda: wilson(0, 0))
    consistency: Proportion = field(default_factory=lambda: wilson(0, 0))
    timing: Timing = field(default_factory=lambda: timing([], 0.0))
    labels: list[float] = field(default_factory=list)  # shares, in the scale's order
    label_distance: float | None = None  # total variation from the campaign's shares
    daily_seconds: list[tuple[str, float]] = field(default_factory=list)
    gold_exact: Proportion = field(default_factory=lambda: wilson(0, 0))
    gold_within: Proportion = field(default_factory=lambda: wilson(0, 0))
    sxs_gold: Proportion = field(default_factory=lambda: wilson(0, 0))
    paused: bool = False
    pause_reason: dict = field(default_factory=dict)
    review_reason: dict = field(default_factory=dict)
    excluded: bool = False


def mirror_pairs(campaign: Campaign, rater_id: int | None = None) -> dict[int, tuple[list, list]]:
    """Per rater: (their verdicts on originals, their verdicts on the mirrors), paired, both in
    the candidate's terms (Good, Same, Bad), so a swapped side needs no undoing here: the side
    each verdict was given on is stored with it and already turned into the candidate's terms.
    The figures count these pairs in the database (quality_counts.mirror_counts); this lists
    them, for a look at one rater's."""
    mirrors = Verdict.objects.filter(
        task__comparison__campaign=campaign, task__mirror_of__isnull=False, cant_judge=False
    )
    if rater_id is not None:
        mirrors = mirrors.filter(rater_id=rater_id)
    rows = list(mirrors.values_list("rater_id", "task__mirror_of_id", "value"))
    originals = Verdict.objects.filter(
        task_id__in={task for _, task, _ in rows}, cant_judge=False
    ).values_list("rater_id", "task_id", "value")
    first = {(rater, task): value for rater, task, value in originals}
    pairs: dict[int, tuple[list, list]] = {}
    for rater, task, value in rows:
        if (rater, task) in first:
            a, b = pairs.setdefault(rater, ([], []))
            a.append(first[(rater, task)])
            b.append(value)
    return pairs


def rater_quality(campaign: Campaign) -> list[RaterQuality]:
    """Every rater's figures, in the order of their user names."""
    memberships = (
        Membership.objects.filter(campaign=campaign, role=Role.RATER)
        .select_related("user")
        .order_by(f"user__{get_user_model().USERNAME_FIELD}")
    )
    agreement = agreement_counts(campaign)
    mirrors = mirror_counts(campaign)
    times = answer_times(campaign)
    counts = answer_counts(campaign)
    scale, given = label_counts(campaign)
    everyone = _campaign_shares(len(scale), given)
    gold = gold_figures(campaign)
    rows = []
    for m in memberships:
        rater = m.user_id
        days, seconds = zip(*times[rater], strict=True) if times.get(rater) else ((), ())
        mine = shares(given.get(rater, [0] * len(scale)))
        rows.append(
            RaterQuality(
                rater_id=rater,
                username=m.user.get_username(),
                answers=counts.get(rater, 0),
                agreement=wilson(*agreement.get(rater, (0, 0)), CONFIDENCE),
                consistency=wilson(*mirrors.get(rater, (0, 0)), CONFIDENCE),
                timing=timing(seconds, campaign.fast_seconds, CONFIDENCE),
                labels=[float(x) for x in mine],
                label_distance=total_variation(mine, everyone) if any(mine) else None,
                daily_seconds=daily_medians(days, seconds),
                **gold.get(rater, {}),
                paused=m.paused_at is not None,
                pause_reason=m.pause_reason,
                review_reason=m.review_reason,
                excluded=m.answers_excluded,
            )
        )
    return rows


def rater_rule_figures(campaign: Campaign, rater_id: int) -> RaterQuality:
    """What the automatic rules read for one rater, cheaply: consistency, answer times and
    gold, from that rater's answers alone, in a fixed number of queries."""
    seconds = [s for _, s in answer_times(campaign, rater_id).get(rater_id, [])]
    return RaterQuality(
        rater_id=rater_id,
        username="",
        answers=len(seconds),
        consistency=wilson(*mirror_counts(campaign, rater_id).get(rater_id, (0, 0)), CONFIDENCE),
        timing=timing(seconds, campaign.fast_seconds, CONFIDENCE),
        **gold_figures(campaign, rater_id).get(rater_id, {}),
    )


def gold_figures(
    campaign: Campaign, rater_id: int | None = None
) -> dict[int, dict[str, Proportion]]:
    """Per rater with answers to gold (or the one asked for): their RaterQuality gold fields.
    Side-by-side gold is summed over the campaign's comparisons (a rater is one rater across
    them), in one query."""
    out: dict[int, dict[str, Proportion]] = defaultdict(dict)
    for rater, (n, exact, near) in graded_gold_counts(campaign=campaign, rater_id=rater_id).items():
        out[rater].update(
            gold_exact=wilson(exact, n, CONFIDENCE), gold_within=wilson(near, n, CONFIDENCE)
        )
    for rater, (n, k) in sxs_gold_counts(campaign=campaign, rater_id=rater_id).items():
        out[rater]["sxs_gold"] = wilson(k, n, CONFIDENCE)
    return out


def _campaign_shares(size: int, given: dict[int, list[int]]) -> np.ndarray:
    """The campaign's share of each label: every rater's counts summed."""
    return shares([sum(column) for column in zip(*given.values(), strict=True)] or [0] * size)


def campaign_labels(campaign: Campaign) -> list[tuple[str, float]]:
    """The scale's names and the campaign's share of each, for the distribution column."""
    scale, given = label_counts(campaign)
    everyone = _campaign_shares(len(scale), given)
    return [(name, float(share)) for (_, name), share in zip(scale, everyone, strict=True)]


__all__ = ["RaterQuality", "campaign_labels", "gold_figures", "mirror_pairs", "rater_quality"]
