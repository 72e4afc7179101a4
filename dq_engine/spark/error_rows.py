"""Spark's error-row writer: a check's offending rows → the error store (dq_engine/error_store.py).

One small Parquet file per check: every column of the batch plus `_dq_check` (the check's name),
at most `limit` rows. Column types Parquet or pyarrow cannot hold or read back nicely (intervals,
void, variant, also inside structs, arrays and maps) are written as their string form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dq_engine.error_store import CHECK_COLUMN

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import DataType

_AWKWARD_TYPES = ("interval", "void", "variant")


def write_error_rows(rows: DataFrame, path: str, check_name: str, limit: int) -> None:
    """Overwrite `path` with at most `limit` of `rows`, tagged with the check's name."""
    from pyspark.sql import functions as F

    frame = parquet_friendly(rows.drop(CHECK_COLUMN) if CHECK_COLUMN in rows.columns else rows)
    frame = frame.withColumn(CHECK_COLUMN, F.lit(check_name)).limit(limit).coalesce(1)
    frame.write.mode("overwrite").parquet(path)


def write_marked_batch(rows: DataFrame, path: str) -> None:
    """Every row of a batch with its `_dq` and `_dq_failed_checks` (row_rules' cleansed output):
    a new folder; an existing one is an error, so one run never overwrites another's output."""
    parquet_friendly(rows).write.mode("errorifexists").parquet(path)


def parquet_friendly(frame: DataFrame) -> DataFrame:
    """Cast columns whose type Parquet/pyarrow handle badly to strings; keep all others as they are."""
    from pyspark.sql import functions as F

    if not any(_awkward(field.dataType) for field in frame.schema.fields):
        return frame
    columns = []
    for field in frame.schema.fields:
        column = F.col("`" + field.name.replace("`", "``") + "`")
        columns.append(column.cast("string").alias(field.name) if _awkward(field.dataType) else column)
    return frame.select(*columns)


def _awkward(data_type: DataType) -> bool:
    from pyspark.sql.types import ArrayType, MapType, StructType

    if isinstance(data_type, StructType):
        return any(_awkward(field.dataType) for field in data_type.fields)
    if isinstance(data_type, ArrayType):
        return _awkward(data_type.elementType)
    if isinstance(data_type, MapType):
        return _awkward(data_type.keyType) or _awkward(data_type.valueType)
    name = data_type.typeName().lower()
    return any(awkward in name for awkward in _AWKWARD_TYPES)
