"""What every engine does with a check whose statistic is the user's own SELECT (custom_sql, and
value_comparison's two queries): which queries run, and what their answer must look like. Each
engine supplies only how one query is rendered and run (`Scalar`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from dq_engine.errors import CheckError
from dq_engine.result import number
from dq_engine.spec import CheckSpec
from dq_engine.words import gettext_noop, say

# The messages (dq_engine/words.py: the platform translates them).
NO_ROWS = gettext_noop("The %(what)s returned no rows; it must return one row holding one number.")
SEVERAL_ROWS = gettext_noop("The %(what)s returned more than one row; it must return one row holding one number.")
ONE_COLUMN = gettext_noop("The %(what)s must return exactly one column.")
NOT_A_NUMBER = gettext_noop("The %(what)s must return a number; %(why)s")

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
        raise CheckError(say(NO_ROWS, what=what))
    if len(rows) > 1:
        raise CheckError(say(SEVERAL_ROWS, what=what))
    if len(rows[0]) != 1:
        raise CheckError(say(ONE_COLUMN, what=what))
    return query_value(rows[0][0], what)


def query_value(value: Any, what: str) -> Any:
    """A statistic query's value: a number or NULL; anything else is the check's error."""
    if value is not None and number(value)[0] is None:
        raise CheckError(say(NOT_A_NUMBER, what=what, why=number(value)[1]))
    return value
