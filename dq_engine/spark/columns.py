"""The vocabulary's metrics on Spark: a batch column → ColumnRef, SQLGlot → PySpark Column, and the
Spark hooks for what dialects mean differently (the meanings themselves: dq_engine/vocabulary).

Row-level metrics become one aggregate Column each, so all of a batch's row-level checks are
computed by one `agg()` pass (Deequ's AnalysisRunner). The SQLGlot expressions are rendered as
Spark SQL and handed to `F.expr`: Spark analyses them into the same plan as the Column API would
build, and every user value in them is a literal node, quoted by the renderer. The session runs
with `spark.sql.variable.substitute` off (session.py), so a `${...}` inside a value stays text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from dq_engine.errors import CheckError, column_problem
from dq_engine.spark.jvm import regex_find
from dq_engine.spec import Metric
from dq_engine.vocabulary import METRIC_KINDS, ColumnRef, Dialect
from dq_engine.vocabulary import row_metric as vocabulary_row_metric
from dq_engine.vocabulary.expressions import BINARY, BOOLEAN, DATE, NUMERIC, OTHER, STRING, TIMESTAMP

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import DataType, StructField

SQL_DIALECT = "spark"


@dataclass(frozen=True)
class RowMetric:
    """One check's share of the fused aggregate pass."""

    aggregate: Column  # one value per batch
    predicate: Column | None  # the offending rows (conditional counts only)
    marks: tuple[Column, ...] = ()  # columns its error rows carry besides the batch's (row_rules)
    findings: tuple[str, ...] = ()  # what the schema alone shows (schema_contract)


class SparkDialect(Dialect):
    """Spark's hooks: Java regexes (through the automaton when it can), Spark datetime patterns."""

    name = SQL_DIALECT

    def __init__(self, spark: SparkSession):
        self.spark = spark

    def regex_find(self, text: exp.Expression, pattern: str) -> exp.Expression:
        return regex_find(self.spark, text, pattern)

    def parse_timestamp(self, text: exp.Expression, pattern: str | None) -> exp.Expression:
        if pattern is None:
            return exp.Anonymous(this="try_to_timestamp", expressions=[text])
        check_datetime_pattern(self.spark, pattern)
        return exp.Anonymous(this="try_to_timestamp", expressions=[text, exp.Literal.string(pattern)])


def to_column(expression: exp.Expression) -> Column:
    """A SQLGlot expression as a PySpark Column (rendered in Spark SQL, analysed by Spark)."""
    from pyspark.sql import functions as F

    return F.expr(expression.sql(dialect=SQL_DIALECT))


def quote_identifier(name: str) -> str:
    """A column name as a backtick-quoted Spark identifier (dots, spaces, unicode all safe)."""
    return "`" + name.replace("`", "``") + "`"


def resolve_column(df: DataFrame, name: Any) -> tuple[StructField, Column]:
    """The batch's field for a column name: exact match first, then case-insensitive like Spark."""
    from pyspark.sql import functions as F

    fields = df.schema.fields
    matches = []
    if isinstance(name, str) and name:
        matches = [f for f in fields if f.name == name] or [f for f in fields if f.name.casefold() == name.casefold()]
    if len(matches) != 1:
        raise column_problem(name, [f.name for f in fields], [f.name for f in matches])
    field = matches[0]
    return field, F.col(quote_identifier(field.name))


def column_ref(df: DataFrame, name: Any) -> ColumnRef:
    """A batch column as the vocabulary's builders see it (raises CheckError for an unknown one)."""
    field, _ = resolve_column(df, name)
    return field_ref(field)


def field_ref(field: StructField) -> ColumnRef:
    type_name = field.dataType.simpleString()
    try:
        sql_type = exp.DataType.build(type_name, dialect=SQL_DIALECT)
    except Exception:  # noqa: BLE001 - a type SQLGlot cannot spell (void): values are not cast to it
        sql_type = None
    return ColumnRef(name=field.name, category=category(field.dataType), type=sql_type, type_name=type_name)


def category(data_type: DataType) -> str:
    """A Spark type's category (dq_engine.vocabulary.expressions.CATEGORIES)."""
    from pyspark.sql.types import (
        BinaryType,
        BooleanType,
        CharType,
        DateType,
        NumericType,
        StringType,
        TimestampNTZType,
        TimestampType,
        VarcharType,
    )

    if isinstance(data_type, StringType | CharType | VarcharType):
        return STRING
    if isinstance(data_type, NumericType):
        return NUMERIC
    if isinstance(data_type, DateType):
        return DATE
    if isinstance(data_type, TimestampType | TimestampNTZType):
        return TIMESTAMP
    if isinstance(data_type, BooleanType):
        return BOOLEAN
    if isinstance(data_type, BinaryType):
        return BINARY
    return OTHER


def row_metric(df: DataFrame, metric: Metric, spark: SparkSession) -> RowMetric:
    """A conditional count, an aggregate or row rules for the fused pass (raises CheckError)."""
    if METRIC_KINDS[metric.kind].reads_columns:
        column, columns = None, {field.name: field_ref(field) for field in df.schema.fields}
    else:
        column, columns = column_ref(df, metric.get("column")), None
    built = vocabulary_row_metric(metric.kind, column, metric.fields, SparkDialect(spark), columns)
    return RowMetric(
        aggregate=to_column(built.aggregate),
        predicate=None if built.predicate is None else to_column(built.predicate),
        marks=tuple(to_column(sql).alias(name) for name, sql in built.marks),
        findings=built.findings,
    )


def build_predicate(df: DataFrame, metric: Metric, spark: SparkSession) -> Column:
    """A conditional count's predicate as a Column (the rows it counts)."""
    predicate = row_metric(df, metric, spark).predicate
    if predicate is None:
        raise ValueError(f"{metric.kind} has no predicate.")
    return predicate


def check_datetime_pattern(spark: SparkSession, pattern: str) -> None:
    """Refuse a datetime pattern Java's formatter cannot read, before the fused pass runs."""
    try:
        spark.sparkContext._jvm.java.time.format.DateTimeFormatter.ofPattern(pattern)
    except Exception:  # noqa: BLE001
        raise CheckError(f"The datetime format {pattern!r} is not a valid pattern (e.g. yyyy-MM-dd HH:mm:ss).")
