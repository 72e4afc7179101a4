"""A database behind a JDBC source, reached with its Python driver (psycopg / PyMySQL), read-only.

The spec names sources by JDBC URL (dq_engine/spec.py); the pushdown engine reads the host, port
and database from it and connects with the Python driver of that server. Every statement runs in
a read-only transaction of its own (`SET TRANSACTION READ ONLY` / `START TRANSACTION READ ONLY`)
under a statement timeout (PostgreSQL `statement_timeout` set LOCAL to the transaction, MariaDB
`max_statement_time`, MySQL `max_execution_time`), so a check can neither write nor run forever,
and a failing statement leaves the next one a clean transaction (failure isolation).

The password comes from the secrets mapping by the name the source gives; no message carries it
(`Database.say` redacts it), nor the URL's query string.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from dq_engine.errors import BatchError, describe
from dq_engine.spec import JdbcSource

POSTGRES, MYSQL = "postgres", "mysql"  # the SQLGlot dialects the engine renders with
CONNECT_TIMEOUT_SECONDS = 10
DEFAULT_STATEMENT_TIMEOUT_SECONDS = 15 * 60
_URL = re.compile(
    r"^jdbc:(?P<scheme>postgresql|mysql|mariadb)://(?P<host>\[[^\]]+\]|[^:/?;]+)(?::(?P<port>\d+))?"
    r"(?:/(?P<database>[^?;]*))?(?:\?(?P<query>.*))?$",
    re.IGNORECASE,
)
_DEFAULT_PORTS = {POSTGRES: 5432, MYSQL: 3306}


@dataclass(frozen=True)
class Address:
    """Where a source's database is: what two sources must share to be joined in one query."""

    dialect: str
    host: str
    port: int
    database: str
    user: str
    properties: tuple[tuple[str, str], ...] = field(default=())

    def describe(self) -> str:
        return f"{'PostgreSQL' if self.dialect == POSTGRES else 'MySQL/MariaDB'} at {self.host}:{self.port}/{self.database}"


def dialect_of(source: Any) -> str | None:
    """'postgres' or 'mysql' for a JDBC source the engine can push down into; None otherwise."""
    if not isinstance(source, JdbcSource):
        return None
    match = _URL.match(source.url.strip())
    if match is None:
        return None
    return POSTGRES if match["scheme"].lower() == "postgresql" else MYSQL


def address(source: JdbcSource) -> Address:
    match = _URL.match(source.url.strip())
    if match is None:
        raise BatchError("The source's JDBC URL is not jdbc:postgresql://, jdbc:mysql:// or jdbc:mariadb://.")
    dialect = POSTGRES if match["scheme"].lower() == "postgresql" else MYSQL
    properties = dict(parse_qsl(match["query"] or "", keep_blank_values=True))
    properties.update(source.options)
    return Address(
        dialect=dialect,
        host=match["host"].strip("[]"),
        port=int(match["port"] or _DEFAULT_PORTS[dialect]),
        database=match["database"] or "",
        user=source.user,
        properties=tuple(sorted(properties.items())),
    )


def password_of(source: JdbcSource, secrets: Mapping[str, str]) -> str | None:
    if not source.password_secret:
        return None
    password = secrets.get(source.password_secret)
    if password is None:
        raise BatchError(
            f"The password secret {source.password_secret} is not set; the engine takes it from the "
            "worker's secrets (or the environment for the command line)."
        )
    return password


