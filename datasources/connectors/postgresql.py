from __future__ import annotations

import psycopg

from .base import Column, ConnectorError, TableNotFound, connect_timeout, jdbc_source, scrub, split_table

SYSTEM_SCHEMAS = ("pg_catalog", "information_schema", "pg_toast")
# Options a user may pass through to libpq; anything else is refused rather than ignored.
LIBPQ_OPTIONS = {"sslmode", "sslrootcert", "application_name", "options", "target_session_attrs"}


class PostgresConnector:
    def __init__(self, datasource):
        self.ds = datasource

    def _connect(self) -> psycopg.Connection:
        unknown = set(self.ds.options) - LIBPQ_OPTIONS
        if unknown:
            raise ConnectorError(f"Unsupported PostgreSQL options: {', '.join(sorted(unknown))}.")
        password = self.ds.password
        try:
            return psycopg.connect(
                host=self.ds.host,
                port=self.ds.port,
                dbname=self.ds.database,
                user=self.ds.username,
                password=password or None,
                connect_timeout=connect_timeout(),
                autocommit=True,
                **{k: str(v) for k, v in self.ds.options.items()},
            )
        except psycopg.Error as exc:
            raise ConnectorError(
                f"Cannot connect to PostgreSQL at {self.ds.host}:{self.ds.port}: {scrub(exc, password)}"
            ) from None

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._connect() as conn, conn.cursor() as cur:
            try:
                cur.execute("SET statement_timeout = %s" % (connect_timeout() * 1000 * 6))
                cur.execute(sql, params)
                return cur.fetchall()
            except psycopg.Error as exc:
                raise ConnectorError(f"PostgreSQL refused the catalog query: {scrub(exc, self.ds.password)}") from None

    def test(self) -> str:
        (version,) = self._query("SHOW server_version")[0]
        return f"Connected to PostgreSQL {version}, database {self.ds.database!r} as {self.ds.username!r}."

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
            raise TableNotFound(f"Table {table!r} does not exist in {self.ds.name!r}.")
        return [Column(n, t) for n, t in rows]

    def engine_source(self, table: str, secrets: dict[str, str]) -> dict:
        url = f"jdbc:postgresql://{self.ds.host}:{self.ds.port}/{self.ds.database}"
        return jdbc_source(self.ds, url, "org.postgresql.Driver", table, secrets)
