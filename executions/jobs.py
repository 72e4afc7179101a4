"""Building the engine's job spec for a run (in the worker: secrets are decrypted here and kept
in memory only). The datasource says how the engine reads it; this module never knows a dialect."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from datasources.connectors import connector_for
from datasources.models import Datasource

from .models import Run

# Template metric `*_param` fields → the engine's metric fields (dq_engine/spec.py).
ENGINE_FIELDS = {
    "column_param": "column",
    "pattern_param": "pattern",
    "list_param": "values",
    "operator_param": "operator",
    "length_param": "length",
    "begin_param": "begin",
    "end_param": "end",
    "format_param": "format",
    "min_param": "min",
    "max_param": "max",
    "function_param": "function",
    "sql_param": "sql",
    "comparison_sql_param": "comparison_sql",
}


@dataclass
class PreparedJob:
    spec: dict[str, Any]
    secrets: dict[str, str]


def build_job(run: Run) -> PreparedJob:
    definitions = run.batches["definitions"]
    sources, batches, secrets = {}, {}, {}
    for name, batch in definitions.items():
        datasource = Datasource.objects.get(pk=batch["datasource_id"])
        sources[name] = connector_for(datasource).engine_source(batch["table"], secrets)
        batches[name] = {"source": name, "filter": batch["filter"]}
    checks = []
    # Each version computes what its own template version defines, whatever the template says now.
    for version in run.check_versions.select_related("definition"):
        rule_json = version.rule_json
        where = run.batches["assignments"][str(version.pk)]
        checks.append(
            {
                "id": str(version.pk),
                "name": version.name,
                "batch": where["batch"],
                "target_batch": where["target_batch"],
                "metric": engine_metric(rule_json["metric"], version.params),
                "error_rows": rule_json["error_rows"] == "matching_rows",
            }
        )
    root = Path(settings.DQ_ERROR_DATA_ROOT) / f"run-{run.pk}-attempt-{run.attempt}"
    spec = {
        "run_id": run.pk,
        "sources": sources,
        "batches": batches,
        "checks": checks,
        "error_rows": {"root": str(root), "limit": settings.DQ_ERROR_ROWS_LIMIT},
    }
    return PreparedJob(spec=spec, secrets=secrets)


def engine_metric(metric: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    resolved: dict[str, Any] = {"kind": metric["kind"]}
    if "predicate" in metric:
        resolved["predicate"] = metric["predicate"]
    for key, param in metric.items():
        if key == "mapping_param":
            resolved["mappings"] = [
                {"source": m["src_field"], "operator": m["operator"], "target": m["target_field"]}
                for m in params[param]
            ]
        elif key in ENGINE_FIELDS:
            resolved[ENGINE_FIELDS[key]] = params.get(param)
    return resolved
