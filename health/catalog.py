"""The catalog the coverage is measured against: each datasource's tables and their columns, read
through its connector (datasources/connectors) and kept in `CatalogSnapshot`, read again once
older than DQ_HEALTH_CATALOG_MAX_AGE seconds or when asked to (POST .../catalog/).

Failure is a value: a datasource that cannot be reached keeps its previous snapshot, if any, with
the reason in `message`, and is not asked again before the age runs out — one unreachable
datasource never breaks or slows every health page."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from datasources.connectors import ConnectorError, connector_for
from datasources.models import Datasource

from .models import CatalogSnapshot


def current_snapshots(datasource_ids: list[int]) -> dict[int, CatalogSnapshot]:
    """The snapshots of these datasources, each read afresh first when missing or stale."""
    kept = {s.datasource_id: s for s in CatalogSnapshot.objects.filter(datasource_id__in=datasource_ids)}
    stale_before = timezone.now() - timedelta(seconds=settings.DQ_HEALTH_CATALOG_MAX_AGE)
    stale = [pk for pk in datasource_ids if pk not in kept or kept[pk].tried_at < stale_before]
    for datasource in Datasource.objects.filter(pk__in=stale):
        kept[datasource.pk] = refresh(datasource)
    return kept


def refresh(datasource: Datasource) -> CatalogSnapshot:
    """Read the catalog now. update_or_create: two pages refreshing at once write one row."""
    now = timezone.now()
    connector = connector_for(datasource)
    try:
        names = connector.tables()
    except ConnectorError as exc:
        snapshot, _ = CatalogSnapshot.objects.update_or_create(
            datasource=datasource,
            defaults={"tried_at": now, "message": f"The catalog of {datasource.name} could not be read: {exc}"},
        )
        return snapshot
    tables: dict[str, list[str] | None] = {}
    for index, name in enumerate(sorted(names)):
        tables[name] = _column_names(connector, name) if index < settings.DQ_HEALTH_CATALOG_COLUMN_TABLES else None
    snapshot, _ = CatalogSnapshot.objects.update_or_create(
        datasource=datasource, defaults={"tables": tables, "taken_at": now, "tried_at": now, "message": ""}
    )
    return snapshot


def _column_names(connector, table: str) -> list[str] | None:
    try:
        return [column.name for column in connector.columns(table)]
    except ConnectorError:
        return None  # this table's columns stay unknown; the others still count
