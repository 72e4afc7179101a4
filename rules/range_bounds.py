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

from django.utils.translation import gettext as _

NUMBER, DATE, TIMESTAMP, TEXT, BOOLEAN = "number", "date", "timestamp", "text", "boolean"

_NUMERIC = re.compile(
    r"^(u?int\d*|tinyint|smallint|mediumint|int|integer|bigint|numeric|decimal\w*|real|float\w*|double"
    r"( precision)?|halffloat|money)\b"
)
_TEXT = re.compile(r"^(text|string|large_string|character( varying)?|varchar|char|\w*text|enum|set|citext|name)\b")
DATE_FORM = "YYYY-MM-DD, e.g. 2026-11-30"
TIMESTAMP_FORM = "YYYY-MM-DD HH:MM:SS, e.g. 2026-11-30 23:59:59"


def _date_form() -> str:
    return _("YYYY-MM-DD, e.g. 2026-11-30")


def _timestamp_form() -> str:
    return _("YYYY-MM-DD HH:MM:SS, e.g. 2026-11-30 23:59:59")


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
        if kind == TEXT:
            message = _("Column %(column)s holds text values; a value range needs a numeric, date or timestamp column.")
        else:
            message = _(
                "Column %(column)s holds true/false values; a value range needs a numeric, date or timestamp column."
            )
        raise BoundProblem(message % {"column": repr(column)})
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
        raise BoundProblem(_("%(field)s must be a number, not true/false.") % {"field": title})
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise BoundProblem(
                _("%(field)s must be a number for the numeric column %(column)s; got %(value)s.")
                % {"field": title, "column": repr(column), "value": repr(value)}
            ) from None
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BoundProblem(
            _("%(field)s must be a finite number for the numeric column %(column)s.")
            % {"field": title, "column": repr(column)}
        )
    return int(value) if float(value).is_integer() else value


def _date(value: Any, title: str, column: str) -> str:
    text = value.strip() if isinstance(value, str) else None
    if text is None or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise BoundProblem(
            _("%(field)s must be a date for the date column %(column)s: %(form)s; got %(value)s.")
            % {"field": title, "column": repr(column), "form": _date_form(), "value": repr(value)}
        )
    try:
        date.fromisoformat(text)
    except ValueError:
        raise BoundProblem(
            _("%(field)s %(value)s is not a calendar date; use %(form)s.")
            % {"field": title, "value": repr(text), "form": _date_form()}
        ) from None
    return text


def _timestamp(value: Any, title: str, column: str) -> str:
    text = value.strip() if isinstance(value, str) else None
    if text is None or not re.match(r"\d{4}-\d{2}-\d{2}", text):
        raise BoundProblem(
            _("%(field)s must be a date and time for the timestamp column %(column)s: %(form)s; got %(value)s.")
            % {"field": title, "column": repr(column), "form": _timestamp_form(), "value": repr(value)}
        )
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise BoundProblem(
            _("%(field)s %(value)s is not a date and time; use %(form)s.")
            % {"field": title, "value": repr(text), "form": _timestamp_form()}
        ) from None
    if moment.tzinfo is not None:
        raise BoundProblem(
            _("%(field)s %(value)s has a UTC offset; give local time (the session's time zone).")
            % {"field": title, "value": repr(text)}
        )
    return text
