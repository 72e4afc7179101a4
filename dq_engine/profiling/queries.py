"""The figures of a profile as SQLGlot expressions, built once for every engine.

A profile reads the batch in two aggregate steps (after its row count):

1. ONE aggregate over every column (`first_pass`): non-NULL values, distinct values, and by kind
   min, max, mean, stddev, sum and quantiles (numbers), min, max and quantiles (times), lengths
   and empty strings (strings).
2. ONE set of group counts (`second_pass`), with what the first step told: a numeric column's
   histogram bucket (equal-width bins between its min and max), a low-cardinality column's values
   (its top values; for strings, their shapes are then matched in Python over those values), a
   high-cardinality string column's shapes as a bit mask of the three patterns. An engine counts
   them in one scan where it can (DuckDB's `histogram` aggregates, Spark's `inline` + GROUP BY),
   else one GROUP BY each.

What differs between engines is asked of its `ProfileDialect`: the approximate distinct count, the
quantiles (exact or approximate, or none in the aggregate), the regular expression, the SQLGlot
dialect a statement is rendered in. Column names are quoted identifiers (or the engine's exact
form of the column: a case-insensitive collation would merge 'PAID' and 'paid').
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from sqlglot import exp

from dq_engine.vocabulary.expressions import BOOLEAN, DATE, NUMERIC, STRING, TIMESTAMP

NUMBER, TIME, TEXT, FLAG, OTHER = "number", "time", "string", "boolean", "other"
KINDS = {NUMERIC: NUMBER, DATE: TIME, TIMESTAMP: TIME, STRING: TEXT, BOOLEAN: FLAG}
QUANTILES = (("p01", 0.01), ("p05", 0.05), ("p25", 0.25), ("p50", 0.5), ("p75", 0.75), ("p95", 0.95), ("p99", 0.99))
# Shapes of strings, counted over non-NULL values. ASCII classes only, anchored, so that every
# engine's regex flavour (RE2, Java, PostgreSQL's, PCRE) and Python's read them alike.
SHAPES = {
    "numeric": r"^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?$",
    "date": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]+)?)?)?$",
    "email": r"^[^@ ]+@[^@ ]+[.][^@ ]+$",
}
PYTHON_SHAPES = {name: re.compile(pattern) for name, pattern in SHAPES.items()}


@dataclass(frozen=True)
class ProfileColumn:
    name: str
    type: str  # as the source reports it
    kind: str  # number | time | string | boolean | other
    ref: exp.Expression  # how a statement reads it

    def sql(self) -> exp.Expression:
        return self.ref.copy()


def kind_of(category: str) -> str:
    return KINDS.get(category, OTHER)


class ProfileDialect:
    """An engine's hooks. The defaults are exact (COUNT(DISTINCT), no quantile aggregate)."""

    name = ""  # the SQLGlot dialect statements are rendered in

    def distinct(self, column: exp.Expression, exact: bool) -> tuple[exp.Expression, bool]:
        """(the distinct count's aggregate, whether it is exact)."""
        return exp.Count(this=exp.Distinct(expressions=[column])), True

    def quantiles(self, column: exp.Expression, kind: str, exact: bool) -> tuple[exp.Expression, bool] | None:
        """(an aggregate giving the QUANTILES as one list, whether exact), or None when the engine
        computes them apart (`backend.quantiles`) or not at all."""
        return None

    def regex(self, text: exp.Expression, pattern: str) -> exp.Expression:
        return exp.RegexpLike(this=text, expression=exp.Literal.string(pattern))

    def flag(self, condition: exp.Expression) -> exp.Expression:
        """1 where the condition holds, 0 where not (NULL for a NULL value: its group is left out).
        A cast, not a CASE: half the cost on DuckDB."""
        return exp.cast(exp.Paren(this=condition), exp.DataType.build("INT"))

    def double(self, value: exp.Expression) -> exp.Expression:
        return exp.cast(value, exp.DataType.build("DOUBLE"))


def fractions() -> exp.Array:
    return exp.Array(expressions=[exp.Literal.number(repr(f)) for _, f in QUANTILES])


# --- step 1 ------------------------------------------------------------------------------------
@dataclass
class FirstPass:
    """Per column, its figures' names and aggregates (in order), and what the dialect said."""

    figures: dict[str, list[tuple[str, exp.Expression]]] = field(default_factory=dict)
    distinct_exact: dict[str, bool] = field(default_factory=dict)
    quantiles_exact: dict[str, bool | None] = field(default_factory=dict)


