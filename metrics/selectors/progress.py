"""Reads behind the campaign dashboard: how far the judging is, who did what, and when. Each figure
is one grouped query (or a few), whatever the size. The dashboard reads them through a snapshot
(``progress_compute``, metrics.services.snapshots.progress_snapshot) recomputed whenever a
grade, skip, rater or pool item changes; only the leases, which change by the minute, are read
live. The per-rater table is annotate.selectors.progress's.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime, time, timedelta

from django.db.models import Count, Max, Min
from django.db.models.functions import TruncDay, TruncHour
from django.utils import timezone

from annotate.models import Campaign, Grade
from annotate.selectors.progress import live_leases, pool_completion, rater_progress_table

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
    """The pool's state now: its completion and the items held right now."""
    return PoolProgress(
        **pool_completion(campaign=campaign), leased=live_leases(campaign=campaign, now=now).items
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


def progress_compute(*, campaign: Campaign) -> dict:
    """What the dashboard shows about the judging, as a snapshot stores it (JSON): the pool's
    completion, the per-rater table of annotate.selectors.progress, and the timeline. Leases
    are left out: they change by the minute and are read live."""
    timeline = grades_over_time(campaign=campaign)
    raters = []
    for row in rater_progress_table(campaign=campaign):
        data = asdict(row)
        data.pop("holding")
        data["last_activity"] = _stamp(row.last_activity)
        raters.append(data)
    return {
        "version": 1,
        "pool": pool_completion(campaign=campaign),
        "raters": raters,
        "timeline": {
            "unit": timeline.unit,
            "buckets": [_stamp(b) for b in timeline.buckets],
            "series": timeline.series,
        },
    }


def timeline_from(data: dict) -> Timeline:
    return Timeline(
        unit=data["unit"],
        buckets=[datetime.fromisoformat(b) for b in data["buckets"]],
        series=data["series"],
    )


def _stamp(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None
