"""Comparison values from a check's own history, computed in the metadata database.

What a history comparison type computes is in its fields (rules/comparison_types.py): a `window`
on business time relative to the run's business day (`day`, `week`, `month`, `last_<N>_days`,
`last_<N>_runs`) and an `aggregation` of the values in it (avg, min, max, median, last). Only
non-backfill statistics of the same check identity count, and never the run itself, so a run's
expected value never depends on what it measures. The runs used are recorded.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rules.comparison_types import ComparisonSpec

from .models import StatisticValue


def baseline(
    spec: ComparisonSpec, identity: str, statistic_name: str, data_time: datetime, exclude_run_id: int | None = None
) -> tuple[float | None, dict[str, Any]]:
    """(the aggregate, or None when there is no history; how it was obtained)."""
    window = spec.window_on(data_time)
    history = StatisticValue.objects.filter(
        identity=identity, statistic_name=statistic_name, backfill=False, data_time__lt=window.end
    )
    if window.start is not None:
        history = history.filter(data_time__gte=window.start)
    if exclude_run_id is not None:
        history = history.exclude(run_id=exclude_run_id)
    rows = list(history.order_by("-data_time", "-pk").values_list("value", "run_id")[: window.latest])
    rows.reverse()  # oldest first: `last` is the newest
    source = {
        "type": spec.key,
        "source": spec.source,
        "aggregation": spec.aggregation,
        "window": {"start": window.start.isoformat() if window.start else None, "end": window.end.isoformat()},
        "baseline_runs": sorted({run_id for _, run_id in rows}),
        "values": len(rows),
    }
    if window.latest is not None:
        source["window"]["latest"] = window.latest
    return spec.aggregate([value for value, _ in rows]), source
