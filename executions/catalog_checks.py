"""Checks the platform answers from a source's catalog and metadata rather than its rows (the
metric kinds computed by CATALOG in dq_engine.vocabulary): schema changes and a file dataset's
age. The worker answers them when the run starts, beside the engine, and they are recorded like
every engine outcome (executions/recording.py): statistic, verdict, history, incidents, gate.

Why here and not in an engine: the schema that matters is the live catalog's (the types the
database or the file declares, e.g. `character varying(10)` → `text`, which an engine reading
rows would see as one "string"), and the last seen schema lives in the platform's results.

Failure is a value: an unreachable source or a missing table ends that check `error` with the
connector's message; the other checks of the run are not affected.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from datasources.connectors import ConnectorError, connector_for
from datasources.models import Datasource
from dq_engine.errors import CheckError
from dq_engine.vocabulary import METRIC_KINDS, engine_metric
from dq_engine.vocabulary.metrics import CATALOG, age
from rules.models import CheckVersion

from .stored_words import FIRST_SCHEMA, NO_SCHEMA_CHANGE

log = logging.getLogger(__name__)


def is_catalog_check(version: CheckVersion) -> bool:
    kind = METRIC_KINDS.get(version.rule_json["metric"].get("kind"))
    return kind is not None and kind.computed_by == CATALOG


def catalog_outcomes(run) -> dict[str, dict[str, Any]]:
    """{check version id: outcome} for the run's catalog checks, in the engine's outcome shape
    plus `details` (what the result shows besides its statistic)."""
    outcomes = {}
    for version in run.check_versions.select_related("definition"):
        if not is_catalog_check(version):
            continue
        where = run.batches["assignments"][str(version.pk)]
        batch = run.batches["definitions"][where["batch"]]
        metric = engine_metric(version.rule_json["metric"], version.params)
        try:
            datasource = Datasource.objects.get(pk=batch["datasource_id"])
            outcome = ANSWERS[metric["kind"]](run, version, datasource, batch["table"], metric)
        except (ConnectorError, CheckError) as exc:
            outcome = _error(str(exc))
        except Exception:  # noqa: BLE001 - one check's fault must not end its siblings
            log.exception("Catalog check %s of run %s failed", version.pk, run.pk)
            outcome = _error(
                "The platform failed unexpectedly while reading the source's catalog for this check; "
                "the worker's log has the details."
            )
        outcomes[str(version.pk)] = {"batch": where["batch"], "target_batch": None, **outcome}
    return outcomes


def _error(message: str) -> dict[str, Any]:
    return {"status": "error", "statistic": None, "message": message}


# --- schema changes -----------------------------------------------------------------------------
def _schema_changes(run, version: CheckVersion, datasource: Datasource, table: str, metric) -> dict[str, Any]:
    """The number of columns added, removed or retyped since the schema the previous result of
    this check's identity (same template, datasource and table) recorded; the first run records
    the schema and passes with 0."""
    schema = [{"name": c.name, "type": c.type} for c in connector_for(datasource).columns(table)]
    previous = last_seen_schema(version, run)
    if previous is None:
        details = {"schema": schema, "added": [], "removed": [], "retyped": [], "baseline": None}
        message = FIRST_SCHEMA % {"count": len(schema)}
        return {"status": "ok", "statistic": 0.0, "message": message, "details": details}
    result_id, run_id, seen = previous
    changes = compare_schemas(seen, schema)
    details = {"schema": schema, **changes, "baseline": {"result": result_id, "run": run_id}}
    return {
        "status": "ok",
        "statistic": float(changed_count(changes)),
        "message": describe(changes),
        "details": details,
    }


def last_seen_schema(version: CheckVersion, run) -> tuple[int, int, list[dict[str, str]]] | None:
    """(result id, run id, schema) of the newest earlier result of this check's identity that
    recorded a schema (errored results recorded none), or None."""
    from .models import Result
    from .recording import identity_of

    found = (
        Result.objects.filter(identity=identity_of(version), details__has_key="schema")
        .exclude(run_id=run.pk)
        .order_by("-created_at", "-pk")
        .values_list("pk", "run_id", "details")
        .first()
    )
    return None if found is None else (found[0], found[1], found[2]["schema"])


def compare_schemas(before: list[dict[str, str]], after: list[dict[str, str]]) -> dict[str, list]:
    """Columns added, removed and retyped, by exact name, each in the order the catalog lists them."""
    old = {c["name"]: c["type"] for c in before}
    new = {c["name"]: c["type"] for c in after}
    return {
        "added": [{"name": n, "type": t} for n, t in new.items() if n not in old],
        "removed": [{"name": n, "type": t} for n, t in old.items() if n not in new],
        "retyped": [{"name": n, "from": old[n], "to": t} for n, t in new.items() if n in old and old[n] != t],
    }


def changed_count(changes: dict[str, list]) -> int:
    return sum(len(changes[k]) for k in ("added", "removed", "retyped"))


def describe(changes: dict[str, list]) -> str:
    """`Added: note (text). Removed: legacy (integer). Retyped: amount integer → bigint.`"""
    parts = []
    if changes["added"]:
        parts.append("Added: " + ", ".join(f"{c['name']} ({c['type']})" for c in changes["added"]) + ".")
    if changes["removed"]:
        parts.append("Removed: " + ", ".join(f"{c['name']} ({c['type']})" for c in changes["removed"]) + ".")
    if changes["retyped"]:
        parts.append("Retyped: " + ", ".join(f"{c['name']} {c['from']} → {c['to']}" for c in changes["retyped"]) + ".")
    return " ".join(parts) or NO_SCHEMA_CHANGE


# --- a file dataset's age -----------------------------------------------------------------------
def _file_age(run, version: CheckVersion, datasource: Datasource, table: str, metric) -> dict[str, Any]:
    if datasource.type != Datasource.Type.FILE:
        raise CheckError(
            "Only file datasources have a modification time; for a database table, monitor the freshness "
            "of a time column (freshness_check)."
        )
    modified = connector_for(datasource).modified_at(table)
    statistic = age(modified, datetime.now(UTC), metric.get("unit"))
    details = {"modified_at": modified.isoformat()}
    return {"status": "ok", "statistic": statistic, "message": "", "details": details}


ANSWERS = {"schema_changes": _schema_changes, "file_age": _file_age}
