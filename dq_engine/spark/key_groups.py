"""Uniqueness on Spark: one group-by per key column, shared by every uniqueness check on it; and,
when an accuracy check maps that same single column (`=` or `<=>`) on the same batch, ONE group-by
for both (the source's and the target's keys grouped together: no join).

Key group-bys shuffle their rows into one partition per KEY_BYTES_PER_PARTITION of estimated key
data, between one and KEY_PARTITIONS_PER_CORE per core: the reduce side builds a hash map of every
distinct key, and small maps stay in the CPU cache (bench/README.md: at 5M rows on 2 cores, 32
partitions made the group-bys 15-40% faster than 4). An explicit repartition(n, key) is never
coalesced by adaptive execution, hence the estimate: a small batch gets one partition per core,
not hundreds of empty tasks.

An integer key checked for uniqueness alone first goes through a bucket pre-pass
(`keys_in_repeating_buckets`): keys grouped by key >> 6, each bucket's row count against the number of
distinct keys in it (the popcount of a 64-bit OR of 1 << (key & 63)). Equal means no key of the
bucket repeats, so only the rows of the other buckets are shuffled key by key. The pre-pass
aggregates before its shuffle (a bucket holds up to 64 keys), so a near-unique key, what a
uniqueness check expects, is shuffled as a few bytes per 64 keys instead of a row per key
(bench/README.md: the group-by on order_id at 5M rows took about half the time). When many
buckets repeat a key, the pre-pass is abandoned for the plain group-by.
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING

from dq_engine.errors import CheckError
from dq_engine.plan import MappingKey
from dq_engine.spark.accuracy import join, mapped_column, unmatched
from dq_engine.spark.columns import field_ref, quote_identifier, resolve_column
from dq_engine.spark.context import SparkRun
from dq_engine.spark.scheduling import Unit, without_partial_aggregation
from dq_engine.spec import CheckSpec
from dq_engine.vocabulary.metrics import compared_as_text

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

logger = logging.getLogger(__name__)

KEY_BYTES_PER_PARTITION = 1 << 20
KEY_PARTITIONS_PER_CORE = 16

# The bucket pre-pass: 2**BUCKET_BITS keys a bucket (one bit each in a bigint); past
# MAX_CANDIDATE_BUCKETS buckets with a repeated key (6.4M keys' worth), every key is grouped.
BUCKET_BITS = 6
MAX_CANDIDATE_BUCKETS = 100_000

Join = tuple[str, MappingKey, list[CheckSpec]]  # (target batch, mappings, accuracy checks)


def uniqueness_units(run: SparkRun, name: str) -> list[Unit]:
    """One unit per key column; claims (in run.shared_joins) the accuracy joins it answers."""
    checks = run.batches.runnable(run.plans[name].uniqueness_checks)
    if not checks:
        return []
    by_column: dict[str, list[CheckSpec]] = {}
    for check in checks:
        try:
            field, _ = resolve_column(run.batches.frames[name], check.metric.get("column"))
        except CheckError as exc:
            run.outcomes.fail(check, exc)
            continue
        by_column.setdefault(field.name, []).append(check)
    shareable = _shareable_joins(run, name)
    units: list[Unit] = []
    for column_name, group in by_column.items():
        shared = shareable.get(column_name)
        if shared is None:
            units.append(functools.partial(duplicates, run, name, column_name, group))
        else:
            run.shared_joins.add((name, (shared[0], shared[1])))  # the accuracy step leaves this join to the unit
            units.append(functools.partial(uniqueness_with_accuracy, run, name, column_name, group, shared))
    return units


def duplicates(run: SparkRun, name: str, column_name: str, group: list[CheckSpec]) -> None:
    from pyspark.sql import functions as F
    from pyspark.sql.types import IntegralType

    frame, outcomes = run.batches.frames[name], run.outcomes
    column = F.col(quote_identifier(column_name))
    try:
        keys = frame.where(column.isNotNull()).select(column.alias("__dq_key"))
        if isinstance(frame.schema[column_name].dataType, IntegralType):  # byte, short, int, long
            keys = keys_in_repeating_buckets(run.spark, keys)
        duplicated = group_keys(run.spark, keys, F.count(F.lit(1)).alias("__dq_n")).where(F.col("__dq_n") > 1)
        with without_partial_aggregation(run.spark):
            values, rows = duplicated.agg(F.count(F.lit(1)), F.sum("__dq_n")).collect()[0]
        outcomes.count(name, "group_bys")
    except Exception as exc:  # noqa: BLE001
        for check in group:
            outcomes.fail(check, exc)
        return
    offending = int(rows or 0)
    for check in group:
        outcomes.ok(check, float(values), error_row_count=offending)
        outcomes.error_rows(
            check,
            offending,
            lambda: frame.join(duplicated.select("__dq_key"), column == F.col("__dq_key"), "left_semi"),
        )


def keys_in_repeating_buckets(spark: SparkSession, keys: DataFrame) -> DataFrame:
    """The integer keys (__dq_key) of the buckets where some key repeats (see the module's
    docstring), or all keys when too many buckets do."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StructField, StructType

    key = F.col("__dq_key").cast("bigint")
    bucket = F.shiftright(key, BUCKET_BITS)
    slot = F.call_function("shiftleft", F.lit(1).cast("bigint"), key.bitwiseAND((1 << BUCKET_BITS) - 1).cast("int"))
    per_bucket = keys.groupBy(bucket.alias("__dq_bucket")).agg(
        F.count(F.lit(1)).alias("__dq_rows"), F.bit_count(F.bit_or(slot)).alias("__dq_keys")
    )
    repeating = per_bucket.where(F.col("__dq_rows") > F.col("__dq_keys")).select("__dq_bucket")
    found = repeating.limit(MAX_CANDIDATE_BUCKETS + 1).collect()
    if len(found) > MAX_CANDIDATE_BUCKETS:
        return keys
    schema = StructType([StructField("__dq_bucket", LongType(), nullable=False)])
    buckets = spark.createDataFrame([(row[0],) for row in found], schema)
    return keys.join(F.broadcast(buckets), bucket == F.col("__dq_bucket"), "left_semi")


