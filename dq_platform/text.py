"""Text rules shared by the API: names are one line of printable text, and no text a client sends
holds a lone surrogate or a NUL (PostgreSQL cannot store NUL, a surrogate cannot be encoded back
to UTF-8, so either would fail later, far from the field that held it), and no number is infinite."""

from __future__ import annotations

import math
import unicodedata
from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers


def control_character(text: str) -> str | None:
    """The first control character of `text` (CR, LF, tab, NUL, …, and the Unicode line and
    paragraph separators), or None."""
    for char in text:
        if unicodedata.category(char) == "Cc" or char in "\u2028\u2029":
            return char
    return None


def plain_name(name: str, what: str | None = None) -> str:
    """`name` stripped; ValidationError when it holds a control character (a CR/LF in a name
    would forge lines in logs, e-mail subjects and exported files)."""
    char = control_character(name)
    if char is not None:
        raise serializers.ValidationError(
            _("%(what)s is one line of text without control characters; it holds %(character)s.")
            % {"what": what or _("A name"), "character": f"U+{ord(char):04X}"}
        )
    return name.strip()


def unencodable(text: str) -> str | None:
    """Why `text` cannot be kept (a lone surrogate, a NUL), or None; for a text of several lines
    (a YAML or SQL field) the message starts with the line."""
    for position, char in enumerate(text):
        if "\ud800" <= char <= "\udfff":
            why = _("The text holds a lone surrogate (%(character)s), which is not valid Unicode text; remove it.") % {
                "character": f"U+{ord(char):04X}"
            }
        elif char == "\x00":
            why = _("The text holds a NUL character (U+0000); remove it.")
        else:
            continue
        if "\n" not in text:
            return why
        return _("line %(line)s: %(problem)s") % {"line": text.count(chr(10), 0, position) + 1, "problem": why}
    return None


def unencodable_key(key: str) -> str | None:
    """Why a JSON key cannot be kept, or None."""
    for char in key:
        if "\ud800" <= char <= "\udfff":
            return _("A key holds a lone surrogate (%(character)s), which is not valid Unicode text; remove it.") % {
                "character": f"U+{ord(char):04X}"
            }
        if char == "\x00":
            return _("A key holds a NUL character (U+0000); remove it.")
    return None


def unencodable_fields(data: Any) -> dict[str, Any]:
    """The fields of a parsed JSON body (nested as the body is, in the API's `fields` shape) whose
    text, key included, holds a lone surrogate or a NUL, or whose number is too large to be
    finite. Walked without recursion: the body may be deeply nested."""
    found: dict[str, Any] = {}
    stack: list[tuple[tuple[str, ...], Any]] = [((), data)]
    while stack:
        path, value = stack.pop()
        why = None
        if isinstance(value, str):
            why = unencodable(value)
        elif isinstance(value, float) and not math.isfinite(value):
            # `1e999` is valid JSON that Python reads as infinity: no bound, threshold or count.
            why = _("Not a finite number; infinity and NaN are not accepted.")
        elif isinstance(value, dict):
            for key, item in value.items():
                key_why = unencodable_key(str(key))
                if key_why:
                    _put(found, path or ("body",), key_why)
                else:
                    stack.append(((*path, str(key)), item))
        elif isinstance(value, list):
            stack.extend(((*path, str(index)), item) for index, item in enumerate(value))
        if why:
            _put(found, path or ("body",), why)
    return found


def _put(found: dict[str, Any], path: tuple[str, ...], message: str) -> None:
    node = found
    for part in path[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            return  # a key on the way is refused already
        node = child
    node.setdefault(path[-1], [message])