class Database:
    """One connection to a source's database for the length of a run; statements one at a time.

    - `rows(sql)`: all rows of a read-only statement; `fetch(sql, limit)`: column names and at
      most `limit` rows (error rows);
    - `cancel()`: stops the running statement (from another thread), used when the run is cancelled.
    """

    def __init__(self, where: Address, password: str | None, statement_timeout: int):
        self.where, self.password, self.timeout = where, password, max(1, int(statement_timeout))
        self.lock = threading.Lock()
        self.mariadb = False
        self.conn = self._connect()

    def say(self, exc: BaseException) -> str:
        return describe(exc, [self.password] if self.password else [], explain=_driver_message)

    def _connect(self) -> Any:
        where = self.where
        props = dict(where.properties)
        if where.dialect == POSTGRES:
            import psycopg

            kwargs: dict[str, Any] = {}
            if "sslmode" in props:
                kwargs["sslmode"] = props["sslmode"]
            conn = psycopg.connect(
                host=where.host,
                port=where.port,
                dbname=where.database,
                user=where.user or None,
                password=self.password,
                connect_timeout=CONNECT_TIMEOUT_SECONDS,
                application_name="dq-engine-pushdown",
                autocommit=True,  # transactions are begun explicitly, one per statement
                **kwargs,
            )
            conn.read_only = True  # every transaction of this connection is read-only, besides SET TRANSACTION
            return conn
        import pymysql

        ssl = {"ssl_disabled": True} if props.get("useSsl", "").lower() == "false" else {}
        conn = pymysql.connect(
            host=where.host,
            port=where.port,
            user=where.user or None,
            password=self.password or "",
            database=where.database or None,
            charset="utf8mb4",
            connect_timeout=CONNECT_TIMEOUT_SECONDS,
            autocommit=True,
            **ssl,
        )
        with conn.cursor() as cur:
            # Every transaction of the session read-only, autocommitted statements and DDL included
            # (START TRANSACTION READ ONLY alone would let DDL's implicit commit through).
            cur.execute("SET SESSION TRANSACTION READ ONLY")
            cur.execute("SELECT VERSION()")
            self.mariadb = "mariadb" in str(cur.fetchone()[0]).lower()
            # The session's statement limit (MariaDB seconds, MySQL milliseconds); a number, not user text.
            if self.mariadb:
                cur.execute("SET SESSION max_statement_time = %s", (self.timeout,))
            else:
                cur.execute("SET SESSION max_execution_time = %s", (self.timeout * 1000,))
            # ANSI_QUOTES off and no PIPES_AS_CONCAT: the SQL is rendered for MySQL's default reading.
            cur.execute("SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION'")
        return conn

    def fetch(self, sql: str, limit: int | None = None, params: tuple = ()) -> tuple[list[str], list[tuple]]:
        """Run one SELECT in a read-only transaction of its own; (column names, rows). `params`
        only for the engine's own catalog queries (%s placeholders); rendered SQL takes none."""
        with self.lock:
            if self.where.dialect == POSTGRES:
                return self._fetch_postgres(sql, limit, params)
            return self._fetch_mysql(sql, limit, params)

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        return self.fetch(sql, params=params)[1]

    def _fetch_postgres(self, sql: str, limit: int | None, params: tuple) -> tuple[list[str], list[tuple]]:
        with self.conn.transaction(), self.conn.cursor() as cur:
            cur.execute("SET TRANSACTION READ ONLY")
            cur.execute("SELECT set_config('statement_timeout', %s, true)", (f"{self.timeout}s",))
            # Without params psycopg reads no placeholders in the text (a '%' in a literal stays one).
            cur.execute(sql.encode("utf-8"), params or None)
            names = [column.name for column in cur.description or []]
            return names, cur.fetchmany(limit) if limit is not None else cur.fetchall()

    def _fetch_mysql(self, sql: str, limit: int | None, params: tuple) -> tuple[list[str], list[tuple]]:
        with self.conn.cursor() as cur:
            cur.execute("START TRANSACTION READ ONLY")
            try:
                cur.execute(sql, params or None)  # no args: PyMySQL interpolates nothing into the text
                names = [column[0] for column in cur.description or []]
                rows = list(cur.fetchmany(limit) if limit is not None else cur.fetchall())
            finally:
                try:
                    cur.execute("COMMIT")
                except Exception:  # noqa: BLE001 - a dead connection: the statement's error says why
                    pass
            return names, rows

    def cancel(self) -> None:
        try:
            if self.where.dialect == POSTGRES:
                self.conn.cancel_safe(timeout=5)
            else:
                import pymysql

                killer = pymysql.connect(
                    host=self.where.host,
                    port=self.where.port,
                    user=self.where.user or None,
                    password=self.password or "",
                    connect_timeout=CONNECT_TIMEOUT_SECONDS,
                )
                with killer.cursor() as cur:
                    cur.execute("KILL QUERY %s", (int(self.conn.thread_id()),))
                killer.close()
        except Exception:  # noqa: BLE001 - best effort: the statement timeout ends it anyway
            pass

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:  # noqa: BLE001
            pass


def connect(source: JdbcSource, secrets: Mapping[str, str], statement_timeout: int) -> Database:
    """A connection to the source's database; raises BatchError with a password-free reason."""
    where = address(source)
    password = password_of(source, secrets)
    try:
        return Database(where, password, statement_timeout)
    except Exception as exc:  # noqa: BLE001 - any driver failure: the batch's error, redacted
        reason = describe(exc, [password] if password else [], explain=_driver_message)
        raise BatchError(f"Cannot connect to {where.describe()}: {reason}") from None


def _driver_message(exc: BaseException) -> str:
    """The driver's own text: PyMySQL's errors are (code, message) tuples; psycopg's carry a
    PostgreSQL message whose first line says it."""
    args: Sequence[Any] = getattr(exc, "args", ())
    if type(exc).__module__.startswith("pymysql") and len(args) > 1:
        return f"{type(exc).__name__}: ({args[0]}) {args[1]}"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else ""
