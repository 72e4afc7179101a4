"""Metric expressions: a check's metric → PySpark Columns over one batch (no SQL text is pasted).

Row-level metrics become one aggregate Column each, so all of a batch's row-level checks are
computed by one `agg()` pass (Deequ's AnalysisRunner):

- conditional_count: `count_if(predicate)`; the predicate also selects the check's error rows;
- aggregate: avg/sum/min/max of a numeric column (NULLs ignored, as SQL aggregates do).

Statistic semantics (DESIGN.md, "Rules: templates are data"), decided here:

- null_or_empty: NULL, or '' for string columns (not trimmed: ' ' is a value); NULL only otherwise.
- regexp_mismatch: non-NULL values that do not match the Java regex, search semantics (`rlike`;
  anchor with ^...$ for a full match). The pattern is passed to Spark as a value, never inside SQL
  text, so backslashes reach the regex engine unchanged. Non-string columns are matched on their
  string form. Most patterns run as a precompiled automaton on the UTF-8 bytes (fast_regex.py,
  jvm.py), with RLIKE's exact answers; the others run as RLIKE.
- not_in_list_or_null: NULL, or a value not in the list. A string column is compared with the
  values as strings; another column type with the values converted to that type (try_cast: a
  value that cannot be converted, like 'abc' for an int column, matches nothing).
- length_compare: `length(value) <op> length` over the string form; NULL has no length and is
  not counted.
- time_between: rows whose time is within [begin, end], both inclusive. Timestamp, timestamp_ntz
  and date columns are compared as timestamps (a date is its midnight); string columns are parsed
  with the given Spark datetime pattern (or Spark's default timestamp parsing without one) using
  try_to_timestamp, so unparseable text is NULL and not counted. begin/end are
  'YYYY-MM-DD HH:MM:SS' (ISO forms accepted) in the session time zone.
- outside_range: non-NULL values below min or above max (either bound optional, bounds
  excluded from the violation: value == min is fine). Numeric columns with number bounds; date and
  timestamp columns with ISO date/time bounds.
- aggregate: avg/sum/min/max over the numeric column's non-NULL values; NULL when there are none.

Not row-level, computed by runner.py, listed here so the semantics live in one place:

- duplicate_values: the number of distinct non-NULL values occurring more than once; its error
  rows are every row holding such a value.
- unmatched_rows (accuracy): source rows with no target row matching all mapping columns
  (DESIGN.md). Operator `=` is SQL equality: a NULL matches nothing, so a source row with a NULL in
  a mapped column is unmatched. `<=>` is the explicit null-safe option: NULL matches NULL (never
  ''). `!=`, `<`, `<=`, `>`, `>=` are SQL comparisons (NULL matches nothing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from dq_engine.errors import CheckError
from dq_engine.jvm import fast_rlike
from dq_engine.spec import AGGREGATES, LENGTH_OPERATORS, Metric

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import DataType, StructField

ROW_LEVEL_KINDS = ("conditional_count", "aggregate")


@dataclass(frozen=True)
class RowMetric:
    """One check's share of the fused aggregate pass."""

    aggregate: Column  # one value per batch
    predicate: Column | None  # the offending rows (conditional counts only)


def quote_identifier(name: str) -> str:
    """A column name as a backtick-quoted Spark identifier (dots, spaces, unicode all safe)."""
    return "`" + name.replace("`", "``") + "`"


def resolve_column(df: DataFrame, name: Any) -> tuple[StructField, Column]:
    """The batch's field for a column name: exact match first, then case-insensitive like Spark."""
    from pyspark.sql import functions as F

    if not isinstance(name, str) or not name:
        raise CheckError("The check names no column.")
    fields = df.schema.fields
    matches = [f for f in fields if f.name == name] or [f for f in fields if f.name.casefold() == name.casefold()]
    if not matches:
        shown = ", ".join(f.name for f in fields[:12]) + (f", and {len(fields) - 12} more" if len(fields) > 12 else "")
        raise CheckError(f"Unknown column {name!r}; the batch has the columns {shown}.")
    if len(matches) > 1:
        raise CheckError(f"Column {name!r} is ambiguous: the batch has {', '.join(f.name for f in matches)}.")
    field = matches[0]
    return field, F.col(quote_identifier(field.name))


def row_metric(df: DataFrame, metric: Metric, spark: SparkSession) -> RowMetric:
    """Build a conditional count or an aggregate for the fused pass (raises CheckError)."""
    from pyspark.sql import functions as F

    if metric.kind == "aggregate":
        return RowMetric(aggregate=aggregate_column(df, metric), predicate=None)
    predicate = build_predicate(df, metric, spark)
    return RowMetric(aggregate=F.count_if(predicate), predicate=predicate)


