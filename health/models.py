"""What the health pages keep: the last catalog seen of each datasource (its tables and their
columns), so coverage is a division of two stored lists rather than a connection per page view."""

from __future__ import annotations

from django.db import models


class CatalogSnapshot(models.Model):
    """The tables of one datasource and, where they could be read, their columns, as of `taken_at`.

    `tables` maps each table name to its column names, or to null when they are not known (the
    table's columns could not be read, or the datasource has more tables than are read on each
    refresh: DQ_HEALTH_CATALOG_COLUMN_TABLES). `message` says why the last refresh failed; the
    tables of the refresh before it are kept meanwhile."""

    datasource = models.OneToOneField("datasources.Datasource", on_delete=models.CASCADE, related_name="+")
    tables = models.JSONField(default=dict, help_text="Table name → its column names, or null when unknown.")
    taken_at = models.DateTimeField(null=True, blank=True, help_text="When `tables` was read.")
    tried_at = models.DateTimeField(help_text="When the catalog was last asked for, successfully or not.")
    message = models.TextField(blank=True, help_text="Why the last refresh failed; empty when it did not.")

    def __str__(self) -> str:
        return f"Catalog of datasource {self.datasource_id} ({len(self.tables)} tables)"

    @property
    def known(self) -> bool:
        return self.taken_at is not None
