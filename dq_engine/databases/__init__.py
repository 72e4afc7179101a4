"""Databases as plug-ins: one module per database (postgres.py, mysql.py), one registry.

A JDBC source names its database by its URL's scheme (`jdbc:postgresql://`, `jdbc:mariadb://`);
`kind_of(source)` finds the plug-in (a `Kind`, base.py) that knows it, and everything that differs
between databases is asked of it: the pushdown engine's connection, catalog, exact string
comparison, regular expressions and functions; Spark's JDBC driver, URL, options and partition
bounds. Adding a database is one module with a `KIND` and its line in `_MODULES` (docs/databases.md).

Importing this package imports no database driver; each kind imports its own when it connects.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import parse_qsl

from dq_engine.databases.base import (
    CONNECT_TIMEOUT_SECONDS,
    DEFAULT_STATEMENT_TIMEOUT_SECONDS,
    NOT_PUSHED,
    TEXT_TIMES,
    Address,
    Column,
    Connection,
    Kind,
    Table,
    integer_key,
    password_of,
)
from dq_engine.errors import NO_TABLE, BatchError, describe
from dq_engine.spec import JdbcSource
from dq_engine.words import say

__all__ = [
    "CONNECT_TIMEOUT_SECONDS",
    "DEFAULT_STATEMENT_TIMEOUT_SECONDS",
    "NOT_PUSHED",
    "TEXT_TIMES",
    "Address",
    "Column",
    "Connection",
    "Kind",
    "Table",
    "address",
    "connect",
    "describe_table",
    "kind_for_url",
    "kind_named",
    "kind_of",
    "kinds",
    "stream",
]

_MODULES = ("dq_engine.databases.postgres", "dq_engine.databases.mysql")
_URL = re.compile(
    r"^jdbc:(?P<scheme>[a-z0-9]+)://(?P<host>\[[^\]]+\]|[^:/?;]+)(?::(?P<port>\d+))?"
    r"(?:/(?P<database>[^?;]*))?(?:\?(?P<query>.*))?$",
    re.IGNORECASE,
)
_KINDS: list[Kind] = []


def kinds() -> list[Kind]:
    if not _KINDS:
        _KINDS.extend(importlib.import_module(name).KIND for name in _MODULES)
    return _KINDS


def kind_named(name: str) -> Kind:
    """The kind whose name (SQLGlot dialect) is `name`; KeyError for none."""
    for kind in kinds():
        if kind.name == name:
            return kind
    raise KeyError(name)


def kind_for_url(url: str) -> Kind | None:
    """The kind a JDBC URL's scheme names, or None."""
    match = re.match(r"^jdbc:([a-z0-9]+):", url.strip(), re.IGNORECASE)
    if match is None:
        return None
    scheme = match.group(1).lower()
    return next((kind for kind in kinds() if scheme in kind.schemes), None)


def kind_of(source: Any) -> Kind | None:
    """The kind of a JDBC source some plug-in can reach with its URL, or None."""
    if not isinstance(source, JdbcSource):
        return None
    kind = kind_for_url(source.url)
    return kind if kind is not None and kind.parse_url(source.url.strip()) is not None else None


def server_url(url: str) -> dict[str, Any] | None:
    """host, port, database and query of a `jdbc:<scheme>://host[:port][/database][?query]` URL."""
    match = _URL.match(url)
    if match is None:
        return None
    return {
        "host": match["host"].strip("[]"),
        "port": match["port"],
        "database": match["database"] or "",
        "query": match["query"] or "",
    }


def address(source: JdbcSource) -> Address:
    kind = kind_of(source)
    parts = kind.parse_url(source.url.strip()) if kind is not None else None
    if kind is None or parts is None:
        schemes = ", ".join(f"jdbc:{s}:" for k in kinds() for s in k.schemes)
        raise BatchError(f"The source's JDBC URL does not start with one of {schemes}, or is not well formed.")
    properties = dict(parse_qsl(parts["query"], keep_blank_values=True))
    properties.update(source.options)
    return Address(
        dialect=kind.name,
        host=parts["host"],
        port=int(parts["port"] or kind.default_port),
        database=parts["database"],
        user=source.user,
        properties=tuple(sorted(properties.items())),
    )


def connect(source: JdbcSource, secrets: Mapping[str, str], statement_timeout: int) -> Connection:
    """A connection to the source's database; raises BatchError with a password-free reason."""
    where = address(source)
    kind = kind_named(where.dialect)
    password = password_of(source, secrets)
    try:
        return Connection(kind, where, password, statement_timeout)
    except Exception as exc:  # noqa: BLE001 - any driver failure: the batch's error, redacted
        reason = describe(exc, [password] if password else [], explain=kind.driver_message)
        raise BatchError(f"Cannot connect to {where.describe()}: {reason}") from None


def split_table(table: str, db: Connection) -> tuple[str, str]:
    from dq_engine.identifiers import split_identifier

    parts = split_identifier(table)
    if len(parts) == 1:
        return db.kind.default_schema(db.where), parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise BatchError(f"The table name {table!r} has more than two parts.")


def describe_table(db: Connection, table: str) -> Table:
    """The table's columns and numeric key; BatchError when it does not exist."""
    schema, name = split_table(table, db)
    columns = db.kind.columns(db, schema, name)
    if not columns:
        raise BatchError(say(NO_TABLE, table=f"{schema}.{name}", where=db.where.describe()))
    key = integer_key(columns, db.kind.key_candidates(db, schema, name), db.kind.integer_types)
    return Table(schema=schema, name=name, columns=tuple(columns), numeric_key=key)


CHUNK_ROWS = 10_000


def stream(db: Connection, sql: str, chunk_rows: int = CHUNK_ROWS) -> tuple[list[str], Iterator[list[tuple]]]:
    """A SELECT's rows in chunks of at most `chunk_rows` (column names, chunks), from a cursor that
    keeps the result on the server, in the same read-only transaction and statement timeout as
    `Connection.fetch`. The statement runs at once (its errors raise here); the chunks are read as
    they are consumed, and the transaction ends after the last one (or when the iterator is
    closed). The connection's lock is held until then, so no other statement interleaves."""

    def held() -> Iterator:
        with db.lock:
            yield from db.kind.stream(db, sql, chunk_rows)

    rows = held()
    names = next(rows)
    return names, rows  # type: ignore[return-value]
