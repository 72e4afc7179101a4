from __future__ import annotations

import pymysql

from .base import Column, ConnectorError, TableNotFound, connect_timeout, jdbc_source, scrub, split_table

# Options a user may pass through to the driver; anything else is refused rather than ignored.
DRIVER_OPTIONS = {"charset", "ssl_disabled"}


class MySQLConnector:
    """MySQL and MariaDB. Tables are named `<database>.<table>` (DESIGN.md)."""

    def __init__(self, datasource):
        self.ds = datasource

    def _connect(self):
        unknown = set(self.ds.options) - DRIVER_OPTIONS
        if unknown:
            raise ConnectorError(f"Unsupported MySQL options: {', '.join(sorted(unknown))}.")
        password = self.ds.password
        try:
            return pymysql.connect(
                host=self.ds.host,
                port=self.ds.port,
                user=self.ds.username,
                password=password,
                database=self.ds.database,
                connect_timeout=connect_timeout(),
                read_timeout=connect_timeout() * 6,
                **self.ds.options,
            )
        except pymysql.MySQLError as exc:
            raise ConnectorError(
                f"Cannot connect to MySQL at {self.ds.host}:{self.ds.port}: {scrub(_text(exc), password)}"
            ) from None

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        conn = self._connect()
        try:
            with conn.cursor() as cur:
                cur.execute(sql, params)
                return list(cur.fetchall())
        except pymysql.MySQLError as exc:
            raise ConnectorError(f"MySQL refused the catalog query: {scrub(_text(exc), self.ds.password)}") from None
        finally:
            conn.close()

    def test(self) -> str:
        ((version,),) = self._query("SELECT VERSION()")
        return f"Connected to MySQL/MariaDB {version}, database {self.ds.database!r} as {self.ds.username!r}."

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
            raise TableNotFound(f"Table {table!r} does not exist in {self.ds.name!r}.")
        return [Column(n, t) for n, t in rows]

    def engine_source(self, table: str, secrets: dict[str, str]) -> dict:
        url = f"jdbc:mariadb://{self.ds.host}:{self.ds.port}/{self.ds.database}"
        return jdbc_source(self.ds, url, "org.mariadb.jdbc.Driver", table, secrets)


def _text(exc: Exception) -> str:
    # pymysql errors are (code, message) tuples; the message alone reads better.
    return str(exc.args[1]) if len(exc.args) > 1 else str(exc)
