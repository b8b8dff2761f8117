"""Reads behind the rater queue: which items are open, and how many raters hold each."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import (
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce

from annotate.models import Campaign, Grade, Lease, PoolItem, Skip


def open_items(*, campaign: Campaign, rater: AbstractBaseUser, now: datetime) -> QuerySet:
    """Items this rater has not touched (graded, skipped or holds) that still have a free slot:
    counted grades plus other raters' live leases below the number of raters needed.

    Counted grades come from PoolItem.counted (kept by triggers), so finding the next open
    query walks the pool in query order and drops filled items on one column, before any
    per-item subquery; nothing aggregates the whole pool.
    """
    mine = Q(rater=rater, pool_item=OuterRef("pk"))
    live_leases = (
        Lease.objects.filter(pool_item=OuterRef("pk"), expires_at__gt=now)
        .order_by()
        .values("pool_item")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        PoolItem.objects.filter(campaign=campaign)
        .alias(
            needed=Coalesce(
                F("raters_needed"), Value(campaign.overlap), output_field=IntegerField()
            )
        )
        .filter(counted__lt=F("needed"))
        .exclude(Exists(Grade.objects.filter(mine)))
        .exclude(Exists(Skip.objects.filter(mine)))
        .exclude(Exists(Lease.objects.filter(mine, expires_at__gt=now)))
        .alias(leased=Coalesce(Subquery(live_leases), 0))
        .filter(counted__lt=F("needed") - F("leased"))
    )


def slots_taken(
    counted: dict[int, int], *, now: datetime, exclude_rater: AbstractBaseUser
) -> dict[int, int]:
    """Counted grades (item id -> PoolItem.counted, read under the item's lock) plus other
    raters' live leases, per item. Callers ask for items the rater has no counted grade on,
    so the count needs no correction for the rater's own."""
    taken = dict(counted)
    leased = (
        Lease.objects.filter(pool_item_id__in=list(counted), expires_at__gt=now)
        .exclude(rater=exclude_rater)
        .values_list("pool_item_id")
        .annotate(n=Count("pk"))
    )
    for item_id, n in leased:
        taken[item_id] += n
    return taken
