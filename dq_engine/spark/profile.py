"""Spark's share of table profiles (dq_engine/profiling/): the batch read as runs read it
(readers.py; the filter parsed and re-rendered by sql_safety; a JDBC batch persisted, so the
database is read once), the first step as one aggregate in Spark SQL (`approx_count_distinct`,
`percentile_approx`; exact `count(DISTINCT)` and `percentile` up to the exact-rows limit), the
second as ONE scan: every request's key as a row of `inline(array(named_struct(i, key)))`, counted
by one GROUP BY. The keys travel as strings and are read back by the column's type."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from dq_engine.errors import BatchError
from dq_engine.profiling.queries import (
    FLAG,
    NUMBER,
    TIME,
    TOP_VALUES,
    GroupCount,
    ProfileColumn,
    ProfileDialect,
    fractions,
    kind_of,
)
from dq_engine.profiling.spec import ProfileSpec
from dq_engine.spark.columns import SQL_DIALECT, field_ref
from dq_engine.spec import JdbcSource
from dq_engine.sql_safety import UnsafeSQL, filter_to_spark_sql, parse_filter

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

SAMPLE_SEED = 20261130
# percentile_approx's accuracy: 1/accuracy is its relative rank error (Spark's default 10000).
ACCURACY = 10000


class SparkProfileDialect(ProfileDialect):
    name = SQL_DIALECT

    def distinct(self, column: exp.Expression, exact: bool) -> tuple[exp.Expression, bool]:
        if exact:
            return super().distinct(column, exact)
        return exp.ApproxDistinct(this=column), False

    def quantiles(self, column: exp.Expression, kind: str, exact: bool) -> tuple[exp.Expression, bool]:
        if exact and kind == NUMBER:  # interpolated, as PostgreSQL's percentile_cont
            return exp.Anonymous(this="percentile", expressions=[column, fractions()]), True
        accuracy = exp.Literal.number(ACCURACY)
        return exp.Anonymous(this="percentile_approx", expressions=[column, fractions(), accuracy]), False


def render(expression: exp.Expression) -> str:
    return expression.sql(dialect=SQL_DIALECT, comments=False)


class SparkProfile:
    dialect = SparkProfileDialect()

    def __init__(self, spark: SparkSession, spec: ProfileSpec, secrets: Mapping[str, str]):
        self.spark, self.spec, self.secrets_map = spark, spec, secrets
        self.secrets = [v for v in secrets.values() if v]
        self.view = f"dq_profile_{uuid.uuid4().hex[:10]}"
        self.persisted: list[DataFrame] = []
        self.kinds: dict[str, tuple[str, str]] = {}

    def open(self) -> list[ProfileColumn]:
        from dq_engine.spark.jvm import regex_hook
        from dq_engine.spark.messages import describe
        from dq_engine.spark.readers import describe_source, read_source

        source = self.spec.source
        try:
            frame = read_source(self.spark, source, self.secrets_map)
        except Exception as exc:  # noqa: BLE001 - any reader failure is the profile's error
            raise BatchError(f"The table could not be read ({describe_source(source)}): {describe(exc)}") from None
        if self.spec.filter:
            try:
                parsed = parse_filter(self.spec.filter, frame.columns)
                frame = frame.where(filter_to_spark_sql(parsed, regex=regex_hook(self.spark)))
            except UnsafeSQL as exc:
                raise BatchError(f"The filter was refused: {exc}") from None
            except Exception as exc:  # noqa: BLE001 - Spark's analysis of the filter
                raise BatchError(f"The filter cannot be applied: {describe(exc)}") from None
        self._use(frame)
        columns = []
        for field in frame.schema.fields:
            ref = field_ref(field)
            kind = kind_of(ref.category)
            self.kinds[field.name] = (kind, field.dataType.typeName())
            columns.append(ProfileColumn(field.name, ref.type_name, kind, exp.column(field.name, quoted=True)))
        return columns

    def _use(self, frame: DataFrame) -> None:
        if isinstance(self.spec.source, JdbcSource):  # every step reads it: the database once
            from pyspark import StorageLevel

            frame = frame.persist(StorageLevel.MEMORY_AND_DISK)
            self.persisted.append(frame)
        self.frame = frame
        frame.createOrReplaceTempView(self.view)

    def count(self) -> int:
        return self.frame.count()

    def sample(self, fraction: float) -> None:
        self._use(self.frame.sample(fraction=fraction, seed=SAMPLE_SEED))

    def aggregate(self, expressions: list[exp.Expression]) -> tuple[Any, ...]:
        selected = ", ".join(render(e) for e in expressions)
        # Rendered from SQLGlot trees over quoted identifiers; the view's name is the engine's own.
        return tuple(self.spark.sql(f"SELECT {selected} FROM {self.view}").collect()[0])  # noqa: S608

    def group_counts(self, requests: list[GroupCount]) -> list[dict[Any, int]]:
        """ONE scan: each row yields (request, key) pairs, counted by one GROUP BY."""
        pairs = ", ".join(
            f"named_struct('dq_i', {index}, 'dq_k', CAST({render(r.key)} AS STRING))"
            for index, r in enumerate(requests)
        )
        query = (
            f"SELECT dq_i, dq_k, count(1) AS dq_n FROM (SELECT inline(array({pairs})) FROM {self.view}) "  # noqa: S608
            "WHERE dq_k IS NOT NULL GROUP BY dq_i, dq_k"
        )
        answers: list[dict[Any, int]] = [{} for _ in requests]
        for index, key, count in self.spark.sql(query).collect():
            request = requests[index]
            answers[index][self._typed(request, key)] = int(count)
        return answers

    def _typed(self, request: GroupCount, key: str) -> Any:
        if request.purpose != TOP_VALUES:
            return int(float(key))
        kind, type_name = self.kinds[request.column]
        if kind == NUMBER:
            return int(key) if type_name in ("byte", "short", "integer", "long") else float(key)
        if kind == TIME:
            return date.fromisoformat(key) if type_name == "date" else datetime.fromisoformat(key)
        if kind == FLAG:
            return key == "true"
        return key

    def explain(self, exc: BaseException) -> str:
        from dq_engine.spark.messages import explain

        return explain(exc)

    def close(self) -> None:
        try:
            self.spark.catalog.dropTempView(self.view)
        finally:
            for frame in self.persisted:
                frame.unpersist()
