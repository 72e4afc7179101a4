"""Custom SQL and value comparison on DuckDB: the user's checked SELECT (sql_safety), known to be
portable (sql.py), rendered for DuckDB with `${src_table}` / `${target_table}` bound to the
batches' views."""

from __future__ import annotations

import functools
from typing import Any

from dq_engine.duckdb.context import DuckDBRun
from dq_engine.duckdb.sql import portable_query, select_sql
from dq_engine.query_checks import one_value, run_query_check
from dq_engine.spec import CheckSpec


def query_checks(run: DuckDBRun, name: str) -> None:
    for check in run.batches.runnable(run.plans[name].sql_checks):
        if run.cancel.is_set():
            return
        query(run, name, check)


def query(run: DuckDBRun, name: str, check: CheckSpec) -> None:
    """One check's queries, as written; the outcome is recorded (an error is the check's own)."""
    run_query_check(run.outcomes, name, check, functools.partial(scalar, run, check=check))


def scalar(run: DuckDBRun, text: Any, placeholders: tuple[str, ...], what: str = "query", *, check: CheckSpec) -> Any:
    parsed = portable_query(text, placeholders, what)
    batches = {"src_table": check.batch, "target_table": check.target_batch}
    sql = select_sql(parsed, {p: run.batches.views[batches[p]] for p in parsed.tables_used})
    return one_value(run.con.execute(sql).fetchmany(2), what)
