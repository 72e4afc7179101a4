from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.conf import settings
from django.utils.translation import gettext as _


class ConnectorError(Exception):
    """The source could not be reached or read; the message is safe to show to the user."""


class TableNotFound(ConnectorError):
    pass


@dataclass(frozen=True)
class Column:
    name: str
    type: str


class Connector(Protocol):
    def test(self) -> str: ...

    def tables(self) -> list[str]: ...

    def columns(self, table: str) -> list[Column]: ...

    def engine_source(self, table: str, secrets: dict[str, str]) -> dict[str, Any]:
        """The engine's source entry for `table` (dq_engine/spec.py). A password goes into
        `secrets` under the name the entry gives, never into the entry itself."""
        ...


@dataclass(frozen=True)
class ServerConnection:
    """How to reach one database server. Each server type builds it in one function
    (`postgresql.connection`, `mysql.connection`) from the datasource, its default port filling an
    empty one; the connection test, the catalog and the engine's JDBC source all start from it, so
    what tests OK is what runs."""

    host: str
    port: int
    database: str
    user: str
    password: str = field(repr=False)
    options: Mapping[str, Any]

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


# The option that pins the engine reading a datasource (Datasource.pinned_engine): the platform's,
# never passed to a driver or reader.
ENGINE_OPTION = "engine"


def reader_options(datasource) -> dict[str, Any]:
    """The datasource's options for its driver or reader (the engine pin left out)."""
    return {k: v for k, v in (datasource.options or {}).items() if k != ENGINE_OPTION}


def server_connection(datasource, default_port: int, allowed_options: set[str], label: str) -> ServerConnection:
    unknown = set(reader_options(datasource)) - allowed_options
    if unknown:
        raise ConnectorError(
            _("Unsupported %(kind)s options: %(options)s; use %(allowed)s.")
            % {"kind": label, "options": ", ".join(sorted(unknown)), "allowed": ", ".join(sorted(allowed_options))}
        )
    return ServerConnection(
        host=datasource.host,
        port=datasource.port or default_port,
        database=datasource.database,
        user=datasource.username,
        password=datasource.password,
        options=reader_options(datasource),
    )


def jdbc_source(
    datasource, conn: ServerConnection, url: str, driver: str, table: str, secrets: dict[str, str], properties: dict
) -> dict[str, Any]:
    """A JDBC source entry; the decrypted password is kept in `secrets` (memory only)."""
    secret_name = f"DQ_SECRET_{datasource.pk}"
    secrets[secret_name] = conn.password
    return {
        "kind": "jdbc",
        "url": url,
        "driver": driver,
        "table": table,
        "user": conn.user,
        "password_secret": secret_name,
        "options": properties,
    }


def connect_timeout() -> int:
    return settings.DQ_CONNECT_TIMEOUT


def scrub(message: str, secret: str) -> str:
    """Drivers may echo connection parameters in errors; never let the password through."""
    text = " ".join(str(message).split())
    return text.replace(secret, "***") if secret else text


def split_table(table: str, default_schema: str) -> tuple[str, str]:
    schema, dot, name = table.partition(".")
    return (schema, name) if dot else (default_schema, table)
