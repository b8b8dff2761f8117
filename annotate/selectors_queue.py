"""Reads behind the rater queue: which items are open, and how many raters hold each."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Exists, F, IntegerField, OuterRef, Q, QuerySet, Value
from django.db.models.functions import Coalesce

from annotate.models import Campaign, Grade, Lease, PoolItem, Skip


def open_items(*, campaign: Campaign, rater: AbstractBaseUser, now: datetime) -> QuerySet:
    """Items this rater has not touched (graded, skipped or holds) that still have a free slot:
    counted grades plus other raters' live leases below the number of raters needed."""
    mine = Q(rater=rater, pool_item=OuterRef("pk"))
    return (
        PoolItem.objects.filter(campaign=campaign)
        .exclude(Exists(Grade.objects.filter(mine)))
        .exclude(Exists(Skip.objects.filter(mine)))
        .exclude(Exists(Lease.objects.filter(mine, expires_at__gt=now)))
        .alias(
            counted=Count("grades", filter=Q(grades__cant_judge=False), distinct=True),
            leased=Count("leases", filter=Q(leases__expires_at__gt=now), distinct=True),
            needed=Coalesce(
                F("raters_needed"), Value(campaign.overlap), output_field=IntegerField()
            ),
        )
        .filter(Q(counted__lt=F("needed") - F("leased")))
    )


def slots_taken(
    item_ids: list[int], *, now: datetime, exclude_rater: AbstractBaseUser
) -> dict[int, int]:
    """Counted grades plus live leases per item, leaving out the given rater's own."""
    taken: dict[int, int] = dict.fromkeys(item_ids, 0)
    counted = (
        Grade.objects.filter(pool_item_id__in=item_ids, cant_judge=False)
        .exclude(rater=exclude_rater)
        .values("pool_item_id")
        .annotate(n=Count("pk"))
    )
    leased = (
        Lease.objects.filter(pool_item_id__in=item_ids, expires_at__gt=now)
        .exclude(rater=exclude_rater)
        .values("pool_item_id")
        .annotate(n=Count("pk"))
    )
    for row in (*counted, *leased):
        taken[row["pool_item_id"]] += row["n"]
    return taken
