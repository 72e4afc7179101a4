"""Table names as users and catalogs write them (`schema.table`, quoted parts): one splitter for
every engine (Spark's readers, pushdown's catalog), in a module of its own so neither engine
imports the other."""

from __future__ import annotations

from dq_engine.errors import BatchError
from dq_engine.words import gettext_noop, say

# The messages (dq_engine/words.py: the platform translates them).
NO_TABLE = gettext_noop("The source names no table.")
UNCLOSED_QUOTE = gettext_noop("The table name %(name)s has an unclosed quote.")
EMPTY_PART = gettext_noop("The table name %(name)s has an empty part.")


def split_identifier(name: str) -> list[str]:
    """Split `a.b`, `"a.x".b` or `` `a`.`b` `` on the dots outside quotes; unquote each part."""
    if not name or not name.strip():
        raise BatchError(say(NO_TABLE))
    parts: list[str] = []
    current: list[str] = []
    quote: str | None = None
    closing = {'"': '"', "`": "`", "[": "]"}
    index = 0
    while index < len(name):
        char = name[index]
        if quote is None:
            if char in closing and not current:
                quote = char
            elif char == ".":
                parts.append("".join(current))
                current = []
            else:
                current.append(char)
        elif char == closing[quote]:
            if index + 1 < len(name) and name[index + 1] == closing[quote]:  # doubled: a literal quote
                current.append(char)
                index += 1
            else:
                quote = None
        else:
            current.append(char)
        index += 1
    if quote is not None:
        raise BatchError(say(UNCLOSED_QUOTE, name=repr(name)))
    parts.append("".join(current))
    if any(not part for part in parts):
        raise BatchError(say(EMPTY_PART, name=repr(name)))
    return parts