def build_predicate(df: DataFrame, metric: Metric, spark: SparkSession) -> Column:
    builders = {
        "null_or_empty": _null_or_empty,
        "regexp_mismatch": _regexp_mismatch,
        "not_in_list_or_null": _not_in_list_or_null,
        "length_compare": _length_compare,
        "time_between": _time_between,
        "outside_range": _outside_range,
    }
    field, column = resolve_column(df, metric.get("column"))
    return builders[metric.predicate](field, column, metric, spark)


def _null_or_empty(field: StructField, column: Column, metric: Metric, spark: SparkSession) -> Column:
    if _is_string(field.dataType):
        return column.isNull() | (column == "")
    return column.isNull()


def _regexp_mismatch(field: StructField, column: Column, metric: Metric, spark: SparkSession) -> Column:
    pattern = metric.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise CheckError("The regular expression is empty.")
    check_java_regex(spark, pattern)
    text = column if _is_string(field.dataType) else column.cast("string")
    matches = fast_rlike(spark, text, pattern)  # the same answer as rlike, from an automaton
    if matches is None:
        matches = text.rlike(pattern)
    return column.isNotNull() & ~matches


def check_java_regex(spark: SparkSession, pattern: str) -> None:
    """Compile the pattern with Java's regex engine (the one Spark uses), so a bad pattern is this
    check's error before the fused pass runs rather than a failure of the whole pass."""
    try:
        spark.sparkContext._jvm.java.util.regex.Pattern.compile(pattern)
    except Exception as exc:  # noqa: BLE001 - py4j wraps PatternSyntaxException
        from dq_engine.errors import describe

        detail = (describe(exc).splitlines() or ["syntax error"])[0]
        raise CheckError(f"Not a valid regular expression ({detail}): {pattern!r}.")


def _not_in_list_or_null(field: StructField, column: Column, metric: Metric, spark: SparkSession) -> Column:
    from pyspark.sql import functions as F

    values = metric.get("values")
    if not isinstance(values, list):
        raise CheckError("The list of allowed values must be a list.")
    values = [v for v in values if v is not None]
    if not values:
        return F.lit(True)  # nothing is allowed: every row is outside the (empty) list
    if _is_string(field.dataType):
        allowed = [F.lit(_as_text(v)) for v in values]
    elif _is_atomic(field.dataType):
        allowed = [F.lit(_as_text(v) if isinstance(v, bool) else v).try_cast(field.dataType) for v in values]
    else:
        raise CheckError(f"Column {field.name!r} holds {field.dataType.simpleString()} values, which cannot be listed.")
    # IN gives NULL (not false) when a try_cast'ed value is NULL and nothing matched: coalesce.
    return column.isNull() | ~F.coalesce(column.isin(*allowed), F.lit(False))


def _length_compare(field: StructField, column: Column, metric: Metric, spark: SparkSession) -> Column:
    from pyspark.sql import functions as F

    operator, length = metric.get("operator"), metric.get("length")
    if operator not in LENGTH_OPERATORS:
        raise CheckError(f"The length operator must be one of {' '.join(LENGTH_OPERATORS)}; got {operator!r}.")
    if isinstance(length, bool) or not isinstance(length, int | float | str):
        raise CheckError(f"The length must be a whole number; got {length!r}.")
    try:
        limit = int(length)
    except ValueError:
        raise CheckError(f"The length must be a whole number; got {length!r}.")
    if not _is_string(field.dataType) and field.dataType.typeName() != "binary":
        column = column.cast("string")
    return compare(F.length(column), operator, F.lit(limit))


def compare(left: Column, operator: str, right: Column) -> Column:
    """left <operator> right for the operators of length checks and accuracy mappings."""
    if operator == "=":
        return left == right
    if operator in ("<>", "!="):
        return left != right
    if operator == "<":
        return left < right
    if operator == "<=":
        return left <= right
    if operator == ">":
        return left > right
    if operator == ">=":
        return left >= right
    raise CheckError(f"Unknown operator {operator!r}.")


TIMESTAMP_PATTERN = "yyyy-MM-dd HH:mm:ss.SSSSSS"


def _time_between(field: StructField, column: Column, metric: Metric, spark: SparkSession) -> Column:
    from pyspark.sql import functions as F

    begin = _timestamp_literal(metric.get("begin"), "begin time")
    end = _timestamp_literal(metric.get("end"), "deadline")
    kind = field.dataType.typeName()
    if kind == "timestamp":
        moment = column
    elif kind in ("timestamp_ntz", "date"):
        moment = column.cast("timestamp")
    elif _is_string(field.dataType):
        pattern = metric.get("format")
        if pattern:
            check_datetime_pattern(spark, pattern)
            moment = F.try_to_timestamp(column, F.lit(pattern))
        else:
            moment = F.try_to_timestamp(column)
    else:
        raise CheckError(
            f"Column {field.name!r} holds {field.dataType.simpleString()} values; timeliness needs a timestamp, "
            "date or text column."
        )
    return moment.isNotNull() & (moment >= begin) & (moment <= end)


