"""Comparison values from a check's own history, computed in the metadata database.

Windows are on business time (`data_time`), relative to the run's business day:
- daily_avg: the same business day (earlier runs of that day);
- weekly_avg / monthly_avg: from the start of the week (Monday) / month up to the business day;
- last_7_day_avg / last_30_day_avg: the N days before the business day.
Only non-backfill statistics of the same check identity count, and never the run itself, so a
run's expected value never depends on what it measures. The runs used are recorded.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import Avg

from .models import StatisticValue

WINDOWS = ("daily_avg", "weekly_avg", "monthly_avg", "last_7_day_avg", "last_30_day_avg")


def window(comparison_type: str, data_time: datetime) -> tuple[datetime, datetime]:
    day = data_time.replace(hour=0, minute=0, second=0, microsecond=0)
    if comparison_type == "daily_avg":
        return day, day + timedelta(days=1)
    if comparison_type == "weekly_avg":
        return day - timedelta(days=day.weekday()), day
    if comparison_type == "monthly_avg":
        return day.replace(day=1), day
    if comparison_type == "last_7_day_avg":
        return day - timedelta(days=7), day
    if comparison_type == "last_30_day_avg":
        return day - timedelta(days=30), day
    raise ValueError(f"{comparison_type!r} is not a history comparison type.")


def baseline(
    comparison_type: str, identity: str, statistic_name: str, data_time: datetime, exclude_run_id: int | None = None
) -> tuple[float | None, dict[str, Any]]:
    """(average or None when there is no history, how it was obtained)."""
    start, end = window(comparison_type, data_time)
    history = StatisticValue.objects.filter(
        identity=identity, statistic_name=statistic_name, backfill=False, data_time__gte=start, data_time__lt=end
    )
    if exclude_run_id is not None:
        history = history.exclude(run_id=exclude_run_id)
    average = history.aggregate(avg=Avg("value"))["avg"]
    source = {
        "type": comparison_type,
        "window": {"start": start.isoformat(), "end": end.isoformat()},
        "baseline_runs": sorted(set(history.values_list("run_id", flat=True))),
        "values": history.count(),
    }
    return average, source
