"""The vocabulary's hooks for PostgreSQL and MySQL/MariaDB, and what they refuse.

Regular expressions run in the database, with its semantics (README "Pushdown: where the
database's answers differ"): PostgreSQL's `~` (POSIX advanced regular expressions), MariaDB's
`REGEXP_INSTR` (PCRE2; `(?-i)` in front, so a case-insensitive collation does not make the match
case-insensitive, as Java's is not). A Java construct the database would read differently or not
at all is refused for pushdown (`regex_problem`), with the reason; the batch then goes to Spark.

Times in text (`time_between` on a string column) are parsed by Spark's datetime patterns,
which neither database has; such a check is refused for pushdown too. Literal casts the
vocabulary asks to be "safe" (TRY_CAST: a listed value that is not a number for an int column
matches nothing) are folded here, in Python: a value that converts is cast, one that does not
becomes NULL, as TRY_CAST would give (neither database has TRY_CAST).
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

from sqlglot import exp

from dq_engine.errors import CheckError
from dq_engine.pushdown.connection import MYSQL, POSTGRES
from dq_engine.vocabulary import Dialect
from dq_engine.vocabulary.expressions import string


class PostgresDialect(Dialect):
    name = POSTGRES

    def regex_find(self, text: exp.Expression, pattern: str) -> exp.Expression:
        problem = regex_problem(pattern, POSTGRES)
        if problem:
            raise CheckError(problem)
        return exp.RegexpLike(this=text, expression=string(pattern))  # rendered `text ~ 'pattern'`

    def parse_timestamp(self, text: exp.Expression, pattern: str | None) -> exp.Expression:
        raise CheckError(TEXT_TIMES)


class MySQLDialect(Dialect):
    name = MYSQL

    def regex_find(self, text: exp.Expression, pattern: str) -> exp.Expression:
        problem = regex_problem(pattern, MYSQL)
        if problem:
            raise CheckError(problem)
        found = exp.Anonymous(this="REGEXP_INSTR", expressions=[text, string("(?-i)" + pattern)])
        return exp.GT(this=found, expression=exp.Literal.number(0))

    def parse_timestamp(self, text: exp.Expression, pattern: str | None) -> exp.Expression:
        raise CheckError(TEXT_TIMES)


DIALECTS = {POSTGRES: PostgresDialect, MYSQL: MySQLDialect}
TEXT_TIMES = (
    "Times held as text are read with Spark's datetime patterns, which the database does not have; "
    "Spark runs this check."
)
NOT_PUSHED = "Pushdown refused"  # the prefix of every refusal's message (the selection reads it)


# --- regular expressions -------------------------------------------------------------------------
# Escapes Java and the database read differently, or the database does not know.
_PG_ESCAPES = {
    "p": "Unicode classes (\\p{...})",
    "P": "Unicode classes (\\P{...})",
    "b": "\\b (a word boundary in Java, a backspace in PostgreSQL, whose boundary is \\y)",
    "B": "\\B (PostgreSQL's is \\Y)",
    "Q": "quoting with \\Q...\\E",
    "E": "quoting with \\Q...\\E",
    "z": "\\z",
    "Z": "\\Z (before a final line break in Java)",
    "G": "\\G",
    "h": "\\h",
    "H": "\\H",
    "R": "\\R",
    "X": "\\X",
    "K": "\\K",
    "v": "\\v (vertical whitespace in Java, a vertical tab in PostgreSQL)",
    "V": "\\V",
    "N": "\\N",
}
_MY_ESCAPES = {"u": "\\u escapes (write \\x{...})", "N": "\\N"}
_SHORT_PROPERTY = re.compile(r"^\^?(L&|[A-Z][a-z]?)$")


def regex_problem(pattern: str, dialect: str) -> str | None:
    """Why the database would not run a Java regex as Java does, or None."""
    what = "PostgreSQL" if dialect == POSTGRES else "MariaDB/MySQL (PCRE2)"
    refused = _scan(pattern, dialect)
    if refused:
        return f"{NOT_PUSHED}: the regular expression uses {refused}, which {what} reads differently; Spark runs it."
    return None


def _scan(pattern: str, dialect: str) -> str | None:
    escapes = _PG_ESCAPES if dialect == POSTGRES else _MY_ESCAPES
    i, depth_class, n = 0, 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            if depth_class == 0 and nxt in escapes:
                return escapes[nxt]
            if depth_class and nxt in ("p", "P") and dialect == POSTGRES:
                return escapes[nxt]
            if nxt in ("p", "P") and dialect == MYSQL:
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
        if char in "*+?}" and i + 1 < n and pattern[i + 1] == "+" and dialect == POSTGRES:
            return "a possessive quantifier"
        if char == "(" and pattern[i : i + 2] == "(?":
            refused = _group(pattern[i + 2 :], i == 0, dialect)
            if refused:
                return refused
        i += 1
    return None


def _group(rest: str, at_start: bool, dialect: str) -> str | None:
    if rest.startswith((":", "=", "!", "<=", "<!")):
        return None
    if dialect == POSTGRES:
        if rest.startswith(">"):
            return "an atomic group (?>...)"
        if rest.startswith(("<", "P<")):
            return "a named group"
        if rest.startswith("i)") and at_start:
            return None
        return "inline flags (PostgreSQL takes only a leading (?i) with Java's meaning)"
    flags = re.match(r"^([a-zA-Z-]*)[):]", rest)
    if flags and set(flags.group(1)) - set("imsx-"):
        return f"the inline flags (?{flags.group(1)}) (PCRE2 reads U, u, d and c otherwise than Java)"
    return None


# --- safe casts of literals ----------------------------------------------------------------------
def fold_safe_casts(tree: exp.Expression) -> exp.Expression:
    """Replace every TRY_CAST of a literal by a CAST (the value converts) or NULL (it does not)."""

    def fold(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.TryCast) and isinstance(node.this, exp.Literal):
            if _converts(node.this, node.to):
                return exp.Cast(this=node.this.copy(), to=node.to.copy())
            return exp.Null()
        if isinstance(node, exp.TryCast):
            raise CheckError("The database has no safe cast for this value; Spark runs this check.")
        return node

    return tree.transform(fold)


def _converts(literal: exp.Literal, to: exp.DataType) -> bool:
    text = literal.this.strip()
    if to.is_type(*exp.DataType.INTEGER_TYPES):
        return re.fullmatch(r"[+-]?\d+", text) is not None
    if to.is_type(*exp.DataType.REAL_TYPES):
        try:
            return Decimal(text).is_finite()
        except InvalidOperation:
            return False
    if to.is_type(exp.DataType.Type.DATE):
        try:
            date.fromisoformat(text)
            return True
        except ValueError:
            return False
    if to.is_type(*exp.DataType.TEMPORAL_TYPES):
        try:
            datetime.fromisoformat(text)
            return True
        except ValueError:
            return False
    if to.is_type(exp.DataType.Type.BOOLEAN):
        return text.lower() in ("true", "false", "1", "0", "t", "f")
    return to.is_type(*exp.DataType.TEXT_TYPES)
