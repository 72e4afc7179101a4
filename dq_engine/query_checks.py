"""What every engine does with a check whose statistic is the user's own SELECT (custom_sql, and
value_comparison's two queries): which queries run, and what their answer must look like. Each
engine supplies only how one query is rendered and run (`Scalar`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from dq_engine.errors import CheckError
from dq_engine.result import number
from dq_engine.spec import CheckSpec

SOURCE_ONLY = ("src_table",)
SOURCE_AND_TARGET = ("src_table", "target_table")

# scalar(text, placeholders, what): the value of one of the check's queries.
Scalar = Callable[[Any, tuple[str, ...], str], Any]


class Recorder(Protocol):
    def count(self, batch: str, what: str, n: int = 1) -> None: ...
    def ok_value(self, check: CheckSpec, value: Any, comparison: Any = ...) -> None: ...
    def fail(self, check: CheckSpec, exc: BaseException) -> None: ...


def run_query_check(outcomes: Recorder, name: str, check: CheckSpec, scalar: Scalar) -> None:
    """One check's queries, as written; the outcome is recorded (an error is the check's own)."""
    try:
        if check.metric.kind == "custom_sql":
            statistic = scalar(check.metric.get("sql"), SOURCE_ONLY, "query")
            outcomes.count(name, "sql_queries")
            outcomes.ok_value(check, statistic)
        else:
            statistic = scalar(check.metric.get("sql"), SOURCE_AND_TARGET, "query")
            comparison = scalar(check.metric.get("comparison_sql"), SOURCE_AND_TARGET, "comparison query")
            outcomes.count(name, "sql_queries", 2)
            outcomes.ok_value(check, statistic, comparison)
    except Exception as exc:  # noqa: BLE001
        outcomes.fail(check, exc)


def one_value(rows: Sequence[Sequence[Any]], what: str) -> Any:
    """The value of a statistic query that returned `rows` (fetch at most 2): one row holding one
    number or NULL, or the check's error saying what came back instead."""
    if not rows:
        raise CheckError(f"The {what} returned no rows; it must return one row holding one number.")
    if len(rows) > 1:
        raise CheckError(f"The {what} returned more than one row; it must return one row holding one number.")
    if len(rows[0]) != 1:
        raise CheckError(f"The {what} must return exactly one column.")
    return query_value(rows[0][0], what)


def query_value(value: Any, what: str) -> Any:
    """A statistic query's value: a number or NULL; anything else is the check's error."""
    if value is not None and number(value)[0] is None:
        raise CheckError(f"The {what} must return a number; {number(value)[1]}")
    return value
