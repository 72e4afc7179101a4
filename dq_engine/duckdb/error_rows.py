"""DuckDB's error-row writer: a check's offending rows → the error store (dq_engine/error_store.py).

The same layout as Spark's: a directory per check holding Parquet, every column of the batch plus
`_dq_check` (the check's name), at most `limit` rows, written by DuckDB itself (`COPY ... TO`);
row rules' cleansed output (the whole batch with its marks) the same way, into a new folder.
Column types pyarrow reads back badly or Parquet cannot hold (intervals, 128-bit integers, UUIDs,
bit strings, unions, times with a zone) are written as their string form, as Spark's writer does.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from sqlglot import exp

from dq_engine.error_store import CHECK_COLUMN

if TYPE_CHECKING:
    import duckdb

_AWKWARD = ("INTERVAL", "HUGEINT", "UHUGEINT", "UUID", "BIT", "UNION", "TIME WITH TIME ZONE", "TIMETZ", "VARIANT")
PART_FILE = "part-00000.parquet"


def write_error_rows(con: duckdb.DuckDBPyConnection, rows: str, path: str, check_name: str, limit: int) -> None:
    """Overwrite `path` with at most `limit` rows of the SELECT `rows`, tagged with the check's name."""
    columns = _parquet_columns(con, rows, skip=CHECK_COLUMN)
    tag = exp.Literal.string(check_name).sql(dialect="duckdb")
    columns.append(f"{tag} AS {exp.to_identifier(CHECK_COLUMN, quoted=True).sql(dialect='duckdb')}")
    target = Path(path)
    if target.exists():
        shutil.rmtree(target) if target.is_dir() else target.unlink()
    target.mkdir(parents=True)
    query = f"SELECT {', '.join(columns)} FROM ({rows}) AS __dq_rows LIMIT {int(limit)}"
    _copy(con, query, target)


def write_marked_batch(con: duckdb.DuckDBPyConnection, rows: str, path: str) -> None:
    """Every row of the SELECT `rows` (the batch with `_dq` and `_dq_failed_checks`: row_rules'
    cleansed output) as Parquet in the new folder `path`, laid out as Spark writes it (a folder of
    part files). An existing folder is an error, so one run never overwrites another's output."""
    target = Path(path)
    if target.exists():
        raise FileExistsError(f"{path} already exists; the cleansed output is written to a new folder only.")
    target.mkdir(parents=True)
    query = f"SELECT {', '.join(_parquet_columns(con, rows))} FROM ({rows}) AS __dq_rows"
    try:
        _copy(con, query, target)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)  # no half-written output left for a reader to take
        raise


def _parquet_columns(con: duckdb.DuckDBPyConnection, rows: str, skip: str | None = None) -> list[str]:
    """The SELECT's columns, those Parquet or pyarrow handle badly cast to text (as Spark's writer)."""
    relation = con.sql(rows)  # bound, not run: its columns and their types
    columns = []
    for name, type_name in zip(relation.columns, map(str, relation.types), strict=True):
        if name == skip:
            continue
        quoted = exp.to_identifier(name, quoted=True).sql(dialect="duckdb")
        awkward = any(word in type_name.upper() for word in _AWKWARD)
        columns.append(f"CAST({quoted} AS VARCHAR) AS {quoted}" if awkward else quoted)
    return columns


def _copy(con: duckdb.DuckDBPyConnection, query: str, folder: Path) -> None:
    file_literal = exp.Literal.string(str(folder / PART_FILE)).sql(dialect="duckdb")
    con.execute(f"COPY ({query}) TO {file_literal} (FORMAT parquet)")
