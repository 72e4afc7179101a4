"""Which Java regular expressions a database reads as Java does: one scanner, each database's rules.

Regular expressions run in the database with its own engine (PostgreSQL's POSIX advanced ones,
MariaDB's PCRE2). A Java construct the database would read differently or not at all is refused
for pushdown with the reason; the check then goes to Spark.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from dq_engine.databases.base import NOT_PUSHED

_SHORT_PROPERTY = re.compile(r"^\^?(L&|[A-Z][a-z]?)$")


@dataclass(frozen=True)
class Rules:
    """- `escapes`: escapes (outside classes) the database reads otherwise, with how to say so;
    - `properties_in_classes`: whether \\p{..} inside [...] is read as Java does;
    - `short_properties_only`: \\p{..} only with a one- or two-letter general category;
    - `possessive`: whether possessive quantifiers (`a*+`) are read as Java does;
    - `group(rest, at_start)`: the problem of a `(?` group (rest: the text after `(?`), or None."""

    label: str
    escapes: Mapping[str, str] = field(default_factory=dict)
    properties_in_classes: bool = True
    short_properties_only: bool = False
    possessive: bool = True
    group: Callable[[str, bool], str | None] = lambda rest, at_start: None


def problem(pattern: str, rules: Rules) -> str | None:
    """Why the database would not run a Java regex as Java does, or None."""
    refused = _scan(pattern, rules)
    if refused:
        return f"{NOT_PUSHED}: the regular expression uses {refused}, which {rules.label} reads differently; Spark runs it."
    return None


def _scan(pattern: str, rules: Rules) -> str | None:
    i, depth_class, n = 0, 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if depth_class == 0 and nxt in rules.escapes:
                return rules.escapes[nxt]
            if depth_class and nxt in ("p", "P") and not rules.properties_in_classes:
                return rules.escapes.get(nxt, "Unicode classes")
            if nxt in ("p", "P") and rules.short_properties_only:
                name = (
                    pattern[i + 3 : pattern.find("}", i)]
                    if i + 2 < n and pattern[i + 2] == "{"
                    else pattern[i + 2 : i + 3]
                )
                if not _SHORT_PROPERTY.match(name):
                    return f"the Java property class \\{nxt}{{{name}}}"
            i += 2
            continue
        if depth_class:
            if char == "[":
                if i + 1 < n and pattern[i + 1] in ":.=":
                    return "a POSIX class ([:name:]) inside brackets"
                return "a nested character class (a union in Java)"
            if char == "&" and pattern[i : i + 2] == "&&":
                return "a class intersection (&&)"
            if char == "]":
                depth_class = 0
            i += 1
            continue
        if char == "[":
            depth_class = 1
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            if i < n and pattern[i] == "]":  # a ] first in a class is literal
                i += 1
            continue
        if char in "*+?}" and i + 1 < n and pattern[i + 1] == "+" and not rules.possessive:
            return "a possessive quantifier"
        if char == "(" and pattern[i : i + 2] == "(?":
            rest = pattern[i + 2 :]
            if not rest.startswith((":", "=", "!", "<=", "<!")):
                refused = rules.group(rest, i == 0)
                if refused:
                    return refused
        i += 1
    return None
