"""Custom SQL and value comparison on Spark: the user's checked SELECT against temp views of the
batches (`${src_table}`, `${target_table}` bound to view names by sql_safety, never pasted)."""

from __future__ import annotations

import functools
from typing import Any

from dq_engine.errors import CheckError
from dq_engine.query_checks import one_value, run_query_check
from dq_engine.spark.context import SparkRun
from dq_engine.spark.jvm import regex_hook
from dq_engine.spark.scheduling import Unit
from dq_engine.spec import CheckSpec
from dq_engine.sql_safety import UnsafeSQL, parse_select


def query_units(run: SparkRun, name: str) -> list[Unit]:
    return [functools.partial(query, run, name, check) for check in run.batches.runnable(run.plans[name].sql_checks)]


def query(run: SparkRun, name: str, check: CheckSpec) -> None:
    """One check's queries, as written; the outcome is recorded (an error is the check's own)."""
    run_query_check(run.outcomes, name, check, functools.partial(scalar, run, check=check))


def scalar(run: SparkRun, text: Any, placeholders: tuple[str, ...], what: str = "query", *, check: CheckSpec) -> Any:
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
    return one_value(run.spark.sql(sql).limit(2).collect(), what)
