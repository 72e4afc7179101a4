from __future__ import annotations

import pymysql
from django.utils.translation import gettext as _

from dq_engine.databases import kind_named

from .base import (
    Column,
    ConnectorError,
    ServerConnection,
    TableNotFound,
    connect_timeout,
    jdbc_source,
    scrub,
    server_connection,
    split_table,
)

KIND = kind_named("mysql")  # the engine's plug-in for this database: its port, its Spark driver
DEFAULT_PORT = KIND.default_port
# Options a user may pass through to the driver; anything else is refused rather than ignored.
DRIVER_OPTIONS = {"charset", "ssl_disabled"}


def connection(datasource) -> ServerConnection:
    """The one place a MySQL/MariaDB datasource becomes connection parameters (PyMySQL and JDBC)."""
    return server_connection(datasource, DEFAULT_PORT, DRIVER_OPTIONS, "MySQL")


def jdbc_url(conn: ServerConnection) -> str:
    return f"jdbc:mariadb://{conn.address}/{conn.database}"


def jdbc_properties(conn: ServerConnection) -> dict[str, str]:
    # `charset` needs no property: MariaDB Connector/J always talks utf8mb4.
    if "ssl_disabled" in conn.options:
        return {"useSsl": "false" if _truthy(conn.options["ssl_disabled"]) else "true"}
    return {}


def _truthy(value) -> bool:
    return str(value).strip().lower() in ("1", "true", "yes", "on")


class MySQLConnector:
    """MySQL and MariaDB. Tables are named `<database>.<table>`."""

    default_port = DEFAULT_PORT

    def __init__(self, datasource):
        self.ds = datasource

    def _connect(self):
        conn = connection(self.ds)
        try:
            return pymysql.connect(
                host=conn.host,
                port=conn.port,
                user=conn.user,
                password=conn.password,
                database=conn.database,
                connect_timeout=connect_timeout(),
                read_timeout=connect_timeout() * 6,
                **conn.options,
            )
        except pymysql.MySQLError as exc:
            raise ConnectorError(
                _("Cannot connect to %(kind)s at %(address)s: %(error)s")
                % {"kind": "MySQL", "address": conn.address, "error": scrub(_text(exc), conn.password)}
            ) from None

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        conn = self._connect()
        try:
            with conn.cursor() as cur:
                cur.execute(sql, params)
                return list(cur.fetchall())
        except pymysql.MySQLError as exc:
            raise ConnectorError(
                _("%(kind)s refused the catalog query: %(error)s")
                % {"kind": "MySQL", "error": scrub(_text(exc), self.ds.password)}
            ) from None
        finally:
            conn.close()

    def test(self) -> str:
        ((version,),) = self._query("SELECT VERSION()")
        return _("Connected to %(kind)s %(version)s, database %(database)s as %(user)s.") % {
            "kind": "MySQL/MariaDB",
            "version": version,
            "database": repr(self.ds.database),
            "user": repr(self.ds.username),
        }

    def tables(self) -> list[str]:
        rows = self._query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s ORDER BY table_name",
            (self.ds.database,),
        )
        return [f"{self.ds.database}.{name}" for (name,) in rows]

    def columns(self, table: str) -> list[Column]:
        schema, name = split_table(table, self.ds.database)
        rows = self._query(
            "SELECT column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position",
            (schema, name),
        )
        if not rows:
            raise TableNotFound(
                _("Table %(table)s does not exist in %(datasource)s.")
                % {"table": repr(table), "datasource": repr(self.ds.name)}
            )
        return [Column(n, t) for n, t in rows]

    def engine_source(self, table: str, secrets: dict[str, str]) -> dict:
        conn = connection(self.ds)
        return jdbc_source(self.ds, conn, jdbc_url(conn), KIND.spark_driver, table, secrets, jdbc_properties(conn))


def _text(exc: Exception) -> str:
    # pymysql errors are (code, message) tuples; the message alone reads better.
    return str(exc.args[1]) if len(exc.args) > 1 else str(exc)
