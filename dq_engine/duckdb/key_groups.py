"""Uniqueness on DuckDB: one `GROUP BY key HAVING count(*) > 1` per key column, shared by every
uniqueness check on it. The statistic is the number of duplicated non-NULL values; the error rows
are every row holding one of them."""

from __future__ import annotations

from dq_engine.duckdb.batches import quote
from dq_engine.duckdb.context import DuckDBRun
from dq_engine.errors import CheckError
from dq_engine.spec import CheckSpec


def uniqueness_checks(run: DuckDBRun, name: str) -> None:
    by_column: dict[str, list[CheckSpec]] = {}
    for check in run.batches.runnable(run.plans[name].uniqueness_checks):
        try:
            column = run.batches.column(name, check.metric.get("column"))
        except CheckError as exc:
            run.outcomes.fail(check, exc)
            continue
        by_column.setdefault(column.name, []).append(check)
    for column, group in by_column.items():
        if run.cancel.is_set():
            return
        duplicates(run, name, column, group)


def duplicates(run: DuckDBRun, name: str, column: str, group: list[CheckSpec]) -> None:
    view, key, outcomes = run.batches.view(name), quote(column), run.outcomes
    duplicated = f"SELECT {key} AS __dq_key, count(*) AS __dq_n FROM {view} WHERE {key} IS NOT NULL GROUP BY {key} HAVING count(*) > 1"
    try:
        values, rows = run.one_row(f"SELECT count(*), sum(__dq_n) FROM ({duplicated})")
        outcomes.count(name, "group_bys")
    except Exception as exc:  # noqa: BLE001
        for check in group:
            outcomes.fail(check, exc)
        return
    offending = int(rows or 0)
    for check in group:
        outcomes.ok(check, float(values), error_row_count=offending)
        outcomes.error_rows(
            check, offending, lambda: f"SELECT * FROM {view} WHERE {key} IN (SELECT __dq_key FROM ({duplicated}))"
        )
