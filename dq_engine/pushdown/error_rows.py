"""The pushdown engine's error-row writer: rows fetched from the database (at most the sink's
limit) → one Parquet file in the error store (dq_engine/error_store.py), as Spark's writer lays
it out: `<root>/<check id>/part-00000.parquet`, every column of the batch plus `_dq_check`.

Column types come from the values (pyarrow's inference: Decimal → decimal128, datetime →
timestamp[us], ...); a column of NULLs only takes the type its catalog category suggests, and a
column pyarrow cannot hold (a PostgreSQL range, a UUID) is written as its string form.

Row rules' cleansed output (`write_marked_batch`: every row of the batch with `_dq` and
`_dq_failed_checks`, streamed in chunks) cannot infer a type from the first chunk (a column NULL
there, a decimal wider later), so its types come from the catalog: integers int64, `numeric(p,s)`
decimal128(p,s) (unconstrained: (38,18), as Spark reads it), real/float float32, double float64,
text, date, timestamp[us] (with a zone: UTC), boolean, binary; anything else its string form.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlglot import exp

from dq_engine.arrow_lists import pyarrow
from dq_engine.databases import Column
from dq_engine.error_store import CHECK_COLUMN
from dq_engine.errors import CheckError
from dq_engine.rowchecks.compile import DQ_COLUMN
from dq_engine.vocabulary.expressions import BINARY, BOOLEAN, DATE, NUMERIC, STRING, TIMESTAMP

PART_FILE = "part-00000.parquet"


def write_error_rows(
    path: str, names: list[str], rows: list[tuple], check_name: str, categories: dict[str, str]
) -> None:
    import pyarrow.parquet as pq

    pa = pyarrow()  # lists to arrays without pandas in the worker

    columns, fields = [], []
    for index, name in enumerate(names):
        if name == CHECK_COLUMN:
            continue
        values = [row[index] for row in rows]
        array = _array(values, categories.get(name))
        columns.append(array)
        fields.append(pa.field(name, array.type))
    columns.append(pa.array([check_name] * len(rows), pa.string()))
    fields.append(pa.field(CHECK_COLUMN, pa.string()))
    target = Path(path)
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    pq.write_table(pa.Table.from_arrays(columns, schema=pa.schema(fields)), target / "part-00000.parquet")


def _array(values: list[Any], category: str | None) -> Any:
    import pyarrow as pa

    if category == BOOLEAN:
        values = _booleans(values)
    if all(v is None for v in values):
        kind = {NUMERIC: pa.float64(), TIMESTAMP: pa.timestamp("us"), DATE: pa.date32(), BOOLEAN: pa.bool_()}
        return pa.array(values, kind.get(category, pa.string()))
    try:
        array = pa.array(values)
        if pa.types.is_timestamp(array.type) and array.type.unit != "us":
            array = array.cast(pa.timestamp("us", array.type.tz))
        return array
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return pa.array([None if v is None else str(v) for v in values], pa.string())


def write_marked_batch(
    path: str, names: list[str], chunks: Iterable[list[tuple]], columns: dict[str, Column], dialect: str
) -> None:
    """Every row of `chunks` (the batch with its marks) as Parquet in the new folder `path`, laid
    out as Spark writes it (a folder of part files). An existing folder is an error, so one run
    never overwrites another's output; a write that fails leaves no folder behind."""
    import pyarrow.parquet as pq

    pa = pyarrow()

    target = Path(path)
    if target.exists():
        raise FileExistsError(f"{path} already exists; the cleansed output is written to a new folder only.")
    types = [_marked_type(name, columns.get(name), dialect) for name in names]
    schema = pa.schema([pa.field(name, arrow_type) for name, arrow_type in zip(names, types, strict=True)])
    target.mkdir(parents=True)
    try:
        with pq.ParquetWriter(target / PART_FILE, schema) as writer:
            for chunk in chunks:
                arrays = [_typed([row[i] for row in chunk], name, types[i]) for i, name in enumerate(names)]
                writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise


def _marked_type(name: str, column: Column | None, dialect: str) -> Any:
    import pyarrow as pa

    if column is None:  # the marks: Spark's int and string
        return pa.int32() if name == DQ_COLUMN else pa.string()
    ref = column.spark_ref(dialect)
    sql_type, category = ref.type, ref.category
    if sql_type is None or category not in (NUMERIC, STRING, DATE, TIMESTAMP, BOOLEAN, BINARY):
        return pa.string()
    kinds = exp.DataType.Type
    if category == NUMERIC:
        if sql_type.is_type(*exp.DataType.INTEGER_TYPES):
            return pa.int64()
        if sql_type.is_type(kinds.DECIMAL, kinds.BIGDECIMAL):
            params = [int(p.name) for p in sql_type.expressions]
            return pa.decimal128(*params) if len(params) == 2 else pa.decimal128(38, 18)
        return pa.float32() if sql_type.is_type(kinds.FLOAT) else pa.float64()
    if category == TIMESTAMP:
        zoned = sql_type.is_type(kinds.TIMESTAMPTZ, kinds.TIMESTAMPLTZ)
        return pa.timestamp("us", "UTC" if zoned else None)
    return {STRING: pa.string(), DATE: pa.date32(), BOOLEAN: pa.bool_(), BINARY: pa.binary()}[category]


def _typed(values: list[Any], name: str, arrow_type: Any) -> Any:
    import pyarrow as pa

    if pa.types.is_string(arrow_type):
        values = [v if v is None or isinstance(v, str) else str(v) for v in values]
    elif pa.types.is_boolean(arrow_type):
        values = _booleans(values)
    elif pa.types.is_decimal(arrow_type):  # a bigint unsigned: Spark's decimal(20,0)
        values = [Decimal(v) if isinstance(v, int) else v for v in values]
    elif pa.types.is_date(arrow_type):  # a MariaDB year: Spark's date (January 1st)
        values = [date(v, 1, 1) if isinstance(v, int) else v for v in values]
    try:
        return pa.array(values, arrow_type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        raise CheckError(f"Column {name}: a value does not fit {arrow_type} ({exc}).") from None


def _booleans(values: list[Any]) -> list[Any]:
    """A MariaDB tinyint(1) / bit(1) column's values as Spark's JDBC reader gives them: booleans."""
    return [v if v is None or isinstance(v, bool) else _truth(v) for v in values]


def _truth(value: Any) -> bool:
    """A tinyint(1) or bit(1) value as Spark reads it: any non-zero number (or bit) is true."""
    if isinstance(value, bytes | bytearray):
        return any(value)
    return bool(value)
