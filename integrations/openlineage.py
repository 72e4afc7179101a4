"""OpenLineage: one RunEvent per run (COMPLETE, or FAIL when the run errored), each dataset the run
read carrying `dataQualityAssertions` (one assertion per check on it) and, where a check's
statistic is a metric of the whole dataset, `dataQualityMetrics` (rowCount, columnMetrics).

Datasets are named as OpenLineage's naming conventions say: PostgreSQL
`postgres://host:port` + `database.schema.table`, MySQL `mysql://host:port` + `database.table`,
local files `file` + the absolute path, S3 `s3://bucket` + the key, HDFS `hdfs://host:port` +
the path."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone

from executions.models import Result, Run

from .sources import Source

SPEC = "https://openlineage.io/spec"
RUN_EVENT_SCHEMA = f"{SPEC}/2-0-2/OpenLineage.json#/$defs/RunEvent"
ASSERTIONS_SCHEMA = (
    f"{SPEC}/facets/1-1-0/DataQualityAssertionsDatasetFacet.json#/$defs/DataQualityAssertionsDatasetFacet"
)
METRICS_SCHEMA = (
    f"{SPEC}/facets/1-0-3/DataQualityMetricsInputDatasetFacet.json#/$defs/DataQualityMetricsInputDatasetFacet"
)
ERROR_SCHEMA = f"{SPEC}/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet"
DEFAULT_NAMESPACE = "dq-platform"
JOB_NAME = "data_quality_run"
# A run's OpenLineage id is derived from the platform's address and the run's id: the same run
# always has the same runId, however often its event is sent.
RUN_ID_NAMESPACE = uuid.UUID("6f1c3c2e-2d0a-4c56-9a55-0d5a1a3f7b10")

# Which column metric a check's statistic is: (metric kind, predicate or aggregate) → field.
COLUMN_METRICS = {
    ("conditional_count", "null_or_empty"): "nullCount",
    ("aggregate", "min"): "min",
    ("aggregate", "max"): "max",
    ("aggregate", "sum"): "sum",
}


def producer() -> str:
    """Who produced the event: this platform, by its address."""
    return settings.DQ_PUBLIC_URL.rstrip("/")


def run_id_of(run: Run) -> str:
    return str(uuid.uuid5(RUN_ID_NAMESPACE, f"{settings.DQ_PUBLIC_URL}/runs/{run.pk}"))


def dataset_of(source: Source) -> tuple[str, str]:
    """(namespace, name) of the dataset a check read."""
    datasource, table = source.datasource, source.table
    if datasource is None:
        return DEFAULT_NAMESPACE, table
    if datasource.type == datasource.Type.POSTGRESQL:
        parts = table.split(".")
        name = ".".join([datasource.database, *(parts if len(parts) > 1 else ["public", *parts])])
        return f"postgres://{datasource.host}:{datasource.port or 5432}", name
    if datasource.type == datasource.Type.MYSQL:
        name = table if "." in table else f"{datasource.database}.{table}"
        return f"mysql://{datasource.host}:{datasource.port or 3306}", name
    location = urlsplit(datasource.path)
    path = f"{location.path.rstrip('/')}/{table}"
    if location.scheme in ("s3", "s3a", "s3n"):
        return f"s3://{location.netloc}", path.lstrip("/")
    if location.scheme:
        return f"{location.scheme}://{location.netloc}" if location.netloc else location.scheme, path
    return "file", f"{datasource.local_path()}/{table}"


def run_event(run: Run, results: list[Result], sources: dict[int, Source], namespace: str = "") -> dict[str, Any]:
    """The RunEvent of a finished run with `results` (those this integration covers)."""
    datasets: dict[tuple[str, str], dict[str, Any]] = {}
    for result in results:
        source = sources[result.pk]
        dataset = datasets.setdefault(dataset_of(source), {"assertions": [], "rows": None, "columns": {}})
        dataset["assertions"].append(_assertion(result, source))
        _add_metric(dataset, result, source)
    run_facets: dict[str, Any] = {}
    failed = run.status == Run.Status.ERROR
    if failed:
        run_facets["errorMessage"] = {
            **_facet(ERROR_SCHEMA),
            "message": run.message or "The run could not evaluate its checks.",
            "programmingLanguage": "python",
        }
    return {
        "eventType": "FAIL" if failed else "COMPLETE",
        "eventTime": (run.finished_at or timezone.now()).isoformat(),
        "producer": producer(),
        "schemaURL": RUN_EVENT_SCHEMA,
        "run": {"runId": run_id_of(run), "facets": run_facets},
        "job": {"namespace": namespace or DEFAULT_NAMESPACE, "name": JOB_NAME, "facets": {}},
        "inputs": [_input(ns, name, found) for (ns, name), found in datasets.items()],
        "outputs": [],
    }


def _assertion(result: Result, source: Source) -> dict[str, Any]:
    """The check's template classifies the test (`null_check`), its name tells it apart from the
    table's other checks of that template; expected and actual values are strings in the facet."""
    found: dict[str, Any] = {
        "assertion": result.check_version.template_key,
        "name": result.check_version.name,
        "success": result.status == Result.Status.PASS,
        "severity": "error" if result.failure_strategy == "block" else "warn",
        "params": {"check_id": result.rule_check_id, "result_id": result.pk, "statistic_name": result.statistic_name},
    }
    if source.column:
        found["column"] = source.column
    for key, value in (("expected", result.comparison_value), ("actual", result.statistics_value)):
        if value is not None:
            found[key] = _number_text(value)
    return found


