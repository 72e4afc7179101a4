"""Catalog browsing and connection tests against live sources, one module per datasource type.

Registered by dotted path and imported on first use, so a missing optional driver only breaks
its own type. Spark reads data in `dq_engine`; these connectors only look at catalogs.
"""

from __future__ import annotations

from importlib import import_module

from .base import Column, Connector, ConnectorError, TableNotFound

CONNECTORS = {
    "postgresql": "datasources.connectors.postgresql.PostgresConnector",
    "mysql": "datasources.connectors.mysql.MySQLConnector",
    "file": "datasources.connectors.files.FileConnector",
}


def connector_for(datasource) -> Connector:
    try:
        dotted = CONNECTORS[datasource.type]
    except KeyError:
        raise ConnectorError(f"No connector for datasource type {datasource.type!r}.") from None
    module_name, class_name = dotted.rsplit(".", 1)
    return getattr(import_module(module_name), class_name)(datasource)


__all__ = ["CONNECTORS", "Column", "Connector", "ConnectorError", "TableNotFound", "connector_for"]