def _count_where(condition: exp.Expression) -> exp.Expression:
    # COUNT(CASE ...): COUNT_IF is not in every database, and this is 0 over no rows everywhere.
    return exp.Count(this=exp.Case(ifs=[exp.If(this=condition, true=exp.Literal.number(1))]))


def first_pass(columns: list[ProfileColumn], dialect: ProfileDialect, exact: bool) -> FirstPass:
    plan = FirstPass()
    for column in columns:
        ref = column.sql
        figures: list[tuple[str, exp.Expression]] = [("values", exp.Count(this=ref()))]
        if column.kind != OTHER:
            distinct, is_exact = dialect.distinct(ref(), exact)
            figures.append(("distinct", distinct))
            plan.distinct_exact[column.name] = is_exact
        if column.kind in (NUMBER, TIME):
            figures += [("min", exp.Min(this=ref())), ("max", exp.Max(this=ref()))]
            quantiles = dialect.quantiles(ref(), column.kind, exact)
            if quantiles is not None:
                figures.append(("quantiles", quantiles[0]))
            plan.quantiles_exact[column.name] = None if quantiles is None else quantiles[1]
        if column.kind == NUMBER:
            figures += [
                # Means in doubles on every engine: Spark and MariaDB round a decimal's AVG to a few places.
                ("mean", exp.Avg(this=dialect.double(ref()))),
                ("stddev", exp.StddevSamp(this=dialect.double(ref()))),
                ("sum", exp.Sum(this=ref())),
            ]
        if column.kind == TEXT:
            length = exp.Length(this=ref())
            figures += [
                ("length_min", exp.Min(this=length.copy())),
                ("length_max", exp.Max(this=length.copy())),
                ("length_mean", exp.Avg(this=dialect.double(length.copy()))),
                # A length of 0, not `= ''`: a PAD SPACE collation takes ' ' for ''.
                ("empty", _count_where(exp.EQ(this=length.copy(), expression=exp.Literal.number(0)))),
            ]
        plan.figures[column.name] = figures
    return plan


# --- step 2 ------------------------------------------------------------------------------------
HISTOGRAM, TOP_VALUES, SHAPE_MASK = "histogram", "top_values", "shapes"


@dataclass(frozen=True)
class GroupCount:
    """Rows counted by `key` (NULL keys are left out by the reader)."""

    column: str
    purpose: str  # HISTOGRAM | TOP_VALUES | SHAPE_MASK
    key: exp.Expression
    edges: tuple[float, ...] = ()


def histogram_edges(low: float, high: float, bins: int) -> tuple[float, ...]:
    width = (high - low) / bins
    return tuple([low + width * index for index in range(bins)] + [high])


def bucket(ref: exp.Expression, low: float, high: float, bins: int, dialect: ProfileDialect) -> exp.Expression:
    """LEAST(FLOOR((value - low) / width), bins - 1), in doubles: the bin of a value, the maximum in
    the last bin. Python computes the same doubles (a test's truth does)."""
    width = (high - low) / bins
    offset = exp.Sub(this=dialect.double(ref), expression=dialect.double(exp.Literal.number(repr(low))))
    scaled = exp.Div(this=exp.Paren(this=offset), expression=dialect.double(exp.Literal.number(repr(width))))
    binned = exp.Least(this=exp.Floor(this=scaled), expressions=[exp.Literal.number(bins - 1)])
    # Only values have a bin: PostgreSQL's LEAST(NULL, 9) is 9.
    return exp.Case(ifs=[exp.If(this=exp.Not(this=exp.Is(this=ref.copy(), expression=exp.Null())), true=binned)])


def shape_mask(ref: exp.Expression, dialect: ProfileDialect) -> exp.Expression:
    """1 · numeric + 2 · date + 4 · email for a value: the three shapes counted in one GROUP BY."""
    terms = [
        exp.Mul(this=dialect.flag(dialect.regex(ref.copy(), pattern)), expression=exp.Literal.number(2**index))
        for index, pattern in enumerate(SHAPES.values())
    ]
    total = terms[0]
    for term in terms[1:]:
        total = exp.Add(this=total, expression=term)
    return total


def shapes_of(values: dict[str, int]) -> dict[str, int]:
    """The shape counts of string values given with their counts (top values), in Python."""
    return {
        name: sum(count for value, count in values.items() if isinstance(value, str) and pattern.match(value))
        for name, pattern in PYTHON_SHAPES.items()
    }


def shapes_from_masks(masks: dict[int, int]) -> dict[str, int]:
    return {
        name: sum(count for mask, count in masks.items() if int(mask) & 2**index) for index, name in enumerate(SHAPES)
    }
