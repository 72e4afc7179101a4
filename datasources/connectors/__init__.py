"""Catalog browsing and connection tests against live sources, one module per datasource type.

Registered by dotted path and imported on first use, so a missing optional driver only breaks
its own type. Spark reads data in `dq_engine`; these connectors only look at catalogs.
"""

from __future__ import annotations

from importlib import import_module

from django.utils.translation import gettext as _

from .base import Column, Connector, ConnectorError, ServerConnection, TableNotFound

CONNECTORS = {
    "postgresql": "datasources.connectors.postgresql.PostgresConnector",
    "mysql": "datasources.connectors.mysql.MySQLConnector",
    "file": "datasources.connectors.files.FileConnector",
}


def connector_class(datasource_type: str) -> type:
    try:
        dotted = CONNECTORS[datasource_type]
    except KeyError:
        raise ConnectorError(
            _("No connector for datasource type %(type)s.") % {"type": repr(datasource_type)}
        ) from None
    module_name, class_name = dotted.rsplit(".", 1)
    return getattr(import_module(module_name), class_name)


def connector_for(datasource) -> Connector:
    return connector_class(datasource.type)(datasource)


def default_port(datasource_type: str) -> int | None:
    """The port a server of this type listens on unless told otherwise; None for file sources."""
    return getattr(connector_class(datasource_type), "default_port", None)


__all__ = [
    "CONNECTORS",
    "Column",
    "Connector",
    "ConnectorError",
    "ServerConnection",
    "TableNotFound",
    "connector_class",
    "connector_for",
    "default_port",
]
