"""Work that crosses apps: starting a run (rules + datasources + executions), building the
engine's job spec (decrypting secrets, in the worker only) and recording the engine's result."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from datasources.connectors import connector_for
from datasources.models import Datasource
from rules.models import Check, CheckVersion, RuleTemplate, canonical_json, content_hash

from . import history
from .evaluation import evaluate
from .models import Result, Run, StatisticValue

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
VERDICT_FIELDS = ("check_type", "operator", "threshold", "failure_strategy", "comparison_type", "comparison_value")
JDBC = {
    "postgresql": ("jdbc:postgresql://{host}:{port}/{database}", "org.postgresql.Driver"),
    "mysql": ("jdbc:mariadb://{host}:{port}/{database}", "org.mariadb.jdbc.Driver"),
}


class RunRequestInvalid(Exception):
    def __init__(self, fields: dict[str, list[str]]):
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in fields.items()))
        self.fields = fields


# --- starting a run -----------------------------------------------------------------------------
def start_run(
    checks: list[Check],
    user,
    biz_date: date | None = None,
    trigger: str = Run.Trigger.API,
    idempotency_key: str | None = None,
) -> tuple[Run, bool]:
    """Freeze the batch and the check versions, create the run, enqueue it after commit.

    Returns (run, created); the same idempotency key returns the earlier run.
    """
    if idempotency_key:
        existing = Run.objects.filter(idempotency_key=idempotency_key).first()
        if existing:
            return existing, False
    biz_date = biz_date or timezone.localdate()
    versions = [c.versions.get(number=c.current_version) for c in checks]
    parameters = {"biz_date": biz_date.isoformat()}
    batches, assignments = freeze_batches(versions, parameters)
    try:
        with transaction.atomic():
            run = Run.objects.create(
                trigger=trigger,
                biz_date=biz_date,
                data_time=_business_time(biz_date),
                parameters=parameters,
                batches={"definitions": batches, "assignments": assignments},
                rule_set_hash=content_hash(sorted(v.content_hash for v in versions)),
                idempotency_key=idempotency_key or None,
                created_by=user,
            )
            run.check_versions.set(versions)
            transaction.on_commit(lambda: enqueue(run))
    except IntegrityError:  # two requests with one idempotency key raced; the first one wins
        return Run.objects.get(idempotency_key=idempotency_key), False
    return run, True


def enqueue(run: Run) -> None:
    from .tasks import execute_run

    execute_run.apply_async(args=[run.pk, run.attempt], queue=settings.DQ_SPARK_QUEUE)


def _business_time(biz_date: date) -> datetime:
    if biz_date == timezone.localdate():
        return timezone.now()
    return datetime.combine(biz_date, time.min, tzinfo=UTC)


def resolve_filter(text: str | None, parameters: dict[str, str]) -> str | None:
    """Substitute run parameters (system values, validated dates) into a stored filter."""
    if not text:
        return None
    for name, value in parameters.items():
        text = text.replace("${" + name + "}", value)
    return text


def freeze_batches(versions: list[CheckVersion], parameters: dict[str, str]) -> tuple[dict, dict]:
    """Batch definitions keyed b1, b2, … (one per datasource/table/resolved filter), and which
    batches each check version reads: {version id: {"batch": "b1", "target_batch": "b2"|None}}."""
    keys: dict[tuple, str] = {}
    definitions: dict[str, dict[str, Any]] = {}
    assignments: dict[str, dict[str, str | None]] = {}

    def batch_for(datasource_id: int, table: str, raw_filter: str | None) -> str:
        resolved = resolve_filter(raw_filter, parameters)
        key = (datasource_id, table, resolved)
        if key not in keys:
            name = f"b{len(keys) + 1}"
            keys[key] = name
            datasource = Datasource.objects.get(pk=datasource_id)
            definitions[name] = {
                "datasource_id": datasource_id,
                "datasource": datasource.name,
                "table": table,
                "filter": resolved,
                "scan_mode": Run.ScanMode.PARTITION if resolved else Run.ScanMode.FULL,
                "data_version": _data_version(datasource, table),
            }
        return keys[key]

    for version in versions:
        p = version.params
        src = batch_for(p["src_datasource_id"], p["src_table"], p.get("src_filter"))
        target = None
        if p.get("target_datasource_id") is not None:
            target = batch_for(p["target_datasource_id"], p["target_table"], p.get("target_filter"))
        assignments[str(version.pk)] = {"batch": src, "target_batch": target}
    return definitions, assignments


def _data_version(datasource: Datasource, table: str) -> str | None:
    """A digest of the file listing (names, sizes, modification times) for local file sources;
    databases offer no snapshot id here, so None."""
    if datasource.type != Datasource.Type.FILE or datasource.is_remote_path:
        return None
    try:
        root = Path(connector_for(datasource).dataset_path(table))
    except Exception:  # noqa: BLE001 — an unreadable source is reported by the engine, not here
        return None
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    listing = [(str(p.relative_to(root.parent)), p.stat().st_size, p.stat().st_mtime_ns) for p in files]
    return "files:" + hashlib.sha256(canonical_json(listing).encode()).hexdigest()[:16]


# --- building the engine's job spec (in the worker) ----------------------------------------------
@dataclass
class PreparedJob:
    spec: dict[str, Any]
    secrets: dict[str, str]


def build_job(run: Run) -> PreparedJob:
    definitions = run.batches["definitions"]
    sources, batches, secrets = {}, {}, {}
    for name, batch in definitions.items():
        datasource = Datasource.objects.get(pk=batch["datasource_id"])
        sources[name] = _source(datasource, batch["table"], secrets)
        batches[name] = {"source": name, "filter": batch["filter"]}
    checks = []
    for version in run.check_versions.all():
        template = RuleTemplate.objects.get(key=version.template_key)
        where = run.batches["assignments"][str(version.pk)]
        checks.append(
            {
                "id": str(version.pk),
                "name": version.name,
                "batch": where["batch"],
                "target_batch": where["target_batch"],
                "metric": engine_metric(template.metric, version.params),
                "error_rows": template.rule_json["error_rows"] == "matching_rows",
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


def _source(datasource: Datasource, table: str, secrets: dict[str, str]) -> dict[str, Any]:
    if datasource.type == Datasource.Type.FILE:
        return {
            "kind": "file",
            "format": datasource.format,
            "path": connector_for(datasource).dataset_path(table),
            "options": datasource.options,
        }
    url, driver = JDBC[datasource.type]
    secret_name = f"DQ_SECRET_{datasource.pk}"
    secrets[secret_name] = datasource.password  # decrypted here, in the worker, and kept in memory only
    return {
        "kind": "jdbc",
        "url": url.format(host=datasource.host, port=datasource.port, database=datasource.database),
        "driver": driver,
        "table": table,
        "user": datasource.username,
        "password_secret": secret_name,
        "options": {},
    }


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


# --- recording the engine's result ----------------------------------------------------------------
def identity_of(version: CheckVersion) -> str:
    """Which earlier statistics are comparable: same template and data params, any verdict."""
    data_params = {k: v for k, v in version.params.items() if k not in VERDICT_FIELDS}
    return content_hash({"template": version.template_key, "params": data_params})


def record_results(run: Run, document: dict[str, Any]) -> None:
    """Turn the engine's numbers into verdicts, append results and history, finish the run."""
    backfill = run.trigger == Run.Trigger.BACKFILL
    with transaction.atomic():
        results = [_record_one(run, version, document, backfill) for version in run.check_versions.all()]
        errors = sum(r.status == Result.Status.ERROR for r in results)
        if errors:
            status = Run.Status.ERROR
        elif any(r.status == Result.Status.FAIL for r in results):
            status = Run.Status.FAILED
        else:
            status = Run.Status.PASSED
        message = document.get("message") or (
            f"{errors} of {len(results)} checks could not be evaluated." if errors else ""
        )
        run.finish(
            status,
            any(r.blocks for r in results),
            message,
            spark_application_id=document.get("spark_application_id") or "",
            plan=document.get("plan") or {},
        )


