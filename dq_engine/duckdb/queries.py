"""Custom SQL and value comparison on DuckDB: the user's checked SELECT (sql_safety), known to be
portable (sql.py), rendered for DuckDB with `${src_table}` / `${target_table}` bound to the
batches' views."""

from __future__ import annotations

from typing import Any

from dq_engine.duckdb.context import DuckDBRun
from dq_engine.duckdb.sql import portable_query, select_sql
from dq_engine.errors import CheckError
from dq_engine.result import number
from dq_engine.spec import CheckSpec


def query_checks(run: DuckDBRun, name: str) -> None:
    for check in run.batches.runnable(run.plans[name].sql_checks):
        if run.cancel.is_set():
            return
        query(run, name, check)


def query(run: DuckDBRun, name: str, check: CheckSpec) -> None:
    """One check's queries, as written; the outcome is recorded (an error is the check's own)."""
    outcomes = run.outcomes
    try:
        if check.metric.kind == "custom_sql":
            statistic = scalar(run, check.metric.get("sql"), ("src_table",), check)
            outcomes.count(name, "sql_queries")
            outcomes.ok_value(check, statistic)
        else:
            places = ("src_table", "target_table")
            statistic = scalar(run, check.metric.get("sql"), places, check)
            comparison = scalar(run, check.metric.get("comparison_sql"), places, check, "comparison query")
            outcomes.count(name, "sql_queries", 2)
            outcomes.ok_value(check, statistic, comparison)
    except Exception as exc:  # noqa: BLE001
        outcomes.fail(check, exc)


def scalar(run: DuckDBRun, text: Any, placeholders: tuple[str, ...], check: CheckSpec, what: str = "query") -> Any:
    parsed = portable_query(text, placeholders, what)
    batches = {"src_table": check.batch, "target_table": check.target_batch}
    sql = select_sql(parsed, {p: run.batches.views[batches[p]] for p in parsed.tables_used})
    rows = run.con.execute(sql).fetchmany(2)
    if not rows:
        raise CheckError(f"The {what} returned no rows; it must return one row holding one number.")
    if len(rows) > 1:
        raise CheckError(f"The {what} returned more than one row; it must return one row holding one number.")
    return query_value(rows[0][0], what)


def query_value(value: Any, what: str) -> Any:
    if value is not None and number(value)[0] is None:
        raise CheckError(f"The {what} must return a number; {number(value)[1]}")
    return value
