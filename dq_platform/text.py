"""Text rules shared by the API: names are one line of printable text, and no text a client sends
holds a lone surrogate or a NUL (PostgreSQL cannot store NUL, a surrogate cannot be encoded back
to UTF-8, so either would fail later, far from the field that held it), and no number is infinite."""

from __future__ import annotations

import math
import unicodedata
from typing import Any

from rest_framework import serializers


def control_character(text: str) -> str | None:
    """The first control character of `text` (CR, LF, tab, NUL, …, and the Unicode line and
    paragraph separators), or None."""
    for char in text:
        if unicodedata.category(char) == "Cc" or char in "\u2028\u2029":
            return char
    return None


def plain_name(name: str, what: str = "A name") -> str:
    """`name` stripped; ValidationError when it holds a control character (a CR/LF in a name
    would forge lines in logs, e-mail subjects and exported files)."""
    char = control_character(name)
    if char is not None:
        raise serializers.ValidationError(
            f"{what} is one line of text without control characters; it holds U+{ord(char):04X}."
        )
    return name.strip()


def unencodable(text: str) -> str | None:
    """Why `text` cannot be kept (a lone surrogate, a NUL), or None."""
    for char in text:
        if "\ud800" <= char <= "\udfff":
            return f"holds a lone surrogate (U+{ord(char):04X}), which is not valid Unicode text"
        if char == "\x00":
            return "holds a NUL character (U+0000)"
    return None


def unencodable_fields(data: Any) -> dict[str, list[str]]:
    """{"path.to.field": [why]} for every string (key or value) of a parsed JSON body that holds a
    lone surrogate or a NUL, and every number too large to be finite. Walked without recursion: the body may be deeply nested."""
    found: dict[str, list[str]] = {}
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            why = unencodable(value)
            if why:
                found[path or "body"] = [f"The text {why}; remove it."]
        elif isinstance(value, float) and not math.isfinite(value):
            # `1e999` is valid JSON that Python reads as infinity: no bound, threshold or count.
            found[path or "body"] = ["Not a finite number; infinity and NaN are not accepted."]
        elif isinstance(value, dict):
            for key, item in value.items():
                where = f"{path}.{key}" if path else str(key)
                why = unencodable(str(key))
                if why:
                    found[path or "body"] = [f"A key {why}; remove it."]
                    where = path or "body"
                stack.append((where, item))
        elif isinstance(value, list):
            stack.extend((f"{path}[{index}]", item) for index, item in enumerate(value))
    return found