def _number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _facet(schema: str) -> dict[str, str]:
    return {"_producer": producer(), "_schemaURL": schema}


def _input(namespace: str, name: str, found: dict[str, Any]) -> dict[str, Any]:
    facets: dict[str, Any] = {"dataQualityAssertions": {**_facet(ASSERTIONS_SCHEMA), "assertions": found["assertions"]}}
    if found["rows"] is not None or found["columns"]:
        metrics: dict[str, Any] = {**_facet(METRICS_SCHEMA), "columnMetrics": found["columns"]}
        if found["rows"] is not None:
            metrics["rowCount"] = found["rows"]
        facets["dataQualityMetrics"] = metrics
    return {"namespace": namespace, "name": name, "facets": {}, "inputFacets": facets}


def _add_metric(dataset: dict[str, Any], result: Result, source: Source) -> None:
    """Only a statistic of the whole dataset is its metric: none of a filtered check, a partition
    or a sample, and none that the engine could not compute."""
    params = result.check_version.params
    whole = not params.get("src_filter") and not result.partition_key and result.run.scan_mode == Run.ScanMode.FULL
    if not whole or result.status == Result.Status.ERROR or result.statistics_value is None:
        return
    metric = result.check_version.rule_json.get("metric") or {}
    kind = metric.get("kind")
    if kind == "row_count":
        dataset["rows"] = int(result.statistics_value)
        return
    detail = metric.get("predicate") if kind == "conditional_count" else params.get("aggregate")
    field = COLUMN_METRICS.get((kind, detail))
    if field and source.column:
        value = result.statistics_value
        dataset["columns"].setdefault(source.column, {})[field] = int(value) if field == "nullCount" else value


def test_event() -> dict[str, Any]:
    """A COMPLETE event of a job of its own, with no dataset: what a test sends."""
    now = timezone.now()
    return {
        "eventType": "COMPLETE",
        "eventTime": now.isoformat(),
        "producer": producer(),
        "schemaURL": RUN_EVENT_SCHEMA,
        "run": {"runId": str(uuid.uuid4()), "facets": {}},
        "job": {"namespace": DEFAULT_NAMESPACE, "name": "connection_test", "facets": {}},
        "inputs": [],
        "outputs": [],
    }
