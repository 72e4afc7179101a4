"""A table as the database's catalog describes it: its columns (name, type, category, collation)
and a numeric key (the primary key, or a numeric column an index leads with).

A column's category is what the database computes with (`ref`); what Spark's JDBC reader makes of
it can differ (`spark_ref`): PostgreSQL's uuid, json, jsonb, xml and network types are strings to
Spark, MariaDB's tinyint(1) / bool and bit(1) booleans, year a date, bigint unsigned
decimal(20,0). Schema contracts check types as Spark reads them, and the writers of error rows and
the cleansed output store such a column's values as Spark would (a tinyint(1) as a boolean).

The pushdown engine resolves check columns against it (exact name first, then case-insensitively,
as Spark does) and quotes the catalog's spelling; the Spark engine asks it for a numeric key to
partition a JDBC read by (dq_engine/spark/partitions.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from dq_engine.errors import BatchError, CheckError
from dq_engine.pushdown.connection import POSTGRES, Database
from dq_engine.vocabulary import ColumnRef
from dq_engine.vocabulary.expressions import BINARY, BOOLEAN, DATE, NUMERIC, OTHER, STRING, TIMESTAMP

_PG_NUMERIC = {"smallint", "integer", "bigint", "numeric", "real", "double precision", "decimal"}
_PG_STRING = {"text", "character varying", "character", "varchar", "char", "name", "citext"}
_MY_NUMERIC = {"tinyint", "smallint", "mediumint", "int", "integer", "bigint", "decimal", "numeric", "float", "double"}
_MY_STRING = {"char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set"}
_INTEGER_TYPES = {"smallint", "integer", "bigint", "tinyint", "mediumint", "int"}
# PostgreSQL types the database cannot compare as text but Spark's JDBC reader reads as strings.
_PG_AS_TEXT = {"uuid", "json", "jsonb", "xml", "inet", "cidr", "macaddr", "macaddr8"}


@dataclass(frozen=True)
class Column:
    name: str
    data_type: str  # the catalog's name, lower-case (`integer`, `character varying`, `datetime`)
    sql_type: str  # as the type is spelt in a CAST (`numeric(10,2)`, `timestamp`)
    collation: str | None = None
    column_type: str = ""  # MariaDB/MySQL's full spelling (`tinyint(1)`, `bigint(20) unsigned`); "" on PostgreSQL

    @property
    def category(self) -> str:
        t = self.data_type
        if t in _PG_NUMERIC or t in _MY_NUMERIC:
            return NUMERIC
        if t in _PG_STRING or t in _MY_STRING:
            return STRING
        if t == "date":
            return DATE
        if t.startswith("timestamp") or t == "datetime":
            return TIMESTAMP
        if t in ("boolean", "bool"):
            return BOOLEAN
        if t in ("bytea", "binary", "varbinary", "blob", "tinyblob", "mediumblob", "longblob"):
            return BINARY
        return OTHER

    def ref(self, dialect: str) -> ColumnRef:
        try:
            sql_type = exp.DataType.build(self.sql_type, dialect=dialect)
        except Exception:  # noqa: BLE001 - a type SQLGlot cannot spell: values are not cast to it
            sql_type = None
        return ColumnRef(name=self.name, category=self.category, type=sql_type, type_name=self.sql_type)

    @property
    def spark_reads_otherwise(self) -> bool:
        """Whether Spark's JDBC reader gives the column another category than the database's."""
        return self._spark_reading() is not None

    def spark_ref(self, dialect: str) -> ColumnRef:
        """The column as Spark's JDBC reader types it (for schema contracts and the writers)."""
        reading = self._spark_reading()
        if reading is None:
            return self.ref(dialect)
        category, spark_type = reading
        return ColumnRef(
            name=self.name,
            category=category,
            type=exp.DataType.build(spark_type),
            type_name=self.column_type or self.sql_type,
        )

    def _spark_reading(self) -> tuple[str, str] | None:
        full = self.column_type.lower()
        if self.data_type in _PG_AS_TEXT:
            return STRING, "string"
        if full.startswith(("tinyint(1)", "bit(1)")) and "unsigned" not in full:
            return BOOLEAN, "boolean"
        if self.data_type == "year":
            return DATE, "date"
        if self.data_type == "bigint" and "unsigned" in full:
            return NUMERIC, "decimal(20,0)"
        return None


