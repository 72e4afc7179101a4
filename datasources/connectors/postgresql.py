from __future__ import annotations

import psycopg
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

KIND = kind_named("postgres")  # the engine's plug-in for this database: its port, its Spark driver
DEFAULT_PORT = KIND.default_port
SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")
# Options a user may pass through to libpq; anything else is refused rather than ignored.
LIBPQ_OPTIONS = {"sslmode", "sslrootcert", "application_name", "options", "target_session_attrs"}
# The same options as pgjdbc properties, so the engine connects the way the connection test did.
JDBC_PROPERTIES = {
    "sslmode": "sslmode",
    "sslrootcert": "sslrootcert",
    "application_name": "ApplicationName",
    "options": "options",
    "target_session_attrs": "targetServerType",
}
TARGET_SERVER_TYPES = {
    "any": "any",
    "read-write": "primary",
    "primary": "primary",
    "read-only": "secondary",
    "standby": "secondary",
    "prefer-standby": "preferSecondary",
}


def connection(datasource) -> ServerConnection:
    """The one place a PostgreSQL datasource becomes connection parameters (libpq and JDBC)."""
    return server_connection(datasource, DEFAULT_PORT, LIBPQ_OPTIONS, "PostgreSQL")


def jdbc_url(conn: ServerConnection) -> str:
    return f"jdbc:postgresql://{conn.address}/{conn.database}"


def jdbc_properties(conn: ServerConnection) -> dict[str, str]:
    properties = {JDBC_PROPERTIES[name]: str(value) for name, value in conn.options.items()}
    if "target_session_attrs" in conn.options:
        value = str(conn.options["target_session_attrs"])
        properties["targetServerType"] = TARGET_SERVER_TYPES.get(value, value)
    return properties


class PostgresConnector:
    default_port = DEFAULT_PORT

    def __init__(self, datasource):
        self.ds = datasource

    def _connect(self) -> psycopg.Connection:
        conn = connection(self.ds)
        try:
            return psycopg.connect(
                host=conn.host,
                port=conn.port,
                dbname=conn.database,
                user=conn.user,
                password=conn.password or None,
                connect_timeout=connect_timeout(),
                autocommit=True,
                **{k: str(v) for k, v in conn.options.items()},
            )
        except psycopg.Error as exc:
            raise ConnectorError(
                _("Cannot connect to %(kind)s at %(address)s: %(error)s")
                % {"kind": "PostgreSQL", "address": conn.address, "error": scrub(exc, conn.password)}
            ) from None

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._connect() as conn, conn.cursor() as cur:
            try:
                cur.execute("SET statement_timeout = %s" % (connect_timeout() * 1000 * 6))
                cur.execute(sql, params)
                return cur.fetchall()
            except psycopg.Error as exc:
                raise ConnectorError(
                    _("%(kind)s refused the catalog query: %(error)s")
                    % {"kind": "PostgreSQL", "error": scrub(exc, self.ds.password)}
                ) from None

    def test(self) -> str:
        (version,) = self._query("SHOW server_version")[0]
        return _("Connected to %(kind)s %(version)s, database %(database)s as %(user)s.") % {
            "kind": "PostgreSQL",
            "version": version,
            "database": repr(self.ds.database),
            "user": repr(self.ds.username),
        }

    def tables(self) -> list[str]:
        rows = self._query(
            "SELECT table_schema, table_name FROM information_schema.tables "
            "WHERE table_schema <> ALL(%s) ORDER BY table_schema, table_name",
            (list(SYSTEM_SCHEMAS),),
        )
        return [f"{schema}.{name}" for schema, name in rows]

    def columns(self, table: str) -> list[Column]:
        schema, name = split_table(table, "public")
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
