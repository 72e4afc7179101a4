"""Recording the engine's result document: comparison values, verdicts, history, the run's end."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import translation

from dq_engine.rowchecks.spec_checks import contract_details, critical_failures, rule_details
from rules.comparison_types import ANOMALY_PARAMS, ComparisonSpec
from rules.models import CheckVersion, content_hash

from . import anomaly_judging, history
from .evaluation import empty_partition_sentence
from .evaluation import verdict_of as evaluate_verdict
from .models import Result, Run, StatisticValue
from .scopes import scope_of, scope_words
from .signals import run_finished
from .stored_words import CRITICAL_FAILED, NO_COMPARISON, NO_RESULT, NOT_EVALUATED, SOME_NOT_EVALUATED

VERDICT_FIELDS = (
    "check_type",
    "operator",
    "threshold",
    "failure_strategy",
    "comparison_type",
    "comparison_value",
    *ANOMALY_PARAMS,  # how the history is judged, not what is measured: the history stays the check's
)


def identity_of(version: CheckVersion) -> str:
    """Which earlier statistics are comparable: same template and data params, any verdict."""
    data_params = {k: v for k, v in version.params.items() if k not in VERDICT_FIELDS}
    return content_hash({"template": version.template_key, "params": data_params})


def record_results(run: Run, document: dict[str, Any]) -> None:
    """Turn the engine's numbers into verdicts, append results and history, finish the run. The
    verdicts and messages are recorded in English, whoever's request ended the run; screens and
    alerts word them in their reader's language (executions/stored_words.py)."""
    with translation.override("en"):
        _record_results(run, document)


def _record_results(run: Run, document: dict[str, Any]) -> None:
    backfill = run.trigger == Run.Trigger.BACKFILL
    with transaction.atomic():
        versions = run.check_versions.select_related("definition")
        results = [_record_one(run, version, document, backfill) for version in versions]
        errors = sum(r.status == Result.Status.ERROR for r in results)
        status = run_status_of([r.status for r in results])
        message = document.get("message") or (
            SOME_NOT_EVALUATED % {"errors": errors, "total": len(results)} if errors else ""
        )
        finished = run.finish(
            status,
            any(r.blocks for r in results),
            message,
            spark_application_id=document.get("spark_application_id") or "",
            plan=_plan_with_engines(document),
        )
        if not finished:  # cancelled or reaped meanwhile: that end stands, and these results go
            transaction.set_rollback(True)
        else:
            transaction.on_commit(lambda: run_finished.send_robust(sender=Run, run=run))


def _plan_with_engines(document: dict[str, Any]) -> dict[str, Any]:
    """The engine's plan, plus which engine read each batch and why (`engines`): the engine chosen
    when the run started may have handed a batch to another (pushdown refusing a check once it saw
    the table's catalog: Spark reads it), and the run page must show the one that ran."""
    ran = {
        name: {"engine": batch["engine"], "engine_reason": batch.get("engine_reason") or ""}
        for name, batch in (document.get("batches") or {}).items()
        if batch.get("engine")
    }
    plan = dict(document.get("plan") or {})
    if ran:
        plan["engines"] = ran
    return plan


def run_status_of(statuses: list[str]) -> str:
    """A run's verdict from its results: error before fail before unknown; passed only when every
    result passed (a result that could not decide leaves the run unknown, never passed)."""
    if Result.Status.ERROR in statuses:
        return Run.Status.ERROR
    if Result.Status.FAIL in statuses:
        return Run.Status.FAILED
    if Result.Status.UNKNOWN in statuses:
        return Run.Status.UNKNOWN
    return Run.Status.PASSED


def _record_one(run: Run, version: CheckVersion, document: dict[str, Any], backfill: bool) -> Result:
    params = version.params
    where = run.batches["assignments"][str(version.pk)]
    outcome = document["checks"].get(str(version.pk)) or {
        "status": "error",
        "message": NO_RESULT,
    }
    identity = identity_of(version)
    # The statistic's name as the version's own template version defines it, not the template's today.
    statistic_name = params.get("statistics_name") or version.rule_json["statistic_name"]
    scope = scope_of(run, where["batch"])
    comparison, source = _comparison(run, version, outcome, document, where, identity, statistic_name, scope)
    if outcome.get("status") == "ok" and "problem" in source:  # a version whose comparison cannot be evaluated
        outcome = {**outcome, "status": "error", "message": source["problem"]}
    result = Result(
        run=run,
        check_version=version,
        rule_check_id=version.parent_check_id,
        batch=where["batch"],
        partition_key=scope,
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
        details=outcome.get("details") or _details(version, document),
    )
    if outcome.get("status") != "ok":
        result.status, result.message = (
            Result.Status.ERROR,
            outcome.get("message") or NOT_EVALUATED,
        )
        result.save()
        return result
    # A dynamic threshold and anomaly detection decide by their learned range, not the formula.
    verdict = evaluate_verdict(
        result.statistics_value, comparison, source, result.check_type, result.operator, result.threshold
    )
    if source.get("source") in ("range", anomaly_judging.SOURCE):
        result.details = {**result.details, "baseline": source["learned"]}
    if source.get("source") == anomaly_judging.SOURCE and source.get("severity") == "warn":
        # A warn is the smallest honest step below a failure: it alerts (and opens or joins
        # the incident) but never blocks, whatever the check's failure strategy.
        result.failure_strategy = "alert"
    result.status, result.formula_value, result.verdict = verdict.status, verdict.formula_value, verdict.sentence
    _critical_blocks(result)
    _empty_partition(result, verdict)
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


