"""The pushdown engine's error-row writer: rows fetched from the database (at most the sink's
limit) → one Parquet file in the error store (dq_engine/error_store.py), as Spark's writer lays
it out: `<root>/<check id>/part-00000.parquet`, every column of the batch plus `_dq_check`.

Column types come from the values (pyarrow's inference: Decimal → decimal128, datetime →
timestamp[us], ...); a column of NULLs only takes the type its catalog category suggests, and a
column pyarrow cannot hold (a PostgreSQL range, a UUID) is written as its string form.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from dq_engine.error_store import CHECK_COLUMN
from dq_engine.vocabulary.expressions import BOOLEAN, DATE, NUMERIC, TIMESTAMP


def write_error_rows(
    path: str, names: list[str], rows: list[tuple], check_name: str, categories: dict[str, str]
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

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
