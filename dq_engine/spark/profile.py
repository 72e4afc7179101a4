"""Spark's share of table profiles (dq_engine/profiling/): the batch read as runs read it
(readers.py; the filter parsed and re-rendered by sql_safety; a JDBC batch persisted, so the
database is read once), the first step's aggregate in Spark SQL (`approx_count_distinct`,
`percentile_approx`; exact `count(DISTINCT)` and `percentile` up to the exact-rows limit), the
second as a scan where every request's key is a row of `inline(array(named_struct(i, key)))`,
counted by one GROUP BY. The keys travel as strings and are read back by the column's type.

Why each step is several Spark jobs run at the same time (measured in bench/README.md, "Table
profiles"): an imperative aggregate (the distinct counts and quantiles) takes whole-stage code
generation away from every aggregate of its query, so the plain figures (min, max, sums, means,
lengths...) run as a query of their own, generated, beside two queries of the imperative ones over
two halves of the columns; the group counts are split in two halves reading different columns.
Concurrent jobs keep both cores of a small batch busy (a Parquet file of one row group is one
task); the halves read no column twice, the plain query reads every column once more (cheaper
than ungenerated code on the rows profiled), except from a sample drawn by every query from a
larger table, where step 1 is two halves of the columns only.
Shapes use the engine's precompiled automaton (dq_rlike) where it answers the pattern."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from dq_engine.errors import BatchError, CheckError
from dq_engine.profiling.queries import (
    FLAG,
    HISTOGRAM,
    NUMBER,
    QUANTILES,
    SHAPE_MASK,
    TEXT,
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

    def __init__(self, spark: SparkSession | None = None):
        self.spark = spark
        self.automata: dict[str, exp.Expression | None] = {}

    def regex(self, text: exp.Expression, pattern: str) -> exp.Expression:
        """The engine's automaton (dq_rlike) where it answers the pattern, in time linear in the
        value (the e-mail shapes' scan: 0.54 s against RLIKE's 0.76 s on the bench's 1M rows);
        else Spark's RLIKE (the shapes are fixed, known patterns)."""
        if pattern not in self.automata:
            self.automata[pattern] = self._automaton(pattern)
        bound = self.automata[pattern]
        if bound is None:
            return super().regex(text, pattern)
        bound = bound.copy()
        bound.set("expressions", [text, *bound.expressions[1:]])
        return bound

    def _automaton(self, pattern: str) -> exp.Expression | None:
        from dq_engine.fast_regex import compile_find
        from dq_engine.spark.jvm import RLIKE, regex_find

        if self.spark is None or compile_find(pattern) is None:
            return None
        try:
            found = regex_find(self.spark, exp.column("dq_text"), pattern)
        except CheckError:  # the engine's functions are not loaded: RLIKE
            return None
        return found if isinstance(found, exp.Anonymous) and found.name == RLIKE else None

    def distinct(self, column: exp.Expression, exact: bool) -> tuple[exp.Expression, bool]:
        if exact:
            return super().distinct(column, exact)
        return exp.ApproxDistinct(this=column), False

    def quantiles(self, column: exp.Expression, kind: str, exact: bool) -> tuple[exp.Expression, bool]:
        if exact and kind == NUMBER:  # interpolated, as PostgreSQL's percentile_cont
            return exp.Anonymous(this="percentile", expressions=[column, fractions()]), True
        accuracy = exp.Literal.number(ACCURACY)
        return exp.Anonymous(this="percentile_approx", expressions=[column, fractions(), accuracy]), False


def _reader(data_type: Any) -> Callable[[Any], Any]:
    """How a min, max or time quantile of this type reads back from the pass's JSON: as a query's
    row gives it (times through PySpark's own conversion of the internal value)."""
    from pyspark.sql.types import DateType, DecimalType, FloatType, DoubleType, TimestampNTZType, TimestampType

    if isinstance(data_type, DateType | TimestampType | TimestampNTZType):
        return data_type.fromInternal
    if isinstance(data_type, DecimalType):
        return Decimal
    if isinstance(data_type, FloatType | DoubleType):
        return float
    return lambda value: value


def _number(value: Any, data_type: Any) -> Any:
    from pyspark.sql.types import DecimalType, DoubleType, FloatType

    if isinstance(data_type, DecimalType):
        return Decimal(value)
    if isinstance(data_type, FloatType | DoubleType):
        return float(value)
    return int(value)


def _key_reader(data_type: Any, read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A counted value's key as the group counts give it (a decimal's as a float)."""
    from pyspark.sql.types import DecimalType

    if isinstance(data_type, DecimalType):
        return float
    return read


def render(expression: exp.Expression) -> str:
    return expression.sql(dialect=SQL_DIALECT, comments=False)


def imperative(expression: exp.Expression) -> bool:
    """Whether this aggregate costs its whole query the generated code: Spark's imperative
    aggregates (HyperLogLog, the percentiles) and DISTINCT ones (rewritten with an Expand)."""
    if expression.find(exp.ApproxDistinct, exp.Distinct) is not None:
        return True
    return any(call.name.lower().startswith("percentile") for call in expression.find_all(exp.Anonymous))


def halves(items: list[tuple[str, int]]) -> list[list[int]]:
    """The positions of (column, cost) items in two halves of about equal cost reading different
    columns (the costliest columns placed first); one half when there is one column."""
    costs: dict[str, int] = {}
    for column, cost in items:
        costs[column] = costs.get(column, 0) + cost
    sides: list[set[str]] = [set(), set()]
    loads = [0, 0]
    for column in sorted(costs, key=lambda name: -costs[name]):
        side = 0 if loads[0] <= loads[1] else 1
        sides[side].add(column)
        loads[side] += costs[column]
    return [[i for i, (column, _) in enumerate(items) if column in side] for side in sides if side]


def column_of(expression: exp.Expression) -> str:
    found = expression.find(exp.Column)
    return "" if found is None else found.name


class SparkProfile:
    def __init__(self, spark: SparkSession, spec: ProfileSpec, secrets: Mapping[str, str]):
        self.spark, self.spec, self.secrets_map = spark, spec, secrets
        self.dialect = SparkProfileDialect(spark)
        self.secrets = [v for v in secrets.values() if v]
        self.view = f"dq_profile_{uuid.uuid4().hex[:10]}"
        self.persisted: list[DataFrame] = []
        self.kinds: dict[str, tuple[str, str]] = {}
        self.types: dict[str, Any] = {}

    # --- one pass (the engine's functions jar): a batch beyond the exact limit ----------------
    def one_pass(self, columns: list[ProfileColumn], limit: int, bins: int) -> tuple[int, dict[str, dict]] | None:
        """(rows, each column's figures as the steps give them) from ONE JVM pass over the batch
        (dq_engine/jvm/src/.../profile/ProfilePass.java), or None when the engine's functions are
        not loaded. Distinct counts past `limit` values, quantiles and histograms are sketches."""
        from dq_engine.spark.jvm import ensure_functions

        if not ensure_functions(self.spark):
            return None
        jvm = self.spark.sparkContext._jvm
        fractions = self.spark.sparkContext._gateway.new_array(jvm.double, len(QUANTILES))
        for index, (_, fraction) in enumerate(QUANTILES):
            fractions[index] = fraction
        answer = json.loads(jvm.org.dqplatform.engine.profile.ProfilePass.run(self.frame._jdf, limit, bins, fractions))
        figures = {}
        for column, found in zip(columns, answer["columns"], strict=True):
            figures[column.name] = self._figures(column, found)
        return int(answer["rows"]), figures

    def _figures(self, column: ProfileColumn, found: dict[str, Any]) -> dict[str, Any]:
        data_type = self.types[column.name]
        read = _reader(data_type)
        values: dict[str, Any] = {"values": found["values"], "distinct": found.get("distinct")}
        if "error" in found:
            values["error"] = found["error"]
        for name in ("min", "max"):
            if name in found:
                values[name] = read(found[name])
        if "quantiles" in found:
            read_quantile = read if column.kind == TIME else float
            values["quantiles"] = [read_quantile(q) for q in found["quantiles"]]
        if column.kind == NUMBER and "sum" in found:
            values["sum"] = _number(found["sum"], data_type)
            values["mean"] = None if found["mean"] is None else float(found["mean"])
            values["stddev"] = None if found["stddev"] is None else float(found["stddev"])
        if column.kind == TEXT:
            values.update({name: found[name] for name in ("length_min", "length_max", "empty")})
            values["length_mean"] = None if found["length_mean"] is None else float(found["length_mean"])
        groups: dict[str, dict[Any, int]] = {}
        if found.get("counts") is not None:
            key = _key_reader(data_type, read)
            groups[TOP_VALUES] = {key(value): int(count) for value, count in found["counts"]}
        elif column.kind == TEXT:
            groups[SHAPE_MASK] = {mask: count for mask, count in enumerate(found["masks"]) if count}
        if "histogram" in found:
            groups[HISTOGRAM] = dict(enumerate(found["histogram"]))
            values["histogram_exact"] = bool(found.get("sketch_exact"))
        values["groups"] = groups
        return values

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
            self.types[field.name] = field.dataType
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
        # Every query now reads the whole table to draw its sample (a JDBC batch is persisted).
        self.rescans = not isinstance(self.spec.source, JdbcSource)

    rescans = False

    def aggregate(self, expressions: list[exp.Expression]) -> tuple[Any, ...]:
        """At the same time: the plain aggregates as one query, the imperative ones as two over
        two halves of the columns (each as costly as the plain query on the bench's orders). A
        sample drawn by every query from a larger table: two halves of the columns only, so that
        no column is read twice (the table's scan costs more than generated code saves)."""
        if self.rescans:
            parts = halves([(column_of(e), 1) for e in expressions])
        else:
            plain = [i for i, e in enumerate(expressions) if not imperative(e)]
            costly = [i for i, e in enumerate(expressions) if imperative(e)]
            split = halves([(column_of(expressions[i]), 1) for i in costly])
            parts = [part for part in [plain, *([costly[j] for j in half] for half in split)] if part]
        rows = self._together([lambda part=part: self._select([expressions[i] for i in part]) for part in parts])
        answer: list[Any] = [None] * len(expressions)
        for part, row in zip(parts, rows, strict=True):
            for index, value in zip(part, row, strict=True):
                answer[index] = value
        return tuple(answer)

    def _select(self, expressions: list[exp.Expression]) -> tuple[Any, ...]:
        selected = ", ".join(render(e) for e in expressions)
        # Rendered from SQLGlot trees over quoted identifiers; the view's name is the engine's own.
        return tuple(self.spark.sql(f"SELECT {selected} FROM {self.view}").collect()[0])  # noqa: S608

    def _together(self, jobs: list[Callable[[], Any]]) -> list[Any]:
        """Each job's answer; two or more run in threads that inherit this thread's job group."""
        if len(jobs) == 1:
            return [jobs[0]()]
        from concurrent.futures import ThreadPoolExecutor

        from pyspark.util import inheritable_thread_target

        with ThreadPoolExecutor(max_workers=len(jobs), thread_name_prefix="dq-profile") as pool:
            futures = [pool.submit(inheritable_thread_target(self.spark)(job)) for job in jobs]
            return [future.result() for future in futures]

    def group_counts(self, requests: list[GroupCount]) -> list[dict[Any, int]]:
        """Two scans at the same time, each over half the columns: each row yields (request, key)
        pairs, counted by one GROUP BY."""
        # A shape mask runs three regexes: three times a key's cost.
        parts = halves([(r.column, 3 if r.purpose == SHAPE_MASK else 1) for r in requests])
        found = self._together([lambda part=part: self._counts([requests[i] for i in part]) for part in parts])
        answers: list[dict[Any, int]] = [{} for _ in requests]
        for part, counted in zip(parts, found, strict=True):
            for index, answer in zip(part, counted, strict=True):
                answers[index] = answer
        return answers

    def _counts(self, requests: list[GroupCount]) -> list[dict[Any, int]]:
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
