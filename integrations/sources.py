"""What a result speaks of: the datasource, table and column its check version read (frozen in the
version's params), shared by the Dagster asset keys and the OpenLineage datasets."""

from __future__ import annotations

from dataclasses import dataclass

from datasources.models import Datasource
from executions.models import Result


@dataclass(frozen=True)
class Source:
    datasource: Datasource | None  # None: the version names no datasource (or it was removed)
    table: str
    column: str | None

    @property
    def datasource_id(self) -> int | None:
        return self.datasource.pk if self.datasource else None


def sources_of(results: list[Result]) -> dict[int, Source]:
    """Each result's source, by result id, with the datasources read in one query (deleted ones
    too: a report speaks of what the run read)."""
    ids = {r.check_version.params.get("src_datasource_id") for r in results}
    datasources = Datasource.objects.in_bulk([i for i in ids if isinstance(i, int)])
    found = {}
    for result in results:
        params = result.check_version.params
        found[result.pk] = Source(
            datasources.get(params.get("src_datasource_id")),
            str(params.get("src_table") or ""),
            str(params["src_field"]) if params.get("src_field") else None,
        )
    return found
