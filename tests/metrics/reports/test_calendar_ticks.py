"""Time-chart ticks sit on calendar boundaries, at most ten (#21: they fell every 21 hours)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from metrics.reports.charts import MAX_TICKS, calendar_ticks


def hours(start: datetime, n: int) -> list[datetime]:
    return [start + timedelta(hours=i) for i in range(n)]


def days(start: datetime, n: int) -> list[datetime]:
    return [start + timedelta(days=i) for i in range(n)]


def test_five_days_of_hours_tick_at_midnight_and_noon():
    buckets = hours(datetime(2026, 11, 20, 7), 5 * 24)
    ticks = calendar_ticks(buckets, "hour")
    assert 2 <= len(ticks) <= MAX_TICKS
    assert {buckets[i].hour for i in ticks} <= {0, 12}
    gaps = {ticks[j + 1] - ticks[j] for j in range(len(ticks) - 1)}
    assert gaps == {12}  # evenly spaced, not every 21 hours


def test_a_month_of_hours_ticks_on_mondays():
    buckets = hours(datetime(2026, 11, 3, 5), 30 * 24)
    ticks = calendar_ticks(buckets, "hour")
    assert 2 <= len(ticks) <= MAX_TICKS
    assert all(buckets[i].weekday() == 0 and buckets[i].hour == 0 for i in ticks)


@pytest.mark.parametrize("n_days", [200, 3 * 365])
def test_long_daily_spans_tick_on_the_first_of_months(n_days):
    buckets = days(datetime(2025, 1, 14), n_days)
    ticks = calendar_ticks(buckets, "day")
    assert 2 <= len(ticks) <= MAX_TICKS
    assert all(buckets[i].day == 1 for i in ticks)


def test_a_few_hours_tick_every_hour_and_nothing_is_empty():
    buckets = hours(datetime(2026, 11, 20, 9, 0), 6)
    assert calendar_ticks(buckets, "hour") == list(range(6))
    assert calendar_ticks([], "hour") == []
    assert calendar_ticks([datetime(2026, 1, 1, 9, 30)], "hour") == [0]