def _timestamp_literal(text: Any, what: str) -> Column:
    from pyspark.sql import functions as F

    moment = _parse_datetime(text, what)
    return F.try_to_timestamp(F.lit(moment.strftime("%Y-%m-%d %H:%M:%S.%f")), F.lit(TIMESTAMP_PATTERN))


def _parse_datetime(text: Any, what: str) -> datetime:
    if not isinstance(text, str) or not text.strip():
        raise CheckError(f"The {what} is missing; use the form YYYY-MM-DD HH:MM:SS.")
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise CheckError(f"The {what} {text!r} is not a date and time; use the form YYYY-MM-DD HH:MM:SS.")
    if moment.tzinfo is not None:
        raise CheckError(f"The {what} {text!r} has a UTC offset; give local time (the session's time zone).")
    return moment


def check_datetime_pattern(spark: SparkSession, pattern: str) -> None:
    """Refuse a datetime pattern Java's formatter cannot read, before the fused pass runs."""
    if not isinstance(pattern, str):
        raise CheckError("The datetime format must be text, e.g. yyyy-MM-dd HH:mm:ss.")
    try:
        spark.sparkContext._jvm.java.time.format.DateTimeFormatter.ofPattern(pattern)
    except Exception:  # noqa: BLE001
        raise CheckError(f"The datetime format {pattern!r} is not a valid pattern (e.g. yyyy-MM-dd HH:mm:ss).")


def _outside_range(field: StructField, column: Column, metric: Metric, spark: SparkSession) -> Column:
    from functools import reduce

    low, high = metric.get("min"), metric.get("max")
    if low is None and high is None:
        raise CheckError("Give a minimum, a maximum, or both.")
    bounds = [(_bound(field, value, "minimum"), "<") for value in [low] if value is not None]
    bounds += [(_bound(field, value, "maximum"), ">") for value in [high] if value is not None]
    outside = reduce(lambda a, b: a | b, [compare(column, op, bound) for bound, op in bounds])
    return column.isNotNull() & outside


def _bound(field: StructField, value: Any, what: str) -> Column:
    from pyspark.sql import functions as F

    kind = field.dataType.typeName()
    if _is_numeric(field.dataType):
        return F.lit(_number(value, what))
    if kind in ("date", "timestamp", "timestamp_ntz"):
        if not isinstance(value, str):
            raise CheckError(f"The {what} for a {kind} column must be a date or time like 2026-11-30; got {value!r}.")
        if kind == "date":
            try:
                date.fromisoformat(value.strip())
            except ValueError:
                raise CheckError(f"The {what} {value!r} is not a date (YYYY-MM-DD).")
        else:
            _parse_datetime(value, what)
        return F.lit(value.strip()).try_cast(field.dataType)
    raise CheckError(
        f"Column {field.name!r} holds {field.dataType.simpleString()} values; a value range needs a numeric, "
        "date or timestamp column."
    )


def _number(value: Any, what: str) -> int | float:
    if isinstance(value, bool):
        raise CheckError(f"The {what} must be a number; got {value!r}.")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    if isinstance(value, str | Decimal):
        try:
            number = Decimal(str(value).strip())
        except InvalidOperation:
            raise CheckError(f"The {what} must be a number; got {value!r}.")
        if number.is_finite():
            return int(number) if number == number.to_integral_value() else float(number)
    raise CheckError(f"The {what} must be a number; got {value!r}.")


def aggregate_column(df: DataFrame, metric: Metric) -> Column:
    from pyspark.sql import functions as F

    function = metric.get("function")
    if function not in AGGREGATES:
        raise CheckError(f"The aggregate must be one of {', '.join(AGGREGATES)}; got {function!r}.")
    field, column = resolve_column(df, metric.get("column"))
    if not _is_numeric(field.dataType):
        raise CheckError(
            f"Column {field.name!r} holds {field.dataType.simpleString()} values; {function} needs a numeric column."
        )
    return {"avg": F.avg, "sum": F.sum, "min": F.min, "max": F.max}[function](column)


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _is_string(data_type: DataType) -> bool:
    from pyspark.sql.types import CharType, StringType, VarcharType

    return isinstance(data_type, StringType | CharType | VarcharType)


def _is_numeric(data_type: DataType) -> bool:
    from pyspark.sql.types import NumericType

    return isinstance(data_type, NumericType)


def _is_atomic(data_type: DataType) -> bool:
    from pyspark.sql.types import ArrayType, MapType, StructType

    return not isinstance(data_type, ArrayType | MapType | StructType) and data_type.typeName() not in (
        "variant",
        "void",
    )
