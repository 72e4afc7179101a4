"""What a metric's meaning is built from: a column as every engine describes it, the hooks where
SQL dialects disagree, and small SQLGlot helpers.

Predicates and metrics (predicates.py, metrics.py) build dialect-neutral SQLGlot expressions from a
`ColumnRef` and the metric's fields; each engine renders them in its dialect (Spark: `F.expr` of the
Spark SQL text; the SQL engines: their database's SQL). Literals are SQLGlot literal nodes, so a
value is quoted by the renderer and never pasted into SQL text.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from sqlglot import exp

from dq_engine.errors import CheckError
from dq_engine.words import fragment, gettext_noop, say

# The messages (dq_engine/words.py: the platform translates them).
HOLDS = fragment(gettext_noop("Column %(name)s holds %(kind)s values"), "column")
TIME_PATTERN = gettext_noop("This engine cannot read times with the pattern %(pattern)s.")
UNKNOWN_OPERATOR = gettext_noop("Unknown operator %(operator)s; use one of %(names)s.")
NOT_WHOLE = gettext_noop("The %(what)s must be a whole number; got %(value)s.")
NOT_NUMBER = gettext_noop("The %(what)s must be a number; got %(value)s.")

# A column's type category: what the predicates decide on. Engines map their own types onto these.
STRING, NUMERIC, DATE, TIMESTAMP, BOOLEAN, BINARY, OTHER = (
    "string",
    "numeric",
    "date",
    "timestamp",
    "boolean",
    "binary",
    "other",
)
CATEGORIES = (STRING, NUMERIC, DATE, TIMESTAMP, BOOLEAN, BINARY, OTHER)


@dataclass(frozen=True)
class ColumnRef:
    """A batch column as the engine resolved it.

    - `name`: the column's name as the batch spells it (quoted when rendered);
    - `category`: one of CATEGORIES;
    - `type`: the column's type as a SQLGlot DataType (values are cast to it, e.g. an enumeration's
      values for an int column); None when the engine cannot express it;
    - `type_name`: the type as the engine names it, for messages (`decimal(10,2)`).
    """

    name: str
    category: str
    type: exp.DataType | None = None
    type_name: str = ""

    @property
    def sql(self) -> exp.Column:
        return exp.column(self.name, quoted=True)

    def describe(self) -> str:
        return say(HOLDS, name=repr(self.name), kind=self.type_name or self.category)


class Dialect:
    """The hooks an engine gives where dialects differ in meaning, not only in spelling.

    The defaults are standard SQL; an engine overrides what its dialect does differently (Spark:
    Java regexes through its automaton, Spark datetime patterns).
    """

    name = ""  # the SQLGlot dialect the engine renders with

    def regex_find(self, text: exp.Expression, pattern: str) -> exp.Expression:
        """True when `pattern` (a Java regular expression) occurs in `text` (search, not full match).
        Raises CheckError for a pattern the engine cannot run."""
        return exp.RegexpLike(this=text, expression=string(pattern))

    def parse_timestamp(self, text: exp.Expression, pattern: str | None) -> exp.Expression:
        """`text` read as a timestamp with a Spark datetime pattern (or the default form without
        one); NULL where it does not parse. Raises CheckError for a pattern the engine cannot use."""
        if pattern:
            raise CheckError(say(TIME_PATTERN, pattern=repr(pattern)))
        return try_cast(text, exp.DataType.build("timestamp"))


# --- SQLGlot helpers ---------------------------------------------------------------------------
def string(value: str) -> exp.Literal:
    return exp.Literal.string(value)


def number(value: int | float | Decimal) -> exp.Expression:
    """A numeric literal (an exact decimal for a float's shortest form: 10.5 is 10.5)."""
    if isinstance(value, float):
        text = repr(value)
    else:
        text = str(value)
    return exp.Literal.number(text)


def try_cast(value: exp.Expression, to: exp.DataType) -> exp.Expression:
    """CAST that gives NULL instead of an error (SQLGlot renders TryCast as a plain CAST unless `safe`)."""
    return exp.TryCast(this=value, to=to, safe=True)


def cast(value: exp.Expression, to: str | exp.DataType) -> exp.Expression:
    return exp.cast(value, to)


def is_null(value: exp.Expression) -> exp.Expression:
    return exp.Is(this=value, expression=exp.Null())


def is_not_null(value: exp.Expression) -> exp.Expression:
    return negate(is_null(value))


def negate(condition: exp.Expression) -> exp.Expression:
    """NOT (condition): parenthesised, so no dialect's NOT precedence can change its meaning."""
    return exp.Not(this=exp.Paren(this=condition))


def all_of(*conditions: exp.Expression) -> exp.Expression:
    return exp.and_(*(exp.Paren(this=c) for c in conditions))


def any_of(*conditions: exp.Expression) -> exp.Expression:
    return exp.or_(*(exp.Paren(this=c) for c in conditions))


_COMPARISONS = {
    "=": exp.EQ,
    "<>": exp.NEQ,
    "!=": exp.NEQ,
    "<": exp.LT,
    "<=": exp.LTE,
    ">": exp.GT,
    ">=": exp.GTE,
    "<=>": exp.NullSafeEQ,
}


def compare(left: exp.Expression, operator: str, right: exp.Expression) -> exp.Expression:
    """left <operator> right, for length operators and accuracy mappings (`<=>`: NULL matches NULL)."""
    node = _COMPARISONS.get(operator)
    if node is None:
        raise CheckError(say(UNKNOWN_OPERATOR, operator=repr(operator), names=" ".join(_COMPARISONS)))
    return node(this=left, expression=right)


def as_text(column: ColumnRef) -> exp.Expression:
    """The column's string form (itself for a string column)."""
    return column.sql if column.category == STRING else cast(column.sql, "TEXT")


def whole_number(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise CheckError(say(NOT_WHOLE, what=what, value=repr(value)))
    try:
        return int(value)
    except ValueError:
        raise CheckError(say(NOT_WHOLE, what=what, value=repr(value)))


def finite_number(value: Any, what: str) -> int | float:
    """A bound as an int or a float (numbers and numeric text accepted); CheckError otherwise."""
    if isinstance(value, bool):
        raise CheckError(say(NOT_NUMBER, what=what, value=repr(value)))
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, str | Decimal):
        try:
            parsed = Decimal(str(value).strip())
        except InvalidOperation:
            raise CheckError(say(NOT_NUMBER, what=what, value=repr(value)))
        if parsed.is_finite():
            return int(parsed) if parsed == parsed.to_integral_value() else float(parsed)
    raise CheckError(say(NOT_NUMBER, what=what, value=repr(value)))