def _record_one(run: Run, version: CheckVersion, document: dict[str, Any], backfill: bool) -> Result:
    template = RuleTemplate.objects.get(key=version.template_key)
    params = version.params
    where = run.batches["assignments"][str(version.pk)]
    outcome = document["checks"].get(str(version.pk)) or {
        "status": "error",
        "message": "The engine returned no result.",
    }
    identity = identity_of(version)
    statistic_name = params.get("statistics_name") or template.rule_json["statistic_name"]
    comparison, source = _comparison(run, params, outcome, document, where, identity, statistic_name)
    result = Result(
        run=run,
        check_version=version,
        rule_check_id=version.parent_check_id,
        batch=where["batch"],
        statistic_name=statistic_name,
        statistics_value=outcome.get("statistic"),
        comparison_value=comparison,
        comparison_type=params.get("comparison_type", ""),
        comparison_source=source,
        check_type=params["check_type"],
        operator=params["operator"],
        threshold=params["threshold"],
        failure_strategy=params["failure_strategy"],
        identity=identity,
        data_time=run.data_time,
        error_row_count=outcome.get("error_row_count"),
        error_rows_written=outcome.get("error_rows_written"),
        error_rows_path=outcome.get("error_rows_path") or "",
        rows_scanned=(document.get("batches", {}).get(where["batch"]) or {}).get("rows"),
    )
    if outcome.get("status") != "ok":
        result.status, result.message = (
            Result.Status.ERROR,
            outcome.get("message") or "The check could not be evaluated.",
        )
        result.save()
        return result
    verdict = evaluate(result.statistics_value, comparison, result.check_type, result.operator, result.threshold)
    result.status, result.formula_value, result.verdict = verdict.status, verdict.formula_value, verdict.sentence
    result.save()
    if result.statistics_value is not None:
        StatisticValue.objects.create(
            identity=identity,
            statistic_name=statistic_name,
            value=result.statistics_value,
            data_time=run.data_time,
            backfill=backfill,
            run=run,
            result=result,
        )
    return result


def _comparison(run, params, outcome, document, where, identity, statistic_name) -> tuple[float | None, dict]:
    kind = params.get("comparison_type")
    batches = document.get("batches", {})
    if kind is None:  # value comparison: the engine measured the expected value too
        return outcome.get("comparison"), {"type": "comparison_query"}
    if kind == "fix_value":
        return params.get("comparison_value"), {"type": "fix_value"}
    if kind == "src_table_total_rows":
        return (batches.get(where["batch"]) or {}).get("rows"), {"type": kind, "batch": where["batch"]}
    if kind == "target_table_total_rows":
        return (batches.get(where["target_batch"]) or {}).get("rows"), {"type": kind, "batch": where["target_batch"]}
    return history.baseline(kind, identity, statistic_name, run.data_time, exclude_run_id=run.pk)


def fail_run(run: Run, message: str) -> None:
    """The run could not produce results at all: every check gets an `error` result."""
    checks = {str(v.pk): {"status": "error", "message": message} for v in run.check_versions.all()}
    record_results(run, {"checks": checks, "batches": {}, "message": message})
