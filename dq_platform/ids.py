"""A row id read from a query string or a JSON body: ASCII digits (str.isdigit() also accepts `²`
and `١`, which int() refuses) within the database's bigint, since a larger number makes the
database driver raise instead of finding nothing."""

from __future__ import annotations

import re
from typing import Any

MAX_ID = 2**63 - 1
_DIGITS = re.compile(r"[0-9]{1,19}")


def as_id(value: Any) -> int | None:
    """The id `value` names (an int, or text of digits), or None when it is not one (0 included)."""
    if isinstance(value, str):
        value = value.strip()
        if not _DIGITS.fullmatch(value):
            return None
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 1 <= value <= MAX_ID else None
