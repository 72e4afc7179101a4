"""Spark as a backend of the one way of running checks (dq_engine/passes/): a batch is a
DataFrame (batches.py: read, filtered, sampled, cached when worth it), a check's share of the
combined aggregate is a Spark Column (columns.py), key groups are group-bys (key_groups.py: the
bucket pre-pass, the partitioning), joins are left-anti joins, a custom query runs against temp
views of the batches, and error rows are written by Spark (error_rows.py). Passes run a few at a
time (scheduling.py); cancelling cancels the run's job group.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from functools import reduce
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from dq_engine.errors import CheckError
from dq_engine.passes.backend import Found, Metric, Unit
from dq_engine.plan import MappingKey
from dq_engine.query_checks import one_value
from dq_engine.spark.batches import Batches
from dq_engine.spark.columns import field_ref, quote_identifier, resolve_column, row_metric, to_column
from dq_engine.spark.error_rows import write_error_rows, write_marked_batch
from dq_engine.spark.jvm import regex_hook
from dq_engine.spark.key_groups import group_keys, keys_in_repeating_buckets
from dq_engine.spark.messages import explain
from dq_engine.spark.scheduling import run_units, without_partial_aggregation
from dq_engine.spec import CheckSpec
from dq_engine.sql_safety import UnsafeSQL, parse_select
from dq_engine.vocabulary import mapping_condition
from dq_engine.vocabulary.metrics import compared_as_text

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession


class SparkBackend:
    key = "spark"
    folds_sql = True

    def __init__(self, spark: SparkSession, batches: Batches, group: str, count_jobs: Callable[[], int]):
        self.spark, self.batches, self.group, self.count_jobs = spark, batches, group, count_jobs

    # --- batches -------------------------------------------------------------------------------
    def open(self, name: str) -> None:
        self.batches.open(name)

    def refusal(self, check: CheckSpec) -> None:
        return None  # Spark reads every source and answers every check

    def cached(self, name: str) -> bool:
        return name in self.batches.cached_batches

    def frame(self, name: str) -> DataFrame:
        return self.batches.frames[name]

    # --- the combined aggregate ----------------------------------------------------------------
    def metric(self, name: str, check: CheckSpec, folded: str | None) -> Metric:
        from pyspark.sql import functions as F

        if folded is not None:
            return Metric(aggregate=F.expr(folded))
        built = row_metric(self.frame(name), check.metric, self.spark)
        return Metric(built.aggregate, built.predicate, built.marks, built.findings)

    def _combined(self, name: str, metrics: Sequence[Metric]) -> DataFrame:
        from pyspark.sql import functions as F

        aggregates = (m.aggregate.alias(f"__dq_m{i}") for i, m in enumerate(metrics))
        return self.frame(name).agg(F.count(F.lit(1)), *aggregates)  # analysed when built (classic PySpark)

    def bind(self, name: str, metrics: Sequence[Metric]) -> None:
        self._combined(name, metrics).schema  # noqa: B018 - analysis only, no Spark job

    def aggregate(self, name: str, metrics: Sequence[Metric]) -> Sequence[Any]:
        return list(self._combined(name, metrics).collect()[0])

    def marked_rows(self, name: str, metric: Metric) -> DataFrame:
        """The batch's rows with the metric's marks beside their columns (row_rules: `_dq`, `_dq_failed_checks`)."""
        frame = self.frame(name)
        return frame.select("*", *metric.marks) if metric.marks else frame

    def offending_rows(self, name: str, metric: Metric) -> DataFrame:
        return self.marked_rows(name, metric).where(metric.predicate)

    # --- key groups ----------------------------------------------------------------------------
    def key_column(self, name: str, check: CheckSpec) -> str:
        field, _ = resolve_column(self.frame(name), check.metric.get("column"))
        return field.name

    def duplicates(self, name: str, column_name: str) -> Found:
        from pyspark.sql import functions as F
        from pyspark.sql.types import IntegralType

        frame = self.frame(name)
        column = F.col(quote_identifier(column_name))
        keys = frame.where(column.isNotNull()).select(column.alias("__dq_key"))
        if isinstance(frame.schema[column_name].dataType, IntegralType):  # byte, short, int, long
            keys = keys_in_repeating_buckets(self.spark, keys)
        duplicated = group_keys(self.spark, keys, F.count(F.lit(1)).alias("__dq_n")).where(F.col("__dq_n") > 1)
        with without_partial_aggregation(self.spark):
            values, rows = duplicated.agg(F.count(F.lit(1)), F.sum("__dq_n")).collect()[0]
        return Found(
            values,
            rows,
            lambda: frame.join(duplicated.select("__dq_key"), column == F.col("__dq_key"), "left_semi"),
        )

    def shared_key_column(self, name: str, target: str, mappings: MappingKey) -> str | None:
        """The source column of a one-column join the key group of that column can answer."""
        source_name, _, target_name = mappings[0]
        source_field, _ = resolve_column(self.frame(name), source_name)
        resolve_column(self.frame(target), target_name)
        return source_field.name

    def duplicates_and_unmatched(
        self, name: str, column_name: str, target: str, mappings: MappingKey
    ) -> tuple[Found, Found]:
        """Uniqueness of a column and accuracy on that same column from ONE group-by, with no join:
        the source's keys and the target's keys are shuffled together and grouped; per key, the
        source rows are counted and whether the target has it is noted. Duplicates are the keys
        the source has more than once; unmatched rows are the source rows whose key the target
        lacks (under `=` also every row whose key is NULL, since NULL matches nothing; under `<=>`
        a NULL key matches a NULL in the target)."""
        from pyspark.sql import functions as F

        frame, target_frame = self.frame(name), self.frame(target)
        (_, operator, target_name) = mappings[0]
        key, n, hit = F.col("__dq_key"), F.col("__dq_n"), F.col("__dq_hit")
        source_field, column = resolve_column(frame, column_name)
        target_field, right_in_target = _mapped_column(target_frame, target_name, "target")
        left, right = column, right_in_target
        if compared_as_text(field_ref(source_field), field_ref(target_field)):
            left, right = left.cast("string"), right.cast("string")
        source_keys = frame.select(left.alias("__dq_key"), F.lit(1).alias("__dq_s"), F.lit(0).alias("__dq_t"))
        target_keys = target_frame.select(right.alias("__dq_key"), F.lit(0).alias("__dq_s"), F.lit(1).alias("__dq_t"))
        keys = source_keys.unionAll(target_keys)  # Spark widens the two key types as `=` would
        grouped = group_keys(self.spark, keys, F.sum("__dq_s").alias("__dq_n"), F.max("__dq_t").alias("__dq_hit"))
        repeated = key.isNotNull() & (n > 1)
        unmatched_keys = (hit == 0) | key.isNull() if operator == "=" else hit == 0
        with without_partial_aggregation(self.spark):
            values, rows, missing = grouped.agg(
                F.count_if(repeated), F.sum(F.when(repeated, n)), F.sum(F.when(unmatched_keys, n))
            ).collect()[0]
        duplicated = grouped.where(repeated)
        return (
            Found(values, rows, lambda: frame.join(duplicated.select(key), left == key, "left_semi")),
            Found(missing, missing, lambda: _unmatched(frame, target_frame, mappings)),
        )

    # --- joins, queries ------------------------------------------------------------------------
    def unmatched(self, name: str, target: str, mappings: MappingKey, check: CheckSpec) -> Found:
        rows = _unmatched(self.frame(name), self.frame(target), mappings)
        count = rows.count()
        return Found(count, count, lambda: rows)

    def scalar(self, check: CheckSpec, text: Any, placeholders: tuple[str, ...], what: str) -> Any:
        """Run a user's one-value SELECT against the batches' views (`${src_table}`, `${target_table}`
        bound to view names by sql_safety, never pasted) and return the value."""
        if not isinstance(text, str):
            raise CheckError(f"The {what} is missing.")
        try:
            parsed = parse_select(text, placeholders)
        except UnsafeSQL as exc:
            raise CheckError(f"The {what} was refused: {exc}") from None
        batches = {"src_table": check.batch, "target_table": check.target_batch}
        sql = parsed.to_spark_sql(
            {placeholder: self.batches.view(batches[placeholder]) for placeholder in parsed.tables_used},
            regex=regex_hook(self.spark),
        )
        return one_value(self.spark.sql(sql).limit(2).collect(), what)

    # --- writing, running, stopping ------------------------------------------------------------
    def write_error_rows(self, rows: DataFrame, path: str, check: CheckSpec, limit: int, count: int) -> int:
        write_error_rows(rows, path, check.name, limit)
        return min(count, limit)

    def write_marked_rows(self, rows: DataFrame, path: str, check: CheckSpec) -> None:
        write_marked_batch(rows, path)

    def run_units(self, units: list[Unit], cancel: threading.Event) -> None:
        run_units(self.spark, units, cancel)

    def interrupt(self) -> None:
        """Cancel this run's job group (the passes' threads inherit it); never `cancelAllJobs`:
        the session may serve other callers."""
        self.spark.sparkContext.cancelJobGroup(self.group)

    def explain(self, exc: BaseException) -> str:
        return explain(exc)

    def plan_extras(self) -> dict[str, Any]:
        return {"spark_jobs": self.count_jobs(), "job_group": self.group}

    def close(self) -> None:
        self.batches.cleanup()


def _unmatched(source: DataFrame, target: DataFrame, mappings: MappingKey) -> DataFrame:
    """Source rows with no target row matching every pair (target columns renamed to avoid clashes).
    Each pair's condition comes from the vocabulary (`mapping_condition`: `=` SQL equality, a NULL
    matches nothing; `<=>` null-safe; text against non-text compared as text)."""
    conditions = []
    projected: list[Column] = []
    for index, (source_name, operator, target_name) in enumerate(mappings):
        source_field, _ = _mapped_column(source, source_name, "source")
        target_field, right_in_target = _mapped_column(target, target_name, "target")
        alias = f"__dq_t{index}"
        projected.append(right_in_target.alias(alias))
        conditions.append(
            mapping_condition(
                field_ref(source_field), operator, field_ref(target_field), exp.column(alias, quoted=True)
            )
        )
    condition = reduce(lambda a, b: exp.and_(a, b), conditions)
    return source.join(target.select(*projected), to_column(condition), "left_anti")


def _mapped_column(frame: DataFrame, name: str, side: str) -> tuple[Any, Column]:
    try:
        return resolve_column(frame, name)
    except CheckError as exc:
        raise CheckError(f"Mapping {side} column: {exc}") from None
