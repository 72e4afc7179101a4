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

from rules.comparison_types import RANGE_ALGORITHM_VERSION, ComparisonSpec

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


# --- dynamic thresholds: an expected range from the last N *normal* statistics ------------------
# How many more candidates than the window's N are read to find N normal ones among exclusions.
RANGE_LOOKBACK = 5


def expected_range(
    spec: ComparisonSpec, identity: str, statistic_name: str, data_time: datetime, exclude_run_id: int | None = None
) -> tuple[tuple[float, float, float] | None, dict[str, Any]]:
    """((low, high, mean), or None with too few normal values; the evidence: the range, the
    baseline runs used, the ones left out and why, the algorithm version). Newest first, values
    are taken until the window's N normal ones are found; what was passed over on the way is
    recorded as excluded."""
    from gates.models import NonBusinessDay  # the admin's calendar; the gates app owns it

    window = spec.window_on(data_time)
    candidates = StatisticValue.objects.filter(
        identity=identity, statistic_name=statistic_name, data_time__lt=window.end
    ).select_related("run")
    if window.start is not None:
        candidates = candidates.filter(data_time__gte=window.start)
    if exclude_run_id is not None:
        candidates = candidates.exclude(run_id=exclude_run_id)
    candidates = candidates.order_by("-data_time", "-pk")
    if window.latest is not None:
        candidates = candidates[: window.latest * RANGE_LOOKBACK + 20]
    rows = list(candidates)
    days = {
        d: name
        for d, name in NonBusinessDay.objects.filter(date__in={r.data_time.date() for r in rows}).values_list(
            "date", "name"
        )
    }
    used, excluded = [], []
    for row in rows:
        if window.latest is not None and len(used) == window.latest:
            break
        entry = {"run": row.run_id, "batch": _batch_of(row.run), "biz_date": row.data_time.date().isoformat()}
        why = _why_not_normal(row, days)
        if why:
            excluded.append({**entry, "reason": why})
        else:
            used.append({**entry, "value": row.value})
    found = spec.expected_range([u["value"] for u in used])
    unit = "batches" if used and all(u["batch"] for u in used) else "runs"
    source = {
        "type": spec.key,
        "source": spec.source,
        "algorithm_version": RANGE_ALGORITHM_VERSION,
        "spread": spec.aggregation,
        "window": spec.window,
        "expected_range": [found[0], found[1]] if found else None,
        "mean": found[2] if found else None,
        "baseline": list(reversed(used)),
        "baseline_runs": sorted(u["run"] for u in used),
        "excluded": list(reversed(excluded)),
        "needed": spec.min_baseline(),
        "unit": unit,
    }
    return found, source


def _batch_of(run) -> int | None:
    batch = (run.parameters or {}).get("batch_id")
    return int(batch) if batch else None


def _why_not_normal(row: StatisticValue, non_business_days: dict) -> str:
    """Why a statistic is not part of a normal baseline ("" when it is)."""
    parameters = row.run.parameters or {}
    if row.backfill or parameters.get("schedule_type") == "backfill":
        return "backfill"
    if parameters.get("schedule_type") == "rerun":
        return "rerun"
    if row.run.retry_of_id is not None:
        return f"rerun (retry of run {row.run.retry_of_id})"
    if int(parameters.get("batch_attempt") or 1) > 1:
        return f"re-validation (attempt {parameters['batch_attempt']} of its batch)"
    day = row.data_time.date()
    if day in non_business_days:
        return f"non-business day ({non_business_days[day]})"
    return ""
