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

from .models import Result, Run, StatisticValue
from .scopes import WHOLE_TABLE, scope_words


def baseline(
    spec: ComparisonSpec,
    identity: str,
    statistic_name: str,
    data_time: datetime,
    exclude_run_id: int | None = None,
    scope: str = WHOLE_TABLE,
) -> tuple[float | None, dict[str, Any]]:
    """(the aggregate, or None when there is no history; how it was obtained).

    Values of the same scope as the judged result only: a whole-table count is averaged over
    whole-table counts, a partition's over that partition's, never the two mixed (a registered
    batch of one partition holds a fraction of the table's rows)."""
    window = spec.window_on(data_time)
    history = StatisticValue.objects.filter(
        identity=identity,
        statistic_name=statistic_name,
        backfill=False,
        data_time__lt=window.end,
        result__partition_key=scope,
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
        "scope": scope,
    }
    if window.latest is not None:
        source["window"]["latest"] = window.latest
    return spec.aggregate([value for value, _ in rows]), source


# --- dynamic thresholds: an expected range from the last N *normal* results -----------------------
# How many more candidates than the window's N are read to find N normal ones among exclusions.
RANGE_LOOKBACK = 5
# At most this many results of other partitions are listed one by one as excluded.
OTHER_SCOPE_LISTED = 200


def expected_range(
    spec: ComparisonSpec,
    identity: str,
    statistic_name: str,
    data_time: datetime,
    exclude_run_id: int | None = None,
    scope: str = WHOLE_TABLE,
) -> tuple[tuple[float, float, float] | None, dict[str, Any]]:
    """((low, high, mean), or None with too few normal values; the evidence: the range, the
    baseline used, every earlier result left out and why, the algorithm version).

    A range learns only from earlier results (earlier business time, never the run it judges)
    that passed, of normal runs, of the whole table — or of the same partition as the judged
    result when the comparison type's `batch` is `partition`. Newest first, results are taken
    until the window's N are found; what was passed over on the way is recorded as excluded."""
    from gates.models import NonBusinessDay, Release  # the admin's calendar and releases; the gates app owns them

    baseline_scope = scope if spec.batch == "partition" else WHOLE_TABLE
    window = spec.window_on(data_time)
    earlier = Result.objects.filter(identity=identity, statistic_name=statistic_name, data_time__lt=window.end)
    if window.start is not None:
        earlier = earlier.filter(data_time__gte=window.start)
    if exclude_run_id is not None:
        earlier = earlier.exclude(run_id=exclude_run_id)
    candidates = earlier.filter(partition_key=baseline_scope).select_related("run").order_by("-data_time", "-pk")
    if window.latest is not None:
        candidates = candidates[: window.latest * RANGE_LOOKBACK + 20]
    rows = list(candidates)
    days = dict(NonBusinessDay.objects.filter(date__in={r.data_time.date() for r in rows}).values_list("date", "name"))
    batches = {batch_of(r.run) for r in rows} - {None}
    released = set(Release.objects.filter(batch_id__in=batches).values_list("batch_id", flat=True))
    used, excluded, slots = [], [], {}
    oldest_seen = None
    for row in rows:
        if window.latest is not None and len(used) == window.latest:
            break
        oldest_seen = row.data_time
        entry = {"run": row.run_id, "batch": batch_of(row.run), "biz_date": row.data_time.date().isoformat()}
        why = _why_not_normal(row, days, released) or repeat_of(row, slots)
        if why:
            excluded.append({**entry, "category": why[0], "reason": why[1]})
        else:
            slots[row.data_time] = row.run_id
            used.append({**entry, "value": row.statistics_value})
    excluded += _other_scopes(earlier, baseline_scope, oldest_seen)
    found = spec.expected_range([u["value"] for u in used])
    unit = "batches" if used and all(u["batch"] for u in used) else "runs"
    source = {
        "type": spec.key,
        "source": spec.source,
        "algorithm_version": RANGE_ALGORITHM_VERSION,
        "spread": spec.aggregation,
        "window": spec.window,
        "scope": baseline_scope,
        "expected_range": [found[0], found[1]] if found else None,
        "mean": found[2] if found else None,
        "baseline": list(reversed(used)),
        "baseline_runs": sorted(u["run"] for u in used),
        "excluded": list(reversed(excluded)),
        "needed": spec.min_baseline(),
        "unit": unit,
    }
    source["learned"] = learned_summary(len(used), excluded)
    return found, source


