"""What a campaign declares about its baseline: the systems marked as in production and the runs
its latest side-by-side comparison names as baseline and candidate. The compare form presets
from these so that it never offers the candidate as the baseline."""

from __future__ import annotations

from annotate.models import Campaign, Comparison, System


def production_systems(campaign: Campaign) -> set[str]:
    return set(
        System.objects.filter(campaign=campaign, is_production=True).values_list("name", flat=True)
    )


def declared_pair(campaign: Campaign) -> tuple[int, int] | None:
    """(baseline run id, candidate run id) of the campaign's latest comparison, if any."""
    latest = (
        Comparison.objects.filter(campaign=campaign)
        .order_by("-created_at", "-pk")
        .values_list("baseline_id", "candidate_id")
        .first()
    )
    return None if latest is None else (int(latest[0]), int(latest[1]))
