"""Which engine reads each batch of a run, decided when the run starts and frozen with its batches
(`definitions[batch]["engine"]` and `["engine_reason"]`: the run API and the run page show both).

The decision is dq_engine.selection's (auto, or the run's / the datasource's pinned engine); this
module only describes the run's batches and checks to it. A pinned engine that cannot run a batch
raises dq_engine.selection.EngineRefused, which start_run turns into a 400 naming `engine`.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings

from datasources.connectors import connector_for
from datasources.models import Datasource
from dq_engine import vocabulary
from dq_engine.selection import AUTO, choose_engines
from dq_engine.spec import JobSpec, SpecError
from rules.models import CheckVersion

log = logging.getLogger(__name__)


def choose_for_run(
    definitions: dict[str, dict[str, Any]],
    assignments: dict[str, dict[str, str | None]],
    versions: list[CheckVersion],
    requested: str = AUTO,
) -> None:
    """Write each batch's engine and the reason into `definitions` (in place); EngineRefused for a
    pinned engine that cannot run a batch."""
    datasources = {
        d.pk: d for d in Datasource.objects.filter(pk__in={b["datasource_id"] for b in definitions.values()})
    }
    sources: dict[str, dict[str, Any]] = {}
    for name, batch in definitions.items():
        sources[name] = _source(datasources[batch["datasource_id"]], batch["table"])
    spec_data = {
        "run_id": "selection",
        "sources": sources,
        "batches": {name: {"source": name, "filter": batch["filter"]} for name, batch in definitions.items()},
        "checks": [
            {
                "id": str(version.pk),
                "name": version.name,
                "batch": assignments[str(version.pk)]["batch"],
                "target_batch": assignments[str(version.pk)]["target_batch"],
                "metric": vocabulary.engine_metric(version.rule_json["metric"], version.params),
            }
            for version in versions
        ],
    }
    try:
        spec = JobSpec.from_dict(spec_data)
    except SpecError as exc:  # the engine reports such a check itself; Spark reads any source
        log.warning("Engine selection fell back to Spark: %s", exc)
        for batch in definitions.values():
            batch.update(engine="spark", engine_reason="spark: the checks could not be described to the selection")
        return
    choices = choose_engines(
        spec,
        requested=requested,
        pins={name: datasources[b["datasource_id"]].pinned_engine for name, b in definitions.items()},
        origins={name: b["datasource_id"] for name, b in definitions.items()},
        duckdb_max_bytes=settings.DQ_DUCKDB_MAX_BYTES,
        describe={name: f"{b['datasource']} / {b['table']}" for name, b in definitions.items()},
    )
    for name, choice in choices.items():
        definitions[name].update(engine=choice.engine, engine_reason=choice.reason)


def _source(datasource: Datasource, table: str) -> dict[str, Any]:
    """The engine's view of the batch's source, without its secret (the throwaway mapping takes
    the decrypted password, which is dropped here; the worker builds the real source)."""
    try:
        return connector_for(datasource).engine_source(table, {})
    except Exception:  # noqa: BLE001 - a dataset that cannot be listed now: the engine reports it
        shape = datasource.engine_source_shape()
        if datasource.type == Datasource.Type.FILE:
            return {"kind": "file", "format": shape.format, "path": shape.path, "options": {}}
        return {"kind": "jdbc", "url": shape.url, "driver": "", "table": table, "options": {}}
