"""The fused aggregate pass: ONE Spark job per batch computes its row count, every conditional
count and aggregate, and the custom SQL statistics that fold into it (plan.py).

Failure is a value: the fused pass is analysed as a whole; when that fails, each check's
expression is analysed alone and a broken one (an unknown column, a wrong type) stays that
check's error; when the fused pass still fails at run time (e.g. ANSI overflow), every check is
evaluated separately to isolate the culprit. A folded custom SQL statistic that fails runs as
written instead, which reports its own error. Error rows of conditional counts are written from
the batch's rows the check's predicate selects.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from dq_engine.errors import CheckError
from dq_engine.query_checks import query_value
from dq_engine.spark.columns import RowMetric, row_metric
from dq_engine.spark.context import SparkRun
from dq_engine.spark.queries import query
from dq_engine.spec import CheckSpec

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

logger = logging.getLogger(__name__)


class _Failed:
    """A value that could not be computed, in the list of isolated results."""

    def __init__(self, exc: BaseException):
        self.exc = exc


def aggregate_pass(run: SparkRun, name: str) -> None:
    from pyspark.sql import functions as F

    plan, batches, outcomes = run.plans[name], run.batches, run.outcomes
    if name in batches.errors:
        batches.runnable([*plan.row_checks, *plan.count_checks])
        return
    frame = batches.frames[name]
    metrics: list[tuple[CheckSpec, RowMetric]] = []
    for check in plan.row_checks:
        try:
            if check.id in plan.folded_sql:
                metrics.append((check, RowMetric(aggregate=F.expr(plan.folded_sql[check.id]), predicate=None)))
            else:
                metrics.append((check, row_metric(frame, check.metric, run.spark)))
        except Exception as exc:  # noqa: BLE001
            outcomes.fail(check, exc)
    row_count = F.count(F.lit(1))

    def fused_pass() -> DataFrame:  # analysed when built (classic PySpark)
        return frame.agg(row_count, *(m.aggregate.alias(f"__dq_m{i}") for i, (_, m) in enumerate(metrics)))

    try:
        fused = fused_pass()
    except Exception:  # noqa: BLE001 - some check does not analyse: find it, keep it out of the pass
        metrics = _analysable(run, name, frame, metrics)
        fused = None
    outcomes.stats[name]["fused_checks"] = len(metrics)
    outcomes.stats[name]["fused_sql_checks"] = sum(1 for check, _ in metrics if check.id in plan.folded_sql)
    try:
        values = list((fused if fused is not None else fused_pass()).collect()[0])
        outcomes.count(name, "aggregate_passes")
        rows, results = values[0], values[1:]
    except Exception as fused_error:  # noqa: BLE001 - isolate the culprit check by check
        if run.cancel.is_set():
            return  # the recorder reports the checks as cancelled
        logger.info("Fused pass over batch %s failed (%s); isolating checks.", name, outcomes.say(fused_error))
        try:
            rows = frame.agg(row_count).collect()[0][0]
            outcomes.count(name, "isolation_passes")
        except Exception as exc:  # noqa: BLE001 - the batch itself fails at run time
            batches.errors[name] = f"Batch {name} could not be read: {outcomes.say(exc)}"
            batches.runnable([c for c, _ in metrics] + plan.count_checks)
            return
        results = [_isolated(frame, metric) for _, metric in metrics]
        outcomes.count(name, "isolation_passes", len(metrics))
    batches.rows[name] = int(rows)
    for (check, metric), value in zip(metrics, results, strict=True):
        _record(run, name, frame, check, metric, value)
    for check in plan.count_checks:
        outcomes.ok(check, float(rows))


def _record(run: SparkRun, name: str, frame: DataFrame, check: CheckSpec, metric: RowMetric, value: Any) -> None:
    outcomes, folded = run.outcomes, check.id in run.plans[name].folded_sql
    if isinstance(value, _Failed) and folded:
        query(run, name, check)  # as written: its own error message, or its value after all
    elif isinstance(value, _Failed):
        outcomes.fail(check, value.exc)
    elif folded:
        try:
            outcomes.ok_value(check, query_value(value, "query"))
        except CheckError as exc:
            outcomes.fail(check, exc)
    elif metric.predicate is not None:  # a conditional count, row rules: counted rows
        outcomes.ok(check, float(value), error_row_count=int(value))
        outcomes.error_rows(check, int(value), lambda: _marked(frame, metric).where(metric.predicate))
        if metric.marks and check.metric.get("output"):
            outcomes.marked_batch(check, check.metric["output"], lambda: _marked(frame, metric))
    else:
        outcomes.ok_value(check, value)
    if metric.findings and not isinstance(value, _Failed):
        outcomes.outcomes[check.id]["findings"] = list(metric.findings)


def _marked(frame: DataFrame, metric: RowMetric) -> DataFrame:
    """The batch's rows with the metric's marks beside their columns (row_rules: `_dq`, `_dq_failed_checks`)."""
    return frame.select("*", *metric.marks) if metric.marks else frame


def _analysable(
    run: SparkRun, name: str, frame: DataFrame, metrics: list[tuple[CheckSpec, RowMetric]]
) -> list[tuple[CheckSpec, RowMetric]]:
    """The metrics whose aggregate analyses alone; the others become their check's error (a
    folded custom SQL statistic runs as written instead, which reports its own error)."""
    kept = []
    for check, metric in metrics:
        try:
            frame.agg(metric.aggregate).schema  # noqa: B018 - analysis only, no Spark job
        except Exception as exc:  # noqa: BLE001
            if check.id in run.plans[name].folded_sql:
                query(run, name, check)
            else:
                run.outcomes.fail(check, exc)
            continue
        kept.append((check, metric))
    return kept


def _isolated(frame: DataFrame, metric: RowMetric) -> Any:
    try:
        return frame.agg(metric.aggregate).collect()[0][0]
    except Exception as exc:  # noqa: BLE001
        return _Failed(exc)