def _details(version: CheckVersion, document: dict[str, Any]) -> dict[str, Any]:
    """A row_level_check's per-check failed rows (the engine counted each rule as its own spec check)."""
    metric = version.rule_json["metric"]
    from dq_engine.vocabulary import engine_metric

    if metric.get("kind") == "schema_contract":
        contract = engine_metric(metric, version.params).get("contract")
        return contract_details(str(version.pk), contract, document.get("checks") or {})
    if metric.get("kind") != "row_rules":
        return {}

    rules = engine_metric(metric, version.params).get("rules")
    outcomes = document.get("checks") or {}
    details: dict[str, Any] = {"checks": rule_details(str(version.pk), rules, outcomes)}
    written = (outcomes.get(str(version.pk)) or {}).get("output_path")
    if written:
        details["output_path"] = written  # the cleansed layer: every row with its marks
    return details


def _critical_blocks(result: Result) -> None:
    """A critical row check failing on any row makes the result a blocking failure, whatever the
    threshold and the check's own failure strategy: critical violations stop the processes
    that depend on the data. Recorded as the result's strategy, so every list and
    filter that asks "does it block?" answers the same."""
    critical = critical_failures(result.details.get("checks", []))
    if not critical:
        return
    result.status, result.failure_strategy = Result.Status.FAIL, "block"
    note = CRITICAL_FAILED % {"checks": ", ".join(critical)}
    result.message = f"{result.message} {note}".strip()


def _empty_partition(result: Result, verdict) -> None:
    """A partition with no rows is no evidence that the table is fine: a check that would pass
    on it (no NULLs among no rows) is `unknown` instead, so it closes no incident, teaches no
    baseline, and the batch follows its table's fail mode. A failure stands: an empty partition
    is exactly what a row-count check is there to catch."""
    if not result.partition_key or result.rows_scanned != 0:
        return
    result.comparison_source = {**result.comparison_source, "empty_partition": True}
    if result.status != Result.Status.PASS:
        return
    result.status = Result.Status.UNKNOWN
    result.verdict = empty_partition_sentence(verdict.reasoning, scope_words(result.partition_key))


def _comparison(run, version, outcome, document, where, identity, statistic_name, scope) -> tuple[float | None, dict]:
    """The expected value and how it was obtained, dispatched on the comparison type's `source` as
    the check version's template version defined it."""
    key = version.params.get("comparison_type")
    if key is None:  # value comparison: the engine measured the expected value too
        return outcome.get("comparison"), {"type": "comparison_query"}
    spec = version.comparison_spec()
    if spec is None:
        return None, {
            "type": key,
            "problem": NO_COMPARISON % {"version": version.template_version, "comparison": repr(key)},
        }
    if spec.source == "range":
        return _range(spec, run, identity, statistic_name, scope)
    if spec.source == "history":
        return _history(spec, run, identity, statistic_name, scope)
    if spec.source == anomaly_judging.SOURCE:
        return anomaly_judging.judge_statistic(
            spec, version.params, identity, statistic_name, run.data_time, outcome.get("statistic"), run.pk, scope
        )
    return COMPARISON_SOURCES[spec.source](spec, run, version, document, where, identity, statistic_name)


def _fixed(spec: ComparisonSpec, run, version, document, where, identity, statistic_name):
    return version.params.get("comparison_value"), {"type": spec.key, "source": spec.source}


def _counted(spec: ComparisonSpec, run, version, document, where, identity, statistic_name):
    batch = where["batch"] if spec.batch == "source" else where["target_batch"]
    rows = (document.get("batches", {}).get(batch) or {}).get("rows") if batch else None
    return rows, {"type": spec.key, "source": spec.source, "batch": batch}


def _history(spec: ComparisonSpec, run, identity, statistic_name, scope):
    return history.baseline(spec, identity, statistic_name, run.data_time, exclude_run_id=run.pk, scope=scope)


def _range(spec: ComparisonSpec, run, identity, statistic_name, scope):
    """The baseline's mean as the comparison value; the range and its evidence in the source."""
    found, source = history.expected_range(
        spec, identity, statistic_name, run.data_time, exclude_run_id=run.pk, scope=scope
    )
    return (found[2] if found else None), source


COMPARISON_SOURCES = {"fixed": _fixed, "data": _counted}


def fail_run(run: Run, message: str) -> None:
    """The run could not produce results at all: every check gets an `error` result."""
    checks = {str(v.pk): {"status": "error", "message": message} for v in run.check_versions.all()}
    record_results(run, {"checks": checks, "batches": {}, "message": message})
