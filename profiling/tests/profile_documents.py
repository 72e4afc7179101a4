"""Profile documents for the tests of suggestions: hand-made columns, and a whole document computed
in plain Python from rows (PROFILE_CONTRACT), independent of every engine."""

from __future__ import annotations

import math
import re
import statistics
from datetime import date
from typing import Any

FULL = {"rows": None, "method": "full", "fraction": None, "row_guard": 1_000_000}


def document(
    columns: list[dict],
    rows: int,
    *,
    table="orders",
    method="full",
    sample_rows=None,
    at="2026-12-01T00:00:00Z",
    filter=None,
):
    return {
        "version": 1,
        "source": {"datasource": "warehouse", "table": table, "filter": filter},
        "engine": "duckdb",
        "profiled_at": at,
        "row_count": rows,
        "sample": {
            "rows": rows if sample_rows is None else sample_rows,
            "method": method,
            "fraction": None if method == "full" else (sample_rows or rows) / rows,
            "row_guard": 1_000_000,
        },
        "columns": columns,
    }


def column(name: str, kind: str, rows: int, nulls: int = 0, distinct: int | None = None, **figures) -> dict:
    types = {"number": "integer", "string": "text", "time": "timestamp", "boolean": "boolean", "other": "bytea"}
    body = {
        "name": name,
        "type": figures.pop("type", types[kind]),
        "kind": kind,
        "rows": rows,
        "nulls": nulls,
        "null_share": nulls / rows if rows else 0,
        "distinct": rows - nulls if distinct is None else distinct,
        "distinct_exact": figures.pop("distinct_exact", True),
        "top_values": figures.pop("top_values", None),
    }
    if kind == "string":
        body.update(
            {"empty": 0, "looks": {"numeric": 0, "date": 0, "email": 0}, "length": {"min": 1, "max": 9, "mean": 5.0}}
        )
    body.update(figures)
    return body


# --- a whole document from rows, in plain Python ------------------------------------------------
def looks_email(text: str) -> bool:
    local, at, domain = text.partition("@")
    return bool(
        at
        and local
        and "@" not in domain
        and "." in domain.strip(".")[1:]
        and not any(c.isspace() for c in text)
        and not domain.startswith(".")
        and not domain.endswith(".")
    )


def looks_numeric(text: str) -> bool:
    if "_" in text or text.strip().lower().lstrip("+-") in ("nan", "inf", "infinity"):
        return False
    try:
        float(text)
    except ValueError:
        return False
    return True


def looks_date(text: str) -> bool:
    try:
        date.fromisoformat(text[:10])
    except ValueError:
        return False
    return len(text) == 10 or (len(text) >= 16 and text[10] in " T")


def _quantile(ordered: list, q: float):
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def profile_of(
    rows: list[dict], types: dict[str, tuple[str, str]], table: str, at: str = "2026-12-01T00:00:00Z"
) -> dict:
    """`types`: column → (catalog type, kind). Every figure counted here from the rows."""
    columns = []
    for name, (type_name, kind) in types.items():
        values = [r[name] for r in rows]
        present = [v for v in values if v is not None]
        distinct = len(set(present))
        counts: dict[Any, int] = {}
        for v in present:
            counts[v] = counts.get(v, 0) + 1
        col = {
            "name": name,
            "type": type_name,
            "kind": kind,
            "rows": len(values),
            "nulls": len(values) - len(present),
            "null_share": (len(values) - len(present)) / len(values) if values else 0,
            "distinct": distinct,
            "distinct_exact": True,
            "top_values": sorted(({"value": v, "count": c} for v, c in counts.items()), key=lambda t: -t["count"])
            if distinct <= 20
            else None,
        }
        if kind == "number":
            ordered = sorted(float(v) for v in present)
            col.update(
                {
                    "min": ordered[0],
                    "max": ordered[-1],
                    "mean": statistics.fmean(ordered),
                    "stddev": statistics.stdev(ordered) if len(ordered) > 1 else 0.0,
                    "sum": sum(ordered),
                    "quantiles": {f"p{q:02d}": _quantile(ordered, q / 100) for q in (1, 5, 25, 50, 75, 95, 99)},
                    "quantiles_exact": True,
                }
            )
        if kind == "string":
            lengths = [len(v) for v in present]
            col.update(
                {
                    "length": {"min": min(lengths), "max": max(lengths), "mean": statistics.fmean(lengths)},
                    "empty": sum(1 for v in present if v == ""),
                    "looks": {
                        "numeric": sum(map(looks_numeric, present)),
                        "date": sum(map(looks_date, present)),
                        "email": sum(map(looks_email, present)),
                    },
                }
            )
        columns.append(col)
    return document(columns, len(rows), table=table, at=at)


def matches(pattern: str, text: str) -> bool:
    """Search semantics, as the engines apply regexp_check (these patterns read alike in Python)."""
    return re.search(pattern, text) is not None
