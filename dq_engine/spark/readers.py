"""Readers: a spec source → a Spark DataFrame (lazy; only the schema is looked up here).

JDBC: the driver class is always passed ("No suitable driver" otherwise),
the table identifier is quoted for the dialect, the password comes from the secrets mapping by the
name the spec gives (never from the spec, never logged), and connect/login timeouts make an
unreachable database fail within seconds instead of minutes. DataFrame aggregates over a JDBC
read are computed in Spark, not pushed down: the engine reads each batch once and fuses
its checks, so the table crosses the wire once per run.

Files: parquet, csv (header and schema inference on unless the source's options say otherwise),
json, orc; any path Spark understands (local, file://, hdfs://, s3a://). A file source's path is
already the dataset (a directory of part files or a single file).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

from dq_engine.databases import kind_for_url, password_of
from dq_engine.errors import DATASET, TABLE_AT
from dq_engine.identifiers import split_identifier
from dq_engine.spec import FileSource, JdbcSource
from dq_engine.words import say

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

logger = logging.getLogger(__name__)

# Options the spec may not override: they decide what is read and as whom, or run statements
# on the database (the engine only ever reads the one table the check names).
_RESERVED_JDBC_OPTIONS = frozenset(
    {"url", "driver", "dbtable", "query", "user", "password", "sessioninitstatement", "preparequery"}
)
_CSV_DEFAULTS = {"header": "true", "inferSchema": "true"}


def read_source(
    spark: SparkSession, source: JdbcSource | FileSource, secrets: Mapping[str, str] | None = None
) -> DataFrame:
    """Open a source. Raises BatchError (password missing) or Spark's error (unreachable, no path)."""
    if isinstance(source, JdbcSource):
        return read_jdbc(spark, source, secrets or {})
    return read_files(spark, source)


def read_jdbc(spark: SparkSession, source: JdbcSource, secrets: Mapping[str, str]) -> DataFrame:
    """A JDBC read, partitioned by the table's numeric key when it has one (partitions.py)."""
    from dq_engine.databases.partitions import DEFAULT_PARTITIONS, partition_options

    reader = spark.read.format("jdbc")
    options = jdbc_options(source, secrets)
    options.update(partition_options(source, secrets, DEFAULT_PARTITIONS))
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


def jdbc_options(source: JdbcSource, secrets: Mapping[str, str]) -> dict[str, str]:
    """All options of a JDBC read, password included (the caller must not log them)."""
    options = dict(_timeout_defaults(source.url))
    for key, value in source.options.items():
        if key.lower() in _RESERVED_JDBC_OPTIONS:
            logger.warning("JDBC option %r is set by the engine; the source's value is ignored.", key)
            continue
        options[key] = str(value)
    options.update(
        {"url": spark_jdbc_url(source.url), "driver": source.driver, "dbtable": quote_table(source.url, source.table)}
    )
    if source.user:
        options["user"] = source.user
    password = password_of(source, secrets)
    if password is not None:
        options["password"] = password
    return options


def spark_jdbc_url(url: str) -> str:
    """The URL handed to Spark, as the database's plug-in gives it (MariaDB's scheme becomes MySQL's,
    so Spark picks its MySQL dialect: dq_engine/databases/mysql.py says why)."""
    kind = kind_for_url(url)
    return kind.spark_url(url) if kind is not None else url


def _timeout_defaults(url: str) -> dict[str, str]:
    kind = kind_for_url(url)
    return kind.spark_options() if kind is not None else {}


# How databases no plug-in knows quote a name: SQL Server with brackets, the rest as ANSI SQL.
_OTHER_QUOTES = {("jdbc:sqlserver:", "jdbc:jtds:"): ("[", "]")}


def quote_table(url: str, table: str) -> str:
    """Quote a `schema.table` (PostgreSQL) or `database.table` (MySQL) name for the URL's database.

    Spark pastes `dbtable` into `SELECT ... FROM <dbtable>`, so each part is quoted with embedded
    quote characters doubled: a name can never end the identifier early. Parts may already be
    quoted by the user ("My Schema".orders); they are unquoted first, then quoted again.
    """
    parts = split_identifier(table)
    kind = kind_for_url(url)
    opening = closing = kind.identifier_quote if kind is not None else '"'
    for prefixes, (first, last) in _OTHER_QUOTES.items():
        if kind is None and url.lower().startswith(prefixes):
            opening, closing = first, last
    return ".".join(opening + part.replace(closing, closing * 2) + closing for part in parts)


def read_files(spark: SparkSession, source: FileSource) -> DataFrame:
    options = dict(_CSV_DEFAULTS) if source.format == "csv" else {}
    options.update({key: str(value) for key, value in source.options.items()})
    return spark.read.format(source.format).options(**options).load(source.path)


def describe_source(source: JdbcSource | FileSource) -> str:
    """How a source is named in messages: no query string (it could hold credentials)."""
    if isinstance(source, JdbcSource):
        return say(TABLE_AT, table=source.table, where=source.url.split("?", 1)[0].split(";", 1)[0])
    return say(DATASET, format=source.format, path=source.path)
