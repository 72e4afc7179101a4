"""A run's batches on DuckDB: each read through its table function, filtered (the filter parsed by
sql_safety and rendered for DuckDB), sampled if asked, and named as a temp view every pass reads;
its columns as the vocabulary sees them.

A sampled batch, or one limited to its first rows (a preview), is materialised as a temp table,
so every pass sees the same rows. A batch that cannot be read, filtered or sampled is an error for
every check on it (`open` raises BatchError saying why).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from dq_engine.duckdb import readers
from dq_engine.duckdb.sql import NotPortable, filter_sql
from dq_engine.errors import (
    BAD_LIMIT,
    BAD_SAMPLE,
    DATASET,
    FILTER_NOT_APPLIED,
    FILTER_REFUSED,
    UNREADABLE,
    BatchError,
    column_problem,
)
from dq_engine.spec import JobSpec
from dq_engine.sql_safety import UnsafeSQL
from dq_engine.vocabulary import ColumnRef
from dq_engine.vocabulary.expressions import BINARY, BOOLEAN, DATE, NUMERIC, OTHER, STRING, TIMESTAMP
from dq_engine.words import say

if TYPE_CHECKING:
    import duckdb

SAMPLE_SEED = 20261130
_NUMERIC = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT")
_NUMERIC += ("UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL", "REAL")


def quote(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect="duckdb")


class Batches:
    def __init__(self, spec: JobSpec, con: duckdb.DuckDBPyConnection, say: Callable[[BaseException], str]):
        self.spec, self.con, self.say = spec, con, say
        self.views: dict[str, str] = {}
        self.columns: dict[str, list[tuple[str, str]]] = {}  # batch -> [(name, DuckDB type)]

    def open(self, name: str) -> None:
        """The batch as a temp view; BatchError saying why it cannot be read, filtered or sampled."""
        batch = self.spec.batches[name]
        source = self.spec.sources[batch.source]
        explain = self.say
        view = f"dq_batch_{len(self.views)}"
        try:
            reading = readers.table_function(source, self.con)
            raw = self.con.sql(f"SELECT * FROM {reading}").columns  # binds: the files and their schema
        except Exception as exc:  # noqa: BLE001 - any reader failure is this batch's error
            where = say(DATASET, format=source.format, path=source.path)
            raise BatchError(say(UNREADABLE, name=name, source=where, why=explain(exc))) from None
        query = f"SELECT * FROM {reading}"
        if batch.filter:
            try:
                query += f" WHERE {filter_sql(batch.filter, raw)}"
            except (UnsafeSQL, NotPortable) as exc:
                raise BatchError(say(FILTER_REFUSED, name=name, why=explain(exc))) from None
        fraction = batch.sample_fraction
        if fraction is not None and (
            isinstance(fraction, bool) or not isinstance(fraction, int | float) or not 0 < fraction <= 1
        ):
            raise BatchError(say(BAD_SAMPLE, name=name, value=repr(fraction))) from None
        if batch.limit is not None and (
            isinstance(batch.limit, bool) or not isinstance(batch.limit, int) or batch.limit < 1
        ):
            raise BatchError(say(BAD_LIMIT, name=name, value=repr(batch.limit))) from None
        sampled = fraction is not None and fraction < 1
        try:
            if sampled:
                percent = repr(float(fraction) * 100)
                query = f"SELECT * FROM ({query}) USING SAMPLE {percent} PERCENT (bernoulli, {SAMPLE_SEED})"
            if batch.limit is not None:  # a preview's sample: the first rows the source yields, as on Spark
                query = f"SELECT * FROM ({query}) LIMIT {int(batch.limit)}"
            if sampled or batch.limit is not None:
                # Materialised: every pass sees the same rows (a sample or a LIMIT is drawn once).
                self.con.execute(f"CREATE TEMP TABLE {quote(view)} AS {query}")
            else:
                self.con.execute(f"CREATE TEMP VIEW {quote(view)} AS {query}")
            described = self.con.execute(f"DESCRIBE {quote(view)}").fetchall()
        except Exception as exc:  # noqa: BLE001 - DuckDB's binding of the filter
            raise BatchError(say(FILTER_NOT_APPLIED, name=name, why=explain(exc))) from None
        self.views[name] = view
        self.columns[name] = [(row[0], row[1]) for row in described]

    def view(self, name: str) -> str:
        """The batch's view as a quoted identifier."""
        return quote(self.views[name])

    def refs(self, name: str) -> dict[str, ColumnRef]:
        """Every column of the batch by name (row rules and schema contracts read any of them)."""
        return {column: column_ref(column, type_name) for column, type_name in self.columns[name]}

    def column(self, name: str, column: Any) -> ColumnRef:
        """A batch column (exact name first, then case-insensitive, like Spark); CheckError otherwise."""
        fields = self.columns[name]
        matches = []
        if isinstance(column, str) and column:
            matches = [f for f in fields if f[0] == column] or [
                f for f in fields if f[0].casefold() == column.casefold()
            ]
        if len(matches) != 1:
            raise column_problem(column, [f[0] for f in fields], [f[0] for f in matches])
        return column_ref(*matches[0])


def column_ref(name: str, type_name: str) -> ColumnRef:
    try:
        sql_type = exp.DataType.build(type_name, dialect="duckdb")
    except Exception:  # noqa: BLE001 - a type SQLGlot cannot spell: values are not cast to it
        sql_type = None
    return ColumnRef(name=name, category=category(type_name), type=sql_type, type_name=type_name.lower())


def category(type_name: str) -> str:
    upper = type_name.upper()
    base = upper.split("(", 1)[0].strip()
    if base in ("VARCHAR", "TEXT", "STRING", "CHAR", "BPCHAR"):
        return STRING
    if base in _NUMERIC:
        return NUMERIC
    if base == "DATE":
        return DATE
    if base.startswith("TIMESTAMP"):
        return TIMESTAMP
    if base in ("BOOLEAN", "BOOL"):
        return BOOLEAN
    if base in ("BLOB", "BYTEA"):
        return BINARY
    return OTHER