@dataclass(frozen=True)
class Table:
    schema: str
    name: str
    columns: tuple[Column, ...]
    numeric_key: str | None  # the primary key or a leading indexed column, when it is an integer

    @property
    def relation(self) -> exp.Table:
        return exp.table_(self.name, db=self.schema, quoted=True)

    def column(self, name: Any) -> Column:
        if not isinstance(name, str) or not name:
            raise CheckError("The check names no column.")
        matches = [c for c in self.columns if c.name == name] or [
            c for c in self.columns if c.name.casefold() == name.casefold()
        ]
        if not matches:
            shown = ", ".join(c.name for c in self.columns[:12])
            more = f", and {len(self.columns) - 12} more" if len(self.columns) > 12 else ""
            raise CheckError(f"Unknown column {name!r}; the batch has the columns {shown}{more}.")
        if len(matches) > 1:
            raise CheckError(f"Column {name!r} is ambiguous: the batch has {', '.join(c.name for c in matches)}.")
        return matches[0]


def split_table(table: str, dialect: str, database: str) -> tuple[str, str]:
    from dq_engine.identifiers import split_identifier

    parts = split_identifier(table)
    if len(parts) == 1:
        return ("public" if dialect == POSTGRES else database), parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise BatchError(f"The table name {table!r} has more than two parts.")


def describe_table(db: Database, table: str) -> Table:
    """The table's columns and numeric key; BatchError when it does not exist."""
    schema, name = split_table(table, db.where.dialect, db.where.database)
    if db.where.dialect == POSTGRES:
        columns = [Column(n, t.lower(), sql_type, None) for n, t, sql_type in db.rows(_PG_COLUMNS, (schema, name))]
        key_rows = db.rows(_PG_KEYS, (schema, name))
    else:
        # MySQL spells a CAST's type otherwise than a column's (`int(11)` is `SIGNED`): the bare type
        # name is cast to, with the precision only where it changes the value (decimal).
        columns = [
            Column(
                n,
                t.lower(),
                sql_type.lower() if t.lower() in ("decimal", "numeric") else t.lower(),
                collation,
                sql_type.lower(),
            )
            for n, t, sql_type, collation in db.rows(_MY_COLUMNS, (schema, name))
        ]
        key_rows = db.rows(_MY_KEYS, (schema, name))
    if not columns:
        raise BatchError(f"Table {schema}.{name} does not exist in {db.where.describe()} (or is not visible).")
    by_name = {c.name: c for c in columns}
    key = next((k for (k,) in key_rows if k in by_name and by_name[k].data_type in _INTEGER_TYPES), None)
    return Table(schema=schema, name=name, columns=tuple(columns), numeric_key=key)


# The catalog queries take the schema and table as driver parameters.
_PG_COLUMNS = (
    "SELECT a.attname, COALESCE(c.data_type, format_type(a.atttypid, a.atttypmod)), "
    "format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
    "JOIN pg_class t ON t.oid = a.attrelid JOIN pg_namespace s ON s.oid = t.relnamespace "
    "LEFT JOIN information_schema.columns c ON c.table_schema = s.nspname AND c.table_name = t.relname "
    "AND c.column_name = a.attname "
    "WHERE s.nspname = %s AND t.relname = %s AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum"
)
# Columns that lead an index, the primary key first.
_PG_KEYS = (
    "SELECT a.attname FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid "
    "JOIN pg_namespace s ON s.oid = t.relnamespace "
    "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0] "
    "WHERE s.nspname = %s AND t.relname = %s ORDER BY i.indisprimary DESC, i.indisunique DESC"
)
_MY_COLUMNS = (
    "SELECT column_name, data_type, column_type, collation_name FROM information_schema.columns "
    "WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position"
)
_MY_KEYS = (
    "SELECT column_name FROM information_schema.statistics "
    "WHERE table_schema = %s AND table_name = %s AND seq_in_index = 1 "
    "ORDER BY index_name = 'PRIMARY' DESC, non_unique ASC"
)
