"""A batch's partition as values, not text.

A partition is `{column: value}`. It is checked against the live catalog when a batch is
registered: every column must be one of the table's (stored under the catalog's spelling of its
name) and every value one the column's type can hold (a whole number for an integer column, a
number for a decimal one, an ISO date for a date one); it is then stored typed (an integer column's
value as a number, every other column's as text), so the engine compares like with like.

The gate finds a partition's batches by `partition_key`: the SHA-256 of the canonical JSON of the
partition (sorted names, every value as its text), so two different partitions never share a key
whatever their values hold: `{"country": "CN,status=CREATED"}` and
`{"country": "CN", "status": "CREATED"}` are different JSON. Matching is exact: same names, same
values (an integer written in plain decimal, `3` not `03`).
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

INTEGER = re.compile(r"^(u?int\d*|(tiny|small|medium|big)int|integer|(small|big)?serial|long|short|byte)\b", re.I)
NUMBER = re.compile(r"^(numeric|decimal\d*|real|double|float\d*|halffloat|number)\b", re.I)
DATE = re.compile(r"^date(32|64)?\b", re.I)
WHOLE_NUMBER = re.compile(r"^[+-]?\d{1,18}$")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def canonical(partition: dict[str, Any]) -> str:
    """The partition's one text: JSON with sorted names and every value as its text."""
    return json.dumps(
        {str(name): str(value) for name, value in partition.items()},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )


def partition_key(partition: dict[str, Any]) -> str:
    """What the gate looks a partition up by (an index on a fixed-width digest of `canonical`)."""
    return hashlib.sha256(canonical(partition).encode()).hexdigest()


def describe(partition: dict[str, Any]) -> str:
    """For people: `dt=2026-11-29, hour=3` (never used to match anything)."""
    return ", ".join(f"{name}={partition[name]}" for name in sorted(partition))


def typed(partition: dict[str, Any], column_types: dict[str, tuple[str, str]]) -> tuple[dict[str, Any], list[str]]:
    """The partition under the catalog's names and typed by the catalog's column types, and the
    problems (each naming the column). `column_types` is {lower-case name: (name, type)}."""
    values: dict[str, Any] = {}
    problems: list[str] = []
    for name, value in partition.items():
        column, kind = column_types[name.lower()]
        if column in values:
            problems.append(f"Column {column!r} is given twice ({name!r}).")
            continue
        converted, problem = _convert(value, kind)
        if problem:
            problems.append(f"Column {column!r} is {kind}: {problem}")
        values[column] = converted
    return values, problems


def _convert(value: Any, kind: str) -> tuple[Any, str]:
    text = str(value).strip() if isinstance(value, str) else value
    if INTEGER.match(kind):
        if isinstance(value, int):
            return value, ""
        if WHOLE_NUMBER.match(text):
            return int(text), ""
        return value, f"{value!r} is not a whole number."
    if NUMBER.match(kind):
        try:
            ok = isinstance(value, int) or Decimal(text).is_finite()
        except InvalidOperation:
            ok = False
        return (str(value), "") if ok else (value, f"{value!r} is not a number.")
    if DATE.match(kind):
        try:
            date.fromisoformat(str(value) if ISO_DATE.match(str(value)) else "")
        except ValueError:
            return value, f"{value!r} is not a date written YYYY-MM-DD."
        return str(value), ""
    return str(value), ""
