"""The profile document (the contract the platform stores and suggestions read), from the raw
values the two steps gave. Values become JSON: decimals as floats, times as ISO strings."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

from dq_engine.profiling.queries import (
    NUMBER,
    QUANTILES,
    TEXT,
    TIME,
    ProfileColumn,
    histogram_edges,
    shapes_from_masks,
    shapes_of,
)

VERSION = 1


def skeleton(spec: Any, engine: str | None, reason: str) -> dict[str, Any]:
    return {
        "version": VERSION,
        "source": {"datasource": spec.datasource, "table": spec.table, "filter": spec.filter},
        "engine": engine,
        "engine_reason": reason,
        "profiled_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "row_count": None,
        "sample": {"rows": None, "method": "full", "fraction": None, "row_guard": spec.row_guard},
        "columns": [],
    }


def plain(value: Any) -> Any:
    """A value as JSON: Decimal → float (int when integral and small), times → ISO, NaN → None."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, Decimal):
        return float(value) if value.is_finite() else None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    return str(value)


def number(value: Any) -> float | int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    try:
        result = float(value)
    except (TypeError, ValueError):
        return None
    return result if math.isfinite(result) else None


def column_entry(
    column: ProfileColumn,
    rows: int,
    values: dict[str, Any],
    distinct_exact: bool | None,
    quantiles_exact: bool | None,
) -> dict[str, Any]:
    """A column's entry from its first-step figures (by name) and, when they ran, its second-step
    group counts (`values["groups"]`: {purpose: {key: count}})."""
    nonnull = int(values.get("values") or 0)
    nulls = rows - nonnull
    entry: dict[str, Any] = {
        "name": column.name,
        "type": column.type,
        "kind": column.kind,
        "rows": rows,
        "nulls": nulls,
        "null_share": nulls / rows if rows else 0,
        "distinct": None if values.get("distinct") is None else int(values["distinct"]),
        "distinct_exact": distinct_exact,
    }
    groups = values.get("groups", {})
    if column.kind in (NUMBER, TIME):
        entry["min"], entry["max"] = plain(values.get("min")), plain(values.get("max"))
        quantiles = values.get("quantiles")
        entry["quantiles"] = (
            None
            if not quantiles or all(q is None for q in quantiles)
            else {key: plain(q) for (key, _), q in zip(QUANTILES, quantiles, strict=True)}
        )
        entry["quantiles_exact"] = quantiles_exact if entry["quantiles"] is not None else None
    if column.kind == NUMBER:
        entry["mean"] = number(values.get("mean"))
        entry["stddev"] = number(values.get("stddev"))
        total = values.get("sum")
        entry["sum"] = total if isinstance(total, int) and not isinstance(total, bool) else number(total)
        entry["histogram"] = histogram(values, groups.get("histogram"))
    elif column.kind == TIME:
        entry.update(mean=None, stddev=None, sum=None, histogram=None)
    if column.kind == TEXT:
        entry["length"] = {
            "min": None if values.get("length_min") is None else int(values["length_min"]),
            "max": None if values.get("length_max") is None else int(values["length_max"]),
            "mean": number(values.get("length_mean")),
        }
        entry["empty"] = int(values.get("empty") or 0)
        if "top_values" in groups:
            entry["looks"] = shapes_of(groups["top_values"])
        elif "shapes" in groups:
            entry["looks"] = shapes_from_masks(groups["shapes"])
        else:
            entry["looks"] = None
    entry["top_values"] = None
    if "top_values" in groups:
        counted = groups["top_values"]
        entry["distinct"], entry["distinct_exact"] = len(counted), True  # every value was counted
        if len(counted) <= values.get("top_values_limit", 20):
            ordered = sorted(counted.items(), key=lambda item: (-item[1], str(plain(item[0]))))
            entry["top_values"] = [{"value": plain(value), "count": int(count)} for value, count in ordered]
    return entry


def histogram(values: dict[str, Any], counted: dict[Any, int] | None) -> dict[str, Any] | None:
    low, high = number(values.get("min")), number(values.get("max"))
    if low is None or high is None:
        return None
    if low == high:
        return {"edges": [low, high], "counts": [int(values.get("values") or 0)], "exact": True}
    if counted is None:
        return None
    edges = histogram_edges(float(low), float(high), values["bins"])
    counts = [0] * values["bins"]
    for key, count in counted.items():
        counts[int(key)] += int(count)
    # Spark's one pass draws a large batch's histogram from its quantile sketch: every value is in
    # a bin, a value near an edge perhaps in its neighbour.
    return {"edges": list(edges), "counts": counts, "exact": values.get("histogram_exact", True)}
