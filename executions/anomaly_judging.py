"""The `anomaly` comparison: a check's earlier results as the detector's points, its judgement as
the result's evidence. The detection itself is dq_engine/anomaly.py; this module only reads the
metadata database and says, per earlier result, what the detector needs to know of it.

Earlier results: same check identity and statistic, business time strictly before the judged
run's, in the comparison type's counted window (`last_<N>_days` back from the run's business
time, or the newest `last_<N>_runs`), of the same scope (whole table, or the judged partition when
the type's batch is `partition`), never the judged run. Each is
- left out with its reason when its run was not normal (backfill, rerun, re-validation,
  non-business day, released batch: executions/history.py's rules), when it repeats a business
  time already counted, when it errored, or when it failed under another comparison;
- an anomaly (with its side) when anomaly detection flagged it; a person's feedback goes along.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from dq_engine.anomaly import Point, judge, side_of
from rules.comparison_types import COUNTED_WINDOW, ComparisonSpec
from rules.params import anomaly_settings

from . import history
from .models import Result
from .scopes import WHOLE_TABLE

SOURCE = "anomaly"
# Results listed one by one in the evidence (each list), the newest kept: a 90-day hourly history
# is 2,160 points, and every results page carries its results' evidence; `learned` counts them all.
LISTED = 500


def judged_by_anomaly(result: Result) -> bool:
    return (result.comparison_source or {}).get("source") == SOURCE


def anomaly_side(result: Result) -> str:
    """ "above" or "below" for a result anomaly detection flagged (warn or fail); "" otherwise."""
    source = result.comparison_source or {}
    if source.get("source") != SOURCE or source.get("verdict") not in ("warn", "fail"):
        return ""
    return source.get("side") or "unknown"


def judge_statistic(
    spec: ComparisonSpec,
    params: dict[str, Any],
    identity: str,
    statistic_name: str,
    data_time: datetime,
    statistic: float | None,
    exclude_run_id: int | None = None,
    scope: str = WHOLE_TABLE,
) -> tuple[float | None, dict[str, Any]]:
    """(the expected value: the detector's centre, or None; the evidence stored with the result)."""
    from gates.models import NonBusinessDay, Release  # the admin's calendar and releases; gates owns them

    baseline_scope = scope if spec.batch == "partition" else WHOLE_TABLE
    counted = COUNTED_WINDOW.match(spec.window)
    earlier = Result.objects.filter(
        identity=identity, statistic_name=statistic_name, data_time__lt=data_time, partition_key=baseline_scope
    )
    if counted["unit"] == "days":
        earlier = earlier.filter(data_time__gte=data_time - timedelta(days=int(counted["n"])))
    if exclude_run_id is not None:
        earlier = earlier.exclude(run_id=exclude_run_id)
    earlier = earlier.select_related("run", "feedback").order_by("-data_time", "-pk")
    if counted["unit"] == "runs":
        earlier = earlier[: int(counted["n"]) * history.RANGE_LOOKBACK + 20]
    rows = list(earlier)
    days = dict(NonBusinessDay.objects.filter(date__in={r.data_time.date() for r in rows}).values_list("date", "name"))
    batches = {history.batch_of(r.run) for r in rows} - {None}
    released = set(Release.objects.filter(batch_id__in=batches).values_list("batch_id", flat=True))
    slots: dict = {}
    points = []
    for row in rows:  # newest first, so that a repeated business time keeps its newest result
        points.append(_point(row, days, released, slots))
    if counted["unit"] == "runs":
        points = _newest_normal(points, int(counted["n"]))
    settings = anomaly_settings(params)
    judgement = judge(points, data_time, statistic, settings)
    found = judgement.as_dict()
    by_id = {row.pk: row for row in rows}
    training = [_entry(by_id, e) for e in found.pop("training")]
    excluded = [_entry(by_id, e) for e in found.pop("excluded")]
    counts: dict[str, int] = {}
    for entry in excluded:
        counts[entry["reason"]] = counts.get(entry["reason"], 0) + 1
    considered = len(training) + len(excluded)
    sentence = f"learned from {len(training)} of {considered} earlier result{'s' if considered != 1 else ''}"
    if counts:
        sentence += ": " + ", ".join(f"{n} {reason}" for reason, n in counts.items()) + " excluded"
    source = {
        "type": spec.key,
        "source": SOURCE,
        "window": spec.window,
        "scope": baseline_scope,
        **found,
        "severity": found["verdict"] if found["verdict"] in ("warn", "fail") else None,
        # The pass range (the warn band): what a dynamic range calls its expected range, so the
        # trend and the baseline rules read both alike; null while the detector is still learning.
        "expected_range": found["warn_range"],
        "side": None if statistic is None or found["warn_range"] is None else side_of(statistic, found["warn_range"]),
        "training": training[-LISTED:],
        "excluded": excluded[-LISTED:],
        "learned": {"used": len(training), "considered": considered, "excluded": counts, "sentence": sentence},
    }
    return judgement.centre, source


def _point(row: Result, days: dict, released: set[int], slots: dict) -> Point:
    feedback = getattr(row, "feedback", None)
    common = {"time": row.data_time, "value": row.statistics_value, "id": row.pk}
    why = history.run_not_normal(row, days, released) or history.repeat_of(row, slots)
    if why:
        return Point(**common, excluded=why[1])
    if row.status == Result.Status.ERROR:
        return Point(**common, excluded="errored: no statistic")
    if row.status == Result.Status.UNKNOWN and not history.was_learning(row):
        return Point(**common, excluded="unknown")
    side = anomaly_side(row)
    if row.status == Result.Status.FAIL and not side:
        return Point(**common, excluded="failed (another comparison)")
    slots[row.data_time] = row.run_id
    return Point(**common, anomaly=side, feedback=feedback.verdict if feedback else "")


def _newest_normal(points: list[Point], n: int) -> list[Point]:
    """`last_<N>_runs`: the newest N points that could be learned from, and everything passed
    over on the way (listed as excluded)."""
    kept, normal = [], 0
    for point in points:  # newest first
        if normal == n:
            break
        kept.append(point)
        if not point.excluded and point.feedback != "incident" and (not point.anomaly or point.feedback == "expected"):
            normal += 1
    return kept


def _entry(rows: dict[int, Result], entry: dict[str, Any]) -> dict[str, Any]:
    row = rows[entry["id"]]
    out = {"result": row.pk, "run": row.run_id, "time": entry["time"], "value": entry["value"]}
    for name in ("feedback", "reason"):
        if name in entry:
            out[name] = entry[name]
    return out