def group_keys(spark: SparkSession, keys: DataFrame, *aggregates: Column) -> DataFrame:
    """keys grouped by __dq_key, shuffled into key_partitions partitions (run the result inside
    without_partial_aggregation: the repartition already placed each key)."""
    return keys.repartition(key_partitions(spark, keys), "__dq_key").groupBy("__dq_key").agg(*aggregates)


def key_partitions(spark: SparkSession, keys: DataFrame) -> int:
    """Shuffle partitions for a group-by of these keys (see KEY_BYTES_PER_PARTITION)."""
    floor = max(1, spark.sparkContext.defaultParallelism)
    ceiling = KEY_PARTITIONS_PER_CORE * floor
    try:
        estimate = int(keys._jdf.queryExecution().optimizedPlan().stats().sizeInBytes().toString())
    except Exception:  # noqa: BLE001 - no estimate: the session's setting
        return floor
    return max(floor, min(ceiling, estimate // KEY_BYTES_PER_PARTITION))


def _shareable_joins(run: SparkRun, name: str) -> dict[str, Join]:
    """{source column: (target, mappings, checks)} for the accuracy joins on one `=`/`<=>` column
    whose batches are fine and whose columns resolve (the first such join per column)."""
    frames = run.batches.frames
    shareable: dict[str, Join] = {}
    for (target, mappings), checks in run.plans[name].joins.items():
        if len(mappings) != 1 or mappings[0][1] not in ("=", "<=>") or not checks or run.batches.problem(checks[0]):
            continue
        source_name, _, target_name = mappings[0]
        try:
            source_field, _ = resolve_column(frames[name], source_name)
            resolve_column(frames[target], target_name)
        except CheckError:
            continue  # the separate join reports it
        shareable.setdefault(source_field.name, (target, mappings, checks))
    return shareable


def uniqueness_with_accuracy(
    run: SparkRun, name: str, column_name: str, uniqueness: list[CheckSpec], shared: Join
) -> None:
    """Uniqueness of a column and accuracy on that same column from ONE group-by, with no join:
    the source's keys and the target's keys are shuffled together and grouped; per key, the
    source rows are counted and whether the target has it is noted. Duplicates are the keys the
    source has more than once; unmatched rows are the source rows whose key the target lacks
    (under `=` also every row whose key is NULL, since NULL matches nothing; under `<=>` a NULL
    key matches a NULL in the target). When the shared query fails, both run apart (so each
    check gets its own error)."""
    from pyspark.sql import functions as F

    target, mappings, accuracy = shared
    frames, outcomes = run.batches.frames, run.outcomes
    frame = frames[name]
    (_, operator, target_name) = mappings[0]
    key, n, hit = F.col("__dq_key"), F.col("__dq_n"), F.col("__dq_hit")
    try:
        source_field, column = resolve_column(frame, column_name)
        target_field, right_in_target = mapped_column(frames[target], target_name, "target")
        left, right = column, right_in_target
        if compared_as_text(field_ref(source_field), field_ref(target_field)):
            left, right = left.cast("string"), right.cast("string")
        source_keys = frame.select(left.alias("__dq_key"), F.lit(1).alias("__dq_s"), F.lit(0).alias("__dq_t"))
        target_keys = frames[target].select(right.alias("__dq_key"), F.lit(0).alias("__dq_s"), F.lit(1).alias("__dq_t"))
        keys = source_keys.unionAll(target_keys)  # Spark widens the two key types as `=` would
        grouped = group_keys(run.spark, keys, F.sum("__dq_s").alias("__dq_n"), F.max("__dq_t").alias("__dq_hit"))
        repeated = key.isNotNull() & (n > 1)
        unmatched_keys = (hit == 0) | key.isNull() if operator == "=" else hit == 0
        with without_partial_aggregation(run.spark):
            values, rows, missing = grouped.agg(
                F.count_if(repeated), F.sum(F.when(repeated, n)), F.sum(F.when(unmatched_keys, n))
            ).collect()[0]
        duplicated = grouped.where(repeated)
    except Exception as exc:  # noqa: BLE001 - the separate group-by and join will say which check fails
        if run.cancel.is_set():
            return  # the recorder reports the checks as cancelled
        logger.info("Shared uniqueness/accuracy query on %s.%s failed (%s).", name, column_name, outcomes.say(exc))
        duplicates(run, name, column_name, uniqueness)
        join(run, name, target, mappings, accuracy)
        return
    outcomes.count(name, "group_bys")
    outcomes.count(name, "joins")
    offending = int(rows or 0)
    for check in uniqueness:
        outcomes.ok(check, float(values), error_row_count=offending)
        outcomes.error_rows(check, offending, lambda: frame.join(duplicated.select(key), left == key, "left_semi"))
    missing = int(missing or 0)
    for check in accuracy:
        outcomes.ok(check, float(missing), error_row_count=missing)
        outcomes.error_rows(check, missing, lambda: unmatched(frame, frames[target], mappings))