def learned_summary(used: int, excluded: list[dict]) -> dict[str, Any]:
    """How many earlier results the range learned from, how many it looked at, and what it left
    out by category, with a sentence: "learned from 5 of 9 earlier results: 2 failed, 1
    partition-scoped, 1 released excluded"."""
    counts: dict[str, int] = {}
    for entry in excluded:
        counts[entry["category"]] = counts.get(entry["category"], 0) + 1
    considered = used + len(excluded)
    sentence = f"learned from {used} of {considered} earlier result{'s' if considered != 1 else ''}"
    if counts:
        sentence += ": " + ", ".join(f"{n} {category}" for category, n in counts.items()) + " excluded"
    return {"used": used, "considered": considered, "excluded": counts, "sentence": sentence}


def batch_of(run) -> int | None:
    batch = (run.parameters or {}).get("batch_id")
    return int(batch) if batch else None


def _why_not_normal(row: Result, non_business_days: dict, released: set[int]) -> tuple[str, str] | None:
    """(category, reason) when a result is not part of a normal baseline; None when it is. What
    the run was comes first (a backfill that failed is left out as a backfill), then its day,
    then whether a person overrode the gate, then how the result itself ended."""
    return run_not_normal(row, non_business_days, released) or _status_not_normal(row)


def run_not_normal(row: Result, non_business_days: dict, released: set[int]) -> tuple[str, str] | None:
    """(category, reason) when the run or the day of a result was not normal (a backfill, a
    rerun, a re-validation, a non-business day, a released batch); None when they were."""
    run = row.run
    parameters = run.parameters or {}
    if run.trigger == Run.Trigger.BACKFILL or parameters.get("schedule_type") == "backfill":
        return "backfill", "backfill"
    if parameters.get("schedule_type") == "rerun":
        return "rerun", "rerun"
    if run.retry_of_id is not None:
        return "rerun", f"rerun (retry of run {run.retry_of_id})"
    if int(parameters.get("batch_attempt") or 1) > 1:
        return "re-validation", f"re-validation (attempt {parameters['batch_attempt']} of its batch)"
    day = row.data_time.date()
    if day in non_business_days:
        return "non-business day", f"non-business day ({non_business_days[day]})"
    batch = batch_of(run)
    if batch in released:
        return "released", f"released (batch {batch} was published by a manual release)"
    return None


def _status_not_normal(row: Result) -> tuple[str, str] | None:
    if row.status == Result.Status.PASS:
        return None
    if row.status == Result.Status.UNKNOWN and was_learning(row):
        return None
    return {
        Result.Status.FAIL: ("failed", "failed"),
        Result.Status.ERROR: ("errored", "errored: no statistic"),
    }.get(row.status, ("unknown", "unknown"))


def was_learning(row: Result) -> bool:
    """An `unknown` only because its own range (or anomaly detection) was still learning (too few
    normal values yet):
    its statistic was measured on data that was there, and nothing judged it. Such results are
    what a new check's baseline is made of; without them no range could ever start."""
    source = row.comparison_source or {}
    return (
        row.statistics_value is not None
        and source.get("source") in ("range", "anomaly")
        and source.get("expected_range") is None
        and not source.get("empty_partition")
    )


def repeat_of(row: Result, slots: dict) -> tuple[str, str] | None:
    """A second normal result of a business time already counted (two manual runs of one day,
    say): the newest counts once, so one slot is never weighed twice."""
    if row.data_time in slots:
        return "repeat of its slot", f"repeat of its slot (run {slots[row.data_time]} counted)"
    return None


def _other_scopes(earlier, baseline_scope: str, since: datetime | None) -> list[dict]:
    """Results of other partitions (or of partitions, for a whole-table baseline) in the span
    the baseline looked at (back to the oldest result of its own scope it read; everything in the
    window when it read none): never learned from, listed so the evidence says so."""
    others = earlier.exclude(partition_key=baseline_scope).select_related("run")
    if since is not None:
        others = others.filter(data_time__gte=since)
    category = "other-partition" if baseline_scope else "partition-scoped"
    return [
        {
            "run": row.run_id,
            "batch": batch_of(row.run),
            "biz_date": row.data_time.date().isoformat(),
            "category": category,
            "reason": f"{category} ({scope_words(row.partition_key)})",
        }
        for row in others.order_by("-data_time", "-pk")[:OTHER_SCOPE_LISTED]
    ]
