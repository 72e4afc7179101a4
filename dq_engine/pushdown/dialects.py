"""What the pushdown engine asks of the source's database kind (dq_engine/databases/), and the
literal casts it folds in Python.

Regular expressions run in the database, with its semantics (README "Pushdown: where the
database's answers differ"); a Java construct the database would read differently or not at all is
refused for pushdown (the kind's `regex_problem`), with the reason; the batch then goes to Spark.
Times in text (`time_between` on a string column) are parsed by Spark's datetime patterns, which no
database has; such a check is refused for pushdown too (databases.TEXT_TIMES).

Literal casts the vocabulary asks to be "safe" (TRY_CAST: a listed value that is not a number for
an int column matches nothing) are folded here, in Python: a value that converts is cast, one that
does not becomes NULL, as TRY_CAST would give (neither database has TRY_CAST).
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation

from sqlglot import exp

from dq_engine.databases import NOT_PUSHED, TEXT_TIMES, kind_named
from dq_engine.errors import CheckError
from dq_engine.vocabulary import Dialect

__all__ = ["DIALECTS", "NOT_PUSHED", "TEXT_TIMES", "fold_safe_casts", "regex_problem"]


class _Dialects:
    """`DIALECTS[name]()`: the vocabulary's hooks of the database kind `name`."""

    def __getitem__(self, name: str):
        return lambda: _hooks(name)


def _hooks(name: str) -> Dialect:
    return kind_named(name).vocabulary()


DIALECTS = _Dialects()


def regex_problem(pattern: str, dialect: str) -> str | None:
    """Why the database would not run a Java regex as Java does, or None."""
    return kind_named(dialect).regex_problem(pattern)


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
