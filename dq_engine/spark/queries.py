"""Custom SQL and value comparison on Spark: the user's checked SELECT against temp views of the
batches (`${src_table}`, `${target_table}` bound to view names by sql_safety, never pasted)."""

from __future__ import annotations

import functools
from typing import Any

from dq_engine.errors import CheckError
from dq_engine.result import number
from dq_engine.spark.context import SparkRun
from dq_engine.spark.jvm import regex_hook
from dq_engine.spark.scheduling import Unit
from dq_engine.spec import CheckSpec
from dq_engine.sql_safety import UnsafeSQL, parse_select


def query_units(run: SparkRun, name: str) -> list[Unit]:
    return [functools.partial(query, run, name, check) for check in run.batches.runnable(run.plans[name].sql_checks)]


def query(run: SparkRun, name: str, check: CheckSpec) -> None:
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


def scalar(run: SparkRun, text: Any, placeholders: tuple[str, ...], check: CheckSpec, what: str = "query") -> Any:
    """Run a user's one-value SELECT against the batches' views and return the value."""
    if not isinstance(text, str):
        raise CheckError(f"The {what} is missing.")
    try:
        parsed = parse_select(text, placeholders)
    except UnsafeSQL as exc:
        raise CheckError(f"The {what} was refused: {exc}")
    batches = {"src_table": check.batch, "target_table": check.target_batch}
    sql = parsed.to_spark_sql(
        {placeholder: run.batches.view(batches[placeholder]) for placeholder in parsed.tables_used},
        regex=regex_hook(run.spark),
    )
    rows = run.spark.sql(sql).limit(2).collect()
    if not rows:
        raise CheckError(f"The {what} returned no rows; it must return one row holding one number.")
    if len(rows) > 1:
        raise CheckError(f"The {what} returned more than one row; it must return one row holding one number.")
    return query_value(rows[0][0], what)


def query_value(value: Any, what: str) -> Any:
    """A statistic query's value: a number or NULL; anything else is the check's error."""
    if value is not None and number(value)[0] is None:
        raise CheckError(f"The {what} must return a number; {number(value)[1]}")
    return value
