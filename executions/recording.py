"""Recording the engine's result document: comparison values, verdicts, history, the run's end."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from rules.models import CheckVersion, RuleTemplate, content_hash

from . import history
from .evaluation import evaluate
from .models import Result, Run, StatisticValue

VERDICT_FIELDS = ("check_type", "operator", "threshold", "failure_strategy", "comparison_type", "comparison_value")


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
        # The engine's note on a computed statistic (a NULL value, error rows it could not store).
        message=outcome.get("message") or "",
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
