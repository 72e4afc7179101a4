"""Readers: a spec file source → the DuckDB table function that reads it, and whether DuckDB can.

DuckDB reads local Parquet, CSV and JSON (one object per line) files. Like Spark, a source path is
the dataset: one file, or a directory whose files (recursively, skipping names starting with `.`
or `_`, as Spark and Hadoop leave `_SUCCESS` and `.crc` files) are its parts; `key=value`
directories are partition columns (hive partitioning) in both. ORC, hdfs:// and s3a:// paths, and
reader options whose meaning only Spark knows are Spark's (`reason_cannot_read`).

CSV as Spark reads it by default (header on, types inferred): DuckDB's sniffer infers the same
types for the usual columns (integers, decimals as DOUBLE, booleans, dates/timestamps in ISO form,
text), and an empty field, quoted or not, is NULL in both (README, "Engines", for what differs).

JSON as Spark reads it: Spark keeps strings as strings (no date, time or UUID detection), infers a
column of NULLs only as a string, samples every line, and orders the columns by name. DuckDB's
reader detects dates, times, timestamps and UUIDs in strings and keeps the file's order, so the
types DuckDB infers (over every line, `sample_size = -1`) are given back to it as `columns` with
those types read as VARCHAR, at any depth of structs and lists, and the columns sorted by name.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from sqlglot import exp

from dq_engine.spec import FileSource, JdbcSource

if TYPE_CHECKING:
    import duckdb

FORMATS = ("parquet", "csv", "json")
# Spark CSV options → the DuckDB read_csv parameter with the same meaning.
_CSV_OPTIONS = {"header": "header", "delimiter": "delim", "sep": "delim", "quote": "quote", "escape": "escape"}
_BOOLEAN_OPTIONS = {"header", "inferschema"}
# Options that change nothing about what is read (both engines read them the same by default).
_HARMLESS = {"encoding": "utf-8", "charset": "utf-8", "multiline": "false"}


def reason_cannot_read(source: object) -> str | None:
    """Why DuckDB cannot read the source as Spark would, or None."""
    if isinstance(source, JdbcSource):
        return "DuckDB reads local files; this is a database table."
    if not isinstance(source, FileSource):
        return f"DuckDB reads local files, not {type(source).__name__}."
    if source.format not in FORMATS:
        return f"DuckDB does not read {source.format.upper()} files; Spark does."
    if _is_remote(source.path):
        return f"DuckDB here reads local files; {source.path.split('://', 1)[0]}:// paths are read by Spark."
    for key, value in source.options.items():
        problem = _option_problem(source.format, key, str(value))
        if problem:
            return problem
    return None


def _is_remote(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def local_path(path: str) -> str:
    return path[len("file://") :] if path.startswith("file://") else path


def _option_problem(fmt: str, key: str, value: str) -> str | None:
    lowered = key.lower()
    if _HARMLESS.get(lowered) == value.lower():
        return None
    if fmt == "csv" and lowered == "header" and value.lower() == "false":
        return "Spark names the columns of a CSV file without a header _c0, _c1, ...; Spark reads it."
    if fmt == "csv" and lowered in _CSV_OPTIONS:
        if lowered in _BOOLEAN_OPTIONS and value.lower() not in ("true", "false"):
            return f"The CSV option {key}={value!r} is not true or false."
        if lowered in ("delimiter", "sep", "quote", "escape") and len(value) != 1:
            return f"The CSV option {key}={value!r} is not one character; Spark reads it."
        return None
    if fmt == "csv" and lowered == "inferschema":
        return None
    return f"The {fmt} reader option {key!r} is Spark's; Spark reads this source."


def data_files(path: str) -> list[str]:
    """The dataset's files: the path itself, or the visible files under it, sorted."""
    root = Path(local_path(path))
    if root.is_file():
        return [str(root)]
    files = []
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith((".", "_")))
        files += [str(Path(directory) / name) for name in sorted(names) if not name.startswith((".", "_"))]
    return files


def size_in_bytes(path: str) -> int | None:
    """Bytes of the dataset's files (None when the path cannot be listed): what `auto` compares
    with the DuckDB size limit (dq_engine/selection.py)."""
    try:
        return sum(os.path.getsize(f) for f in data_files(path))
    except OSError:
        return None


