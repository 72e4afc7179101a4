from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from django.conf import settings


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


def jdbc_source(datasource, url: str, driver: str, table: str, secrets: dict[str, str]) -> dict[str, Any]:
    """A JDBC source entry; the decrypted password is kept in `secrets` (memory only)."""
    secret_name = f"DQ_SECRET_{datasource.pk}"
    secrets[secret_name] = datasource.password
    return {
        "kind": "jdbc",
        "url": url,
        "driver": driver,
        "table": table,
        "user": datasource.username,
        "password_secret": secret_name,
        "options": {},
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
