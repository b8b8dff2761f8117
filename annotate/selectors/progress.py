"""Reads of the judging progress: the pool's completion, who holds which items right now, and
the per-rater table. The manager's raters and leases pages and the reports' dashboard
(metrics.selectors.progress) read them here, so each figure has one definition.

Each table is read once for the whole campaign (grouped in the database, medians in numpy), so
the number of queries does not grow with the number of raters.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np
from django.db.models import Count, F, IntegerField, Max, Q, Sum, Value
from django.db.models.functions import Coalesce, Least
from django.utils import timezone
from django.utils.translation import gettext

from annotate.models import Campaign, Grade, Lease, Membership, PoolItem, Role, Skip


@dataclass(frozen=True)
class RaterProgress:
    user_id: int
    username: str
    grades: int  # counted grades (with a label)
    cant_judge: int
    skips: int
    median_seconds: float | None  # over counted grades with a recorded time
    last_activity: datetime | None
    holding: int  # items leased right now


@dataclass(frozen=True)
class LeaseHolding:
    rater_id: int
    username: str
    query_id: int
    query_external_id: str
    query_text: str
    items: int
    expires_at: datetime

    @property
    def expires_in(self) -> str:
        seconds = max(0, int((self.expires_at - timezone.now()).total_seconds()))
        minutes, seconds = divmod(seconds, 60)
        if minutes:
            return gettext("%(m)s min %(s)s s") % {"m": minutes, "s": f"{seconds:02d}"}
        return gettext("%(s)s s") % {"s": seconds}


def median_seconds_by_rater(rater_ids: np.ndarray, seconds: np.ndarray) -> dict[int, float]:
    """Median of `seconds` per rater id; the median of an even count is the mean of the two
    middle values."""
    if len(rater_ids) == 0:
        return {}
    order = np.lexsort((seconds, rater_ids))
    raters, values = rater_ids[order], seconds[order]
    ids, starts, counts = np.unique(raters, return_index=True, return_counts=True)
    low = values[starts + (counts - 1) // 2]
    high = values[starts + counts // 2]
    return dict(zip(ids.tolist(), ((low + high) / 2).tolist(), strict=True))


def rater_progress_table(*, campaign: Campaign, now: datetime | None = None) -> list[RaterProgress]:
    """One row per current rater of the campaign, by username."""
    now = now or timezone.now()
    raters = list(
        Membership.objects.filter(campaign=campaign, role=Role.RATER)
        .order_by("user__username")
        .values_list("user_id", "user__username")
    )
    grades = {
        row["rater_id"]: row
        for row in Grade.objects.filter(pool_item__campaign=campaign)
        .values("rater_id")
        .annotate(
            counted=Count("pk", filter=Q(cant_judge=False)),
            cant=Count("pk", filter=Q(cant_judge=True)),
            last=Max("changed_at"),
        )
    }
    timed = np.array(
        Grade.objects.filter(
            pool_item__campaign=campaign, cant_judge=False, seconds__isnull=False
        ).values_list("rater_id", "seconds"),
        dtype=float,
    ).reshape(-1, 2)
    medians = median_seconds_by_rater(timed[:, 0].astype(np.int64), timed[:, 1])
    skips = {
        row["rater_id"]: row
        for row in Skip.objects.filter(pool_item__campaign=campaign)
        .values("rater_id")
        .annotate(n=Count("pk"), last=Max("created_at"))
    }
    holding = live_leases(campaign=campaign, now=now).by_rater
    rows = []
    for user_id, username in raters:
        graded = grades.get(user_id, {})
        skipped = skips.get(user_id, {})
        moments = [t for t in (graded.get("last"), skipped.get("last")) if t is not None]
        rows.append(
            RaterProgress(
                user_id=user_id,
                username=username,
                grades=graded.get("counted", 0),
                cant_judge=graded.get("cant", 0),
                skips=skipped.get("n", 0),
                median_seconds=medians.get(user_id),
                last_activity=max(moments) if moments else None,
                holding=holding.get(user_id, 0),
            )
        )
    return rows


def pool_completion(*, campaign: Campaign) -> dict[str, int]:
    """What the grades say about the pool, as plain numbers (a snapshot stores them as JSON):

    - items; complete: items with every counted grade they need (the item's raters_needed,
      else the campaign's overlap); partial: some but not all; untouched: none yet
      (items = complete + partial + untouched, since every item needs at least one grade);
    - grades_given: counted grades that count toward the needs (an item's extra grades beyond
      its need do not), of grades_needed;
    - cant_judge: "can't judge" answers, which count toward nothing.
    """
    # PoolItem.counted is kept equal to the item's counted grades by database triggers. Gold
    # items are no work to finish (their answer is settled; answers to them never count).
    items = PoolItem.objects.filter(campaign=campaign, gold=False).annotate(
        needed=Coalesce(F("raters_needed"), Value(campaign.overlap), output_field=IntegerField()),
    )
    row = items.aggregate(
        total=Count("pk"),
        complete=Count("pk", filter=Q(counted__gte=F("needed"))),
        started=Count("pk", filter=Q(counted__gt=0)),
        given=Sum(Least("counted", "needed")),
        need=Sum("needed"),
    )
    cant = Grade.objects.filter(pool_item__campaign=campaign, cant_judge=True).count()
    total, complete, started = row["total"], row["complete"], row["started"]
    return {
        "items": total,
        "complete": complete,
        "partial": started - complete,
        "untouched": total - started,
        "grades_given": row["given"] or 0,
        "grades_needed": row["need"] or 0,
        "cant_judge": cant,
    }


@dataclass(frozen=True)
class LiveLeases:
    """The leases alive at one moment: who holds what (by rater and query), how many leases
    each rater holds, and how many distinct items are held (two raters may hold one item
    when it needs several grades)."""

    holdings: list[LeaseHolding]
    items: int

    @property
    def by_rater(self) -> dict[int, int]:
        held: dict[int, int] = {}
        for h in self.holdings:
            held[h.rater_id] = held.get(h.rater_id, 0) + h.items
        return held


def live_leases(*, campaign: Campaign, now: datetime | None = None) -> LiveLeases:
    """The campaign's live leases, grouped by rater and query (by username, then query)."""
    now = now or timezone.now()
    live = Lease.objects.filter(pool_item__campaign=campaign, expires_at__gt=now)
    rows = (
        live.values(
            "rater_id",
            "rater__username",
            "pool_item__query_id",
            "pool_item__query__external_id",
            "pool_item__query__text",
        )
        .annotate(items=Count("pk"), expires=Max("expires_at"))
        .order_by("rater__username", "pool_item__query__external_id")
    )
    holdings = [
        LeaseHolding(
            rater_id=row["rater_id"],
            username=row["rater__username"],
            query_id=row["pool_item__query_id"],
            query_external_id=row["pool_item__query__external_id"],
            query_text=row["pool_item__query__text"],
            items=row["items"],
            expires_at=row["expires"],
        )
        for row in rows
    ]
    return LiveLeases(holdings=holdings, items=live.values("pool_item_id").distinct().count())
