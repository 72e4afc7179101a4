"""What a profile is asked: the source (a job spec source: dq_engine/spec.py), the table's names
as the platform shows them, an optional filter, the engine, and the limits.

JSON shape:
{"source": {"kind": "file", "format": "parquet", "path": "/data/orders"},
 "datasource": "lake", "table": "orders", "filter": "status = 'paid'", "engine": "auto",
 "row_guard": 1000000, "exact_rows": 100000, "top_values_limit": 20, "bins": 10,
 "statement_timeout_seconds": 900}

- `row_guard`: a batch of more rows is profiled on a random sample of about this many rows;
- `exact_rows`: up to this many profiled rows, distinct counts and quantiles are exact where the
  engine can compute them exactly (beyond it, approximate where the engine has an estimator);
- `top_values_limit`: a column with at most this many distinct values gets its values and counts;
- `bins`: the histogram's bins for numeric columns (10 to 20).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dq_engine.engines import ENGINES
from dq_engine.spec import AUTO_ENGINE, FileSource, JdbcSource, SpecError, _parse_source, _source_dict

DEFAULT_ROW_GUARD = 1_000_000
DEFAULT_EXACT_ROWS = 100_000
DEFAULT_TOP_VALUES = 20
DEFAULT_BINS = 10


@dataclass(frozen=True)
class ProfileSpec:
    source: JdbcSource | FileSource
    datasource: str = ""
    table: str = ""
    filter: str | None = None
    engine: str = AUTO_ENGINE
    row_guard: int = DEFAULT_ROW_GUARD
    exact_rows: int = DEFAULT_EXACT_ROWS
    top_values_limit: int = DEFAULT_TOP_VALUES
    bins: int = DEFAULT_BINS
    statement_timeout_seconds: int | None = None

    @classmethod
    def from_dict(cls, data: Any) -> ProfileSpec:
        if not isinstance(data, dict):
            raise SpecError("The profile spec must be a JSON object.")
        if not isinstance(data.get("source"), dict):
            raise SpecError("profile.source is missing.")
        engine = data.get("engine") or AUTO_ENGINE
        if engine != AUTO_ENGINE and engine not in ENGINES:
            raise SpecError(f"profile.engine must be {AUTO_ENGINE} or one of {', '.join(ENGINES)}; got {engine!r}.")
        limits = {}
        for name, default, low, high in (
            ("row_guard", DEFAULT_ROW_GUARD, 1, None),
            ("exact_rows", DEFAULT_EXACT_ROWS, 0, None),
            ("top_values_limit", DEFAULT_TOP_VALUES, 0, 1000),
            ("bins", DEFAULT_BINS, 10, 20),
        ):
            value = data.get(name, default)
            if value is None:
                value = default
            if isinstance(value, bool) or not isinstance(value, int) or value < low or (high and value > high):
                bound = f"between {low} and {high}" if high else f"at least {low}"
                raise SpecError(f"profile.{name} must be a whole number {bound}; got {value!r}.")
            limits[name] = value
        timeout = data.get("statement_timeout_seconds")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 1):
            raise SpecError("profile.statement_timeout_seconds must be a whole number of seconds, at least 1.")
        return cls(
            source=_parse_source("source", data["source"]),
            datasource=str(data.get("datasource") or ""),
            table=str(data.get("table") or ""),
            filter=data.get("filter") or None,
            engine=engine,
            statement_timeout_seconds=timeout,
            **limits,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": _source_dict(self.source),
            "datasource": self.datasource,
            "table": self.table,
            "filter": self.filter,
            "engine": self.engine,
            "row_guard": self.row_guard,
            "exact_rows": self.exact_rows,
            "top_values_limit": self.top_values_limit,
            "bins": self.bins,
            "statement_timeout_seconds": self.statement_timeout_seconds,
        }
