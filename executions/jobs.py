"""Building the engine's job spec for a run (in the worker: secrets are decrypted here and kept
in memory only). The datasource says how the engine reads it; this module never knows a dialect."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from datasources.connectors import connector_for
from datasources.models import Datasource
from dq_engine import vocabulary
from dq_engine.rowchecks.spec_checks import with_rule_checks

from .models import Run


@dataclass
class PreparedJob:
    spec: dict[str, Any]
    secrets: dict[str, str]


def build_job(run: Run) -> PreparedJob:
    """The engine's spec for the run's checks that read rows: catalog checks (schema changes, a
    file's age) are answered by the platform (executions/catalog_checks.py), and a batch only they
    read is not opened by any engine."""
    from .catalog_checks import is_catalog_check

    versions = [v for v in run.check_versions.select_related("definition") if not is_catalog_check(v)]
    read = {run.batches["assignments"][str(v.pk)][key] for v in versions for key in ("batch", "target_batch")}
    definitions = {name: batch for name, batch in run.batches["definitions"].items() if name in read}
    sources, batches, secrets = {}, {}, {}
    for name, batch in definitions.items():
        datasource = Datasource.objects.get(pk=batch["datasource_id"])
        sources[name] = connector_for(datasource).engine_source(batch["table"], secrets)
        if sources[name]["kind"] == "jdbc":  # how many ranges Spark reads the table in, when it reads it
            sources[name]["options"] = {
                "numPartitions": str(settings.DQ_SPARK_JDBC_PARTITIONS),
                **sources[name]["options"],
            }
        # The engine chosen when the run started (executions/engine_choice.py); "auto" for runs
        # frozen before engines were chosen.
        batches[name] = {"source": name, "filter": batch["filter"], "engine": batch.get("engine") or "auto"}
        if batch.get("engine") == "pushdown" and str(batch.get("engine_reason", "")).startswith("auto:"):
            # auto chose pushdown without the table's catalog; what pushdown refuses with it, Spark reads
            batches[name]["fallback"] = "spark"
    checks = []
    # Each version computes what its own template version defines, whatever the template says now.
    for version in versions:
        rule_json = version.rule_json
        where = run.batches["assignments"][str(version.pk)]
        # A row_level_check also counts each of its rules (its result's details), in the same pass.
        checks += with_rule_checks(
            {
                "id": str(version.pk),
                "name": version.name,
                "batch": where["batch"],
                "target_batch": where["target_batch"],
                "metric": engine_metric(rule_json["metric"], version.params),
                "error_rows": rule_json["error_rows"] == "matching_rows",
            }
        )
    for check in checks:  # a cleansed output goes to a folder of this run's own, never over another's
        metric = check["metric"]
        if metric.get("kind") == "row_rules" and metric.get("output") and "rule" not in metric:
            metric["output"] = str(Path(metric["output"]) / f"run-{run.pk}-attempt-{run.attempt}")
    root = Path(settings.DQ_ERROR_DATA_ROOT) / f"run-{run.pk}-attempt-{run.attempt}"
    spec = {
        "run_id": run.pk,
        "sources": sources,
        "batches": batches,
        "checks": checks,
        "error_rows": {"root": str(root), "limit": settings.DQ_ERROR_ROWS_LIMIT},
        # A statement pushed down into a database stops when the run's time limit would.
        "limits": {"statement_timeout_seconds": settings.DQ_RUN_TIME_LIMIT},
    }
    return PreparedJob(spec=spec, secrets=secrets)


def engine_metric(metric_definition: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    """A template's metric definition (`column_param: src_field`, ...) filled with a check's params:
    the spec's metric (`column: "email"`, ...). The field names come from the engine's vocabulary."""
    return vocabulary.engine_metric(metric_definition, params)
