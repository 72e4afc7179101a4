"""How Spark groups keys (the uniqueness group-by, and the one shared with an accuracy check on the
same column: backend.py).

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

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

logger = logging.getLogger(__name__)

KEY_BYTES_PER_PARTITION = 1 << 20
KEY_PARTITIONS_PER_CORE = 16

# The bucket pre-pass: 2**BUCKET_BITS keys a bucket (one bit each in a bigint); past
# MAX_CANDIDATE_BUCKETS buckets with a repeated key (6.4M keys' worth), every key is grouped.
BUCKET_BITS = 6
MAX_CANDIDATE_BUCKETS = 100_000


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
