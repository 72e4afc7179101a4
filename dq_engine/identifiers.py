"""Table names as users and catalogs write them (`schema.table`, quoted parts): one splitter for
every engine (Spark's readers, pushdown's catalog), in a module of its own so neither engine
imports the other."""

from __future__ import annotations

from dq_engine.errors import BatchError


def split_identifier(name: str) -> list[str]:
    """Split `a.b`, `"a.x".b` or `` `a`.`b` `` on the dots outside quotes; unquote each part."""
    if not name or not name.strip():
        raise BatchError("The source names no table.")
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
        raise BatchError(f"The table name {name!r} has an unclosed quote.")
    parts.append("".join(current))
    if any(not part for part in parts):
        raise BatchError(f"The table name {name!r} has an empty part.")
    return parts
