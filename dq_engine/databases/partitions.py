"""Partitioned JDBC reads: Spark reads a database table over several connections at once.

Spark splits a JDBC read by `partitionColumn` between `lowerBound` and `upperBound` into
`numPartitions` ranges (the first and last open-ended, so every row is read whatever the bounds).
The column is the table's numeric key — its primary key, or an integer column an index leads
with — found in the database's catalog (its kind's catalog queries), and the bounds come from
one `SELECT MIN(key), MAX(key)` over the indexed column. A table with no such key, or a catalog
that cannot be read, is read in one partition as before. Options the source sets itself
(`partitionColumn`, `numPartitions`) are kept; `numPartitions` alone sets the number of ranges.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from sqlglot import exp

from dq_engine.spec import JdbcSource

logger = logging.getLogger(__name__)

DEFAULT_PARTITIONS = 4
_PARTITION_OPTIONS = ("partitioncolumn", "lowerbound", "upperbound")


def partition_options(source: JdbcSource, secrets: Mapping[str, str], default_partitions: int) -> dict[str, str]:
    """{partitionColumn, lowerBound, upperBound, numPartitions} for a read of the source, or {}."""
    given = {key.lower(): value for key, value in source.options.items()}
    if any(key in given for key in _PARTITION_OPTIONS):
        return {}  # the source partitions its reads itself
    try:
        partitions = int(given.get("numpartitions") or default_partitions)
    except ValueError:
        partitions = default_partitions
    if partitions < 2:
        return {}
    from dq_engine.databases import connect, describe_table, kind_of

    if kind_of(source) is None:
        return {}
    try:
        db = connect(source, secrets, statement_timeout=60)
    except Exception as exc:  # noqa: BLE001 - Spark's own read reports the reason
        logger.info("No partitioned read of %s: %s", source.table, exc)
        return {}
    try:
        table = describe_table(db, source.table)
        if table.numeric_key is None:
            return {}
        key = exp.column(table.numeric_key, quoted=True)
        bounds = exp.select(exp.Min(this=key), exp.Max(this=key)).from_(table.relation)
        low, high = db.rows(bounds.sql(dialect=db.kind.name, identify=True))[0]
    except Exception as exc:  # noqa: BLE001 - one partition, as without a key
        logger.info("No partitioned read of %s: %s", source.table, db.say(exc))
        return {}
    finally:
        db.close()
    if low is None or high is None or high <= low:
        return {}
    return {
        "partitionColumn": table.numeric_key,
        "lowerBound": str(int(low)),
        "upperBound": str(int(high) + 1),
        "numPartitions": str(min(partitions, int(high) - int(low) + 1)),
    }
