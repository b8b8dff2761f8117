"""Time-chart ticks sit on calendar boundaries, at most ten (#21: they fell every 21 hours)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from metrics.reports.charts import MAX_TICKS, calendar_ticks


def hours(start: datetime, n: int) -> list[datetime]:
    return [start + timedelta(hours=i) for i in range(n)]


def days(start: datetime, n: int) -> list[datetime]:
    return [start + timedelta(days=i) for i in range(n)]


@pytest.mark.parametrize("n_days", [3, 5, 9])
def test_a_few_days_of_hours_tick_at_each_midnight_not_at_noon(n_days):
    # #21: over more than a day a reader counts days; a tick at noon splits them.
    start = datetime(2026, 11, 20, 7)
    buckets = hours(start, n_days * 24)
    ticks = calendar_ticks(buckets, "hour")
    midnights = [start.replace(hour=0) + timedelta(days=d) for d in range(1, n_days + 1)]
    assert [buckets[i] for i in ticks] == midnights  # every day boundary in the span, no other


def test_two_weeks_of_hours_tick_every_other_midnight():
    buckets = hours(datetime(2026, 11, 20, 7), 14 * 24)
    ticks = calendar_ticks(buckets, "hour")
    assert 2 <= len(ticks) <= MAX_TICKS
    assert all(buckets[i].hour == 0 for i in ticks)
    gaps = {ticks[j + 1] - ticks[j] for j in range(len(ticks) - 1)}
    assert gaps == {48}  # evenly spaced: every second day


def test_a_day_with_one_midnight_keeps_hour_ticks():
    # 30 hours from 09:00 to 14:00 hold one midnight: one tick would not show the scale, so
    # whole hours that divide a day mark it, the finest that gives ten ticks at most (3 h).
    buckets = hours(datetime(2026, 11, 20, 9), 30)
    ticks = calendar_ticks(buckets, "hour")
    assert [buckets[i].hour for i in ticks] == [9, 12, 15, 18, 21, 0, 3, 6, 9, 12]


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
