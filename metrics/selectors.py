"""Reads behind the campaign dashboard: how far the judging is, who did what, and when.

Progress is read live (a few grouped queries, whatever the size), because a manager watching
raters work wants the current numbers; the heavier agreement and score figures come from
snapshots (metrics.services). The per-rater table is annotate.selectors_progress's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

from django.db.models import Count, F, IntegerField, Max, Min, Q, Sum, Value
from django.db.models.functions import Coalesce, Least, TruncDay, TruncHour
from django.utils import timezone

from annotate.models import Campaign, Grade, Lease, PoolItem

# Up to this span the timeline counts grades per hour; beyond, per day (bars stay readable).
HOURLY_SPAN = timedelta(days=14)
MAX_SERIES = 8  # raters drawn separately in the timeline; the rest are "others"


@dataclass(frozen=True)
class PoolProgress:
    items: int
    complete: int  # every counted grade it needs
    partial: int  # some, not all
    untouched: int  # no counted grade yet
    leased: int  # held by a rater right now
    grades_given: int  # counted grades that count toward the items' needs
    grades_needed: int
    cant_judge: int

    @property
    def still_needing(self) -> int:
        return self.items - self.complete

    @property
    def share_complete(self) -> float:
        return self.complete / self.items if self.items else 0.0

    @property
    def share_grades(self) -> float:
        return self.grades_given / self.grades_needed if self.grades_needed else 0.0


def pool_progress(*, campaign: Campaign, now: datetime | None = None) -> PoolProgress:
    """The pool's state in three queries (items grouped with their grades in the database)."""
    now = now or timezone.now()
    items = PoolItem.objects.filter(campaign=campaign).annotate(
        counted=Count("grades", filter=Q(grades__cant_judge=False)),
        needed=Coalesce(F("raters_needed"), Value(campaign.overlap), output_field=IntegerField()),
    )
    row = items.aggregate(
        total=Count("pk"),
        complete=Count("pk", filter=Q(counted__gte=F("needed"))),
        started=Count("pk", filter=Q(counted__gt=0)),
        given=Sum(Least("counted", "needed")),
        need=Sum("needed"),
    )
    leased = (
        Lease.objects.filter(pool_item__campaign=campaign, expires_at__gt=now)
        .values("pool_item_id")
        .distinct()
        .count()
    )
    cant = Grade.objects.filter(pool_item__campaign=campaign, cant_judge=True).count()
    total, complete, started = row["total"], row["complete"], row["started"]
    return PoolProgress(
        items=total,
        complete=complete,
        partial=started - complete if started > complete else 0,
        untouched=total - started,
        leased=leased,
        grades_given=row["given"] or 0,
        grades_needed=row["need"] or 0,
        cant_judge=cant,
    )


@dataclass(frozen=True)
class Timeline:
    """Grades given per time bucket, per rater (the busiest MAX_SERIES, then "others")."""

    unit: str  # "hour" or "day"
    buckets: list[datetime]
    series: dict[str, list[int]]  # name -> count per bucket

    @property
    def totals(self) -> list[int]:
        return [sum(col) for col in zip(*self.series.values(), strict=True)] if self.series else []

    def rows(self) -> list[tuple[datetime, list[int], int]]:
        columns = list(self.series.values())
        return [
            (bucket, [c[i] for c in columns], self.totals[i])
            for i, bucket in enumerate(self.buckets)
        ]


def grades_over_time(*, campaign: Campaign) -> Timeline:
    """Every answer (grades and can't-judge) by the time it was first given, in the
    campaign's local time zone; empty buckets between the first and last are filled in."""
    grades = Grade.objects.filter(pool_item__campaign=campaign)
    span = grades.aggregate(first=Min("created_at"), last=Max("created_at"))
    first, last = span["first"], span["last"]
    if first is None:
        return Timeline(unit="hour", buckets=[], series={})
    unit = "hour" if last - first <= HOURLY_SPAN else "day"
    trunc = TruncHour("created_at") if unit == "hour" else TruncDay("created_at")
    counts = (
        grades.annotate(bucket=trunc)
        .values("bucket", "rater__username")
        .annotate(n=Count("pk"))
        .order_by("bucket")
    )
    rows = [(r["bucket"], r["rater__username"], r["n"]) for r in counts]
    start, end = rows[0][0], rows[-1][0]
    buckets = []
    moment = start
    while moment <= end:
        buckets.append(moment)
        moment = _next_bucket(moment, unit)
    index = {b: i for i, b in enumerate(buckets)}
    volume: dict[str, int] = {}
    for _, name, n in rows:
        volume[name] = volume.get(name, 0) + n
    named = sorted(volume, key=lambda name: (-volume[name], name))[:MAX_SERIES]
    ordered = sorted(named) + (["others"] if len(volume) > MAX_SERIES else [])
    series = {name: [0] * len(buckets) for name in ordered}
    for bucket, name, n in rows:
        key = name if name in named else "others"
        i = index.get(timezone.localtime(bucket))
        if i is None:  # pragma: no cover - a bucket off the local grid (DST edge)
            continue
        series[key][i] += n
    return Timeline(unit=unit, buckets=buckets, series=series)


def _next_bucket(moment: datetime, unit: str) -> datetime:
    """The next hour (exactly 60 minutes later) or the next local midnight: stepping in UTC
    and in calendar days keeps the buckets on the database's grid across daylight saving."""
    if unit == "hour":
        return timezone.localtime(moment.astimezone(UTC) + timedelta(hours=1))
    day = timezone.localtime(moment).date() + timedelta(days=1)
    return timezone.make_aware(datetime.combine(day, time.min))
