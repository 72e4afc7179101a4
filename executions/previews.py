"""The row checks' preview in the worker: a one-batch job spec limited to the source's first rows,
answered as per-check failed rows. The engine is chosen as for runs (`auto`): DuckDB for local
files (no JVM), Spark for a database table (pushdown does not draw a batch's first rows), on the
worker's long-lived SparkSession (executions/launcher.spark_session), started only then. Secrets
are decrypted here, in the worker, as for runs (executions/jobs.py)."""

from __future__ import annotations

from typing import Any

from datasources.connectors import connector_for
from datasources.models import Datasource
from dq_engine.rowchecks.spec_checks import rule_details, with_rule_checks

from .launcher import spark_session

PREVIEW_ID = "preview"


def preview_spec(datasource: Datasource, table: str, src_filter: str | None, rules: list, limit: int):
    secrets: dict[str, str] = {}
    source = connector_for(datasource).engine_source(table, secrets)
    check = {
        "id": PREVIEW_ID,
        "name": "preview",
        "batch": "b",
        "target_batch": None,
        "metric": {"kind": "row_rules", "rules": rules},
        "error_rows": False,
    }
    spec = {
        "run_id": "preview",
        "sources": {"s": source},
        "batches": {"b": {"source": "s", "filter": src_filter, "limit": limit, "engine": "auto"}},
        "checks": with_rule_checks(check),
    }
    return spec, secrets


def preview(datasource_id: int, table: str, src_filter: str | None, rules: list, limit: int) -> dict[str, Any]:
    import dq_engine

    datasource = Datasource.objects.get(pk=datasource_id)
    spec, secrets = preview_spec(datasource, table, src_filter, rules, limit)
    document = dq_engine.run(spec, secrets, spark=spark_session)
    outcome = document["checks"][PREVIEW_ID]
    batch = document["batches"]["b"]
    return {
        "engine": batch.get("engine"),
        "rows": batch.get("rows"),
        "invalid_rows": None if outcome["statistic"] is None else int(outcome["statistic"]),
        "message": outcome.get("message") or batch.get("error") or "",
        "checks": rule_details(PREVIEW_ID, rules, document["checks"]),
    }