def table_function(source: FileSource, con: duckdb.DuckDBPyConnection | None = None) -> str:
    """`read_parquet([...], ...)` and the like, for `SELECT * FROM <this>`. Paths and option values
    are rendered as SQL string literals by SQLGlot (quoted, never pasted). JSON needs `con`: its
    columns are sniffed first, to be read with Spark's types (see above)."""
    files = data_files(source.path)
    if not files:
        raise FileNotFoundError(f"No data files under {source.path}.")
    listed = exp.Array(expressions=[exp.Literal.string(f) for f in files]).sql(dialect="duckdb")
    partitions: list[str] = []
    for f in files:
        for part in Path(f).relative_to(_root(source.path)).parts[:-1]:
            if "=" in part and part.split("=", 1)[0] not in partitions:
                partitions.append(part.split("=", 1)[0])
    hive = bool(partitions)
    arguments = [listed, f"hive_partitioning = {str(hive).lower()}"]
    if source.format == "parquet":
        return f"read_parquet({', '.join(arguments)})"
    if source.format == "json":
        sniffed = "read_json(" + ", ".join([*arguments, "format = 'newline_delimited'", "sample_size = -1"]) + ")"
        if con is None:
            return sniffed
        return _json_as_spark_reads_it(con, sniffed, arguments, partitions)
    return f"read_csv({', '.join([*arguments, *_csv_arguments(source.options)])})"


# DuckDB types its JSON reader detects in strings, where Spark keeps the string (and a column of NULLs only).
_JSON_TEXT_TYPES = {
    "date",
    "time",
    "time with time zone",
    "timestamp",
    "timestamp with time zone",
    "timestamp_s",
    "timestamp_ms",
    "timestamp_ns",
    "uuid",
    "interval",
    "null",
}


def _json_as_spark_reads_it(
    con: duckdb.DuckDBPyConnection, sniffed: str, arguments: list[str], partitions: list[str]
) -> str:
    relation = con.sql(f"SELECT * FROM {sniffed}")  # binds: reads the lines to infer their types
    typed = dict(zip(relation.columns, relation.types, strict=True))
    # Spark: the data columns by name, then the partition columns in their directory order.
    order = sorted(name for name in typed if name not in partitions) + [p for p in partitions if p in typed]
    columns = exp.Struct(
        expressions=[
            exp.PropertyEQ(this=exp.Literal.string(name), expression=exp.Literal.string(_spark_json_type(typed[name])))
            for name in order
        ]
    ).sql(dialect="duckdb")
    reading = "read_json(" + ", ".join([*arguments, "format = 'newline_delimited'", f"columns = {columns}"]) + ")"
    listed = ", ".join(exp.to_identifier(name, quoted=True).sql(dialect="duckdb") for name in order)
    return f"(SELECT {listed} FROM {reading})"


def _spark_json_type(kind: duckdb.DuckDBPyType) -> str:
    """The DuckDB type of a JSON value as Spark would infer it: strings stay VARCHAR at every depth."""
    if kind.id in _JSON_TEXT_TYPES:
        return "VARCHAR"
    if kind.id == "struct":
        fields = (  # Spark orders a struct's fields by name too
            f"{exp.to_identifier(name, quoted=True).sql(dialect='duckdb')} {_spark_json_type(t)}"
            for name, t in sorted(kind.children, key=lambda child: child[0])
        )
        return f"STRUCT({', '.join(fields)})"
    if kind.id == "list":
        return f"{_spark_json_type(kind.children[0][1])}[]"
    if kind.id == "map":
        key, value = (child[1] for child in kind.children)
        return f"MAP({_spark_json_type(key)}, {_spark_json_type(value)})"
    return str(kind)


def _root(path: str) -> Path:
    root = Path(local_path(path))
    return root if root.is_dir() else root.parent


def _csv_arguments(options: dict[str, str]) -> list[str]:
    values = {"header": "true"}
    infer = True
    for key, value in options.items():
        lowered = key.lower()
        if lowered == "inferschema":
            infer = str(value).lower() == "true"
        elif lowered in _CSV_OPTIONS:
            values[_CSV_OPTIONS[lowered]] = str(value)
    arguments = []
    for name, value in values.items():
        if name == "header":
            arguments.append(f"header = {str(value).lower() == 'true'}".lower())
        else:
            arguments.append(f"{name} = {exp.Literal.string(value).sql(dialect='duckdb')}")
    if not infer:
        arguments.append("all_varchar = true")
    return arguments
