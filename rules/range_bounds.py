"""A value range's bounds, typed by the column they bound: numbers for a numeric column, dates for a
date column, date-times for a timestamp column.

The engine compares a date or timestamp column with ISO text bounds (dq_engine's outside_range
predicate); this module refuses at save what the run would refuse, from the type the live catalog
gives: PostgreSQL's and MariaDB's information_schema names (`integer`, `timestamp without time
zone`, `datetime`) and the Arrow names of file datasets (`int64`, `date32[day]`, `timestamp[us]`).
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from typing import Any

NUMBER, DATE, TIMESTAMP, TEXT, BOOLEAN = "number", "date", "timestamp", "text", "boolean"

_NUMERIC = re.compile(
    r"^(u?int\d*|tinyint|smallint|mediumint|int|integer|bigint|numeric|decimal\w*|real|float\w*|double"
    r"( precision)?|halffloat|money)\b"
)
_TEXT = re.compile(r"^(text|string|large_string|character( varying)?|varchar|char|\w*text|enum|set|citext|name)\b")
DATE_FORM = "YYYY-MM-DD, e.g. 2026-11-30"
TIMESTAMP_FORM = "YYYY-MM-DD HH:MM:SS, e.g. 2026-11-30 23:59:59"


class BoundProblem(ValueError):
    pass


def column_kind(type_name: str) -> str | None:
    """What a catalog type name holds, as far as a range cares; None for a type it cannot tell
    (the run decides then)."""
    name = type_name.strip().lower()
    if name.startswith(("date32", "date64")) or name == "date":
        return DATE
    if name.startswith(("timestamp", "datetime")):
        return TIMESTAMP
    if name in ("boolean", "bool"):
        return BOOLEAN
    if _NUMERIC.match(name):
        return NUMBER
    if _TEXT.match(name):
        return TEXT
    return None


def clean_bound(kind: str | None, value: Any, title: str, column: str) -> int | float | str:
    """The bound as it is saved: a number for numbers, the ISO text for dates and timestamps;
    BoundProblem saying what the column takes otherwise."""
    if kind == NUMBER:
        return _number(value, title, column)
    if kind == DATE:
        return _date(value, title, column)
    if kind == TIMESTAMP:
        return _timestamp(value, title, column)
    if kind in (TEXT, BOOLEAN):
        raise BoundProblem(
            f"Column {column!r} holds {'text' if kind == TEXT else 'true/false'} values; a value range needs a "
            "numeric, date or timestamp column."
        )
    # A type the catalog names in a way this module does not know: any bound form, the run decides.
    if isinstance(value, str) and not _looks_numeric(value):
        return _timestamp(value, title, column)
    return _number(value, title, column)


def _looks_numeric(text: str) -> bool:
    try:
        float(text.strip())
    except ValueError:
        return False
    return True


def _number(value: Any, title: str, column: str) -> int | float:
    if isinstance(value, bool):
        raise BoundProblem(f"{title} must be a number, not true/false.")
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise BoundProblem(f"{title} must be a number for the numeric column {column!r}; got {value!r}.") from None
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BoundProblem(f"{title} must be a finite number for the numeric column {column!r}.")
    return int(value) if float(value).is_integer() else value


def _date(value: Any, title: str, column: str) -> str:
    text = value.strip() if isinstance(value, str) else None
    if text is None or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise BoundProblem(f"{title} must be a date for the date column {column!r}: {DATE_FORM}; got {value!r}.")
    try:
        date.fromisoformat(text)
    except ValueError:
        raise BoundProblem(f"{title} {text!r} is not a calendar date; use {DATE_FORM}.") from None
    return text


def _timestamp(value: Any, title: str, column: str) -> str:
    text = value.strip() if isinstance(value, str) else None
    if text is None or not re.match(r"\d{4}-\d{2}-\d{2}", text):
        raise BoundProblem(
            f"{title} must be a date and time for the timestamp column {column!r}: {TIMESTAMP_FORM}; got {value!r}."
        )
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise BoundProblem(f"{title} {text!r} is not a date and time; use {TIMESTAMP_FORM}.") from None
    if moment.tzinfo is not None:
        raise BoundProblem(f"{title} {text!r} has a UTC offset; give local time (the session's time zone).")
    return text
