"""The combined aggregate pass: ONE query per batch computes its row count, every conditional
count and aggregate, and the custom SQL statistics that fold into it (plan.py).

Failure is a value: the metrics are bound together first, and when that fails each alone, so a
broken check (an unknown column, a wrong type) stays that check's error; when the combined query
still fails at run time (an overflow), the row count and each check run alone to find the
culprit. A folded custom SQL statistic that fails runs as written instead, which reports its own
error. Error rows of conditional counts and row rules are the batch's rows the predicate
selects, with the marks; `output` writes the whole batch with them (the cleansed layer).
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from dq_engine.errors import BatchError
from dq_engine.passes.backend import Metric, Work
from dq_engine.passes.context import RunContext
from dq_engine.passes.queries import query
from dq_engine.query_checks import query_value
from dq_engine.spec import CheckSpec
from dq_engine.vocabulary import METRIC_KINDS

logger = logging.getLogger(__name__)


class _Failed:
    """A value that could not be computed, in the list of isolated results."""

    def __init__(self, exc: BaseException):
        self.exc = exc


def aggregate_units(run: RunContext, name: str) -> list[Work]:
    plan = run.plans[name]
    return [([*plan.row_checks, *plan.count_checks], functools.partial(aggregate_pass, run, name))]


def aggregate_pass(run: RunContext, name: str) -> None:
    plan, recorder = run.plans[name], run.recorder
    folding = run.backend.folds_sql
    row_checks = [c for c in plan.row_checks if folding or c.id not in plan.folded_sql]
    runnable = run.runnable([*row_checks, *plan.count_checks])
    if name in recorder.errors:
        return  # runnable() gave every check the batch's error
    kept = {c.id for c in runnable}
    count_checks = [c for c in plan.count_checks if c.id in kept]
    metrics = _bound(run, name, _compiled(run, name, [c for c in row_checks if c.id in kept]))
    recorder.stats[name]["fused_checks"] = len(metrics)
    recorder.stats[name]["fused_sql_checks"] = sum(1 for check, _ in metrics if check.id in plan.folded_sql)
    try:
        rows, *values = run.backend.aggregate(name, [m for _, m in metrics])
        recorder.count(name, "aggregate_passes")
    except Exception as combined_error:  # noqa: BLE001 - isolate the culprit check by check
        if run.cancel.is_set():
            return  # the recorder reports the checks as cancelled
        logger.info("Combined pass over batch %s failed (%s); isolating checks.", name, recorder.say(combined_error))
        try:
            (rows,) = run.backend.aggregate(name, [])
            recorder.count(name, "isolation_passes")
        except Exception as exc:  # noqa: BLE001 - the batch itself fails at run time
            recorder.batch_failed(name, exc, f"Batch {name} could not be read: ")
            for check in [c for c, _ in metrics] + count_checks:
                recorder.fail(check, BatchError(recorder.errors[name]))
            return
        values = [_isolated(run, name, metric) for _, metric in metrics]
        recorder.count(name, "isolation_passes", len(metrics))
    recorder.rows[name] = int(rows)
    for (check, metric), value in zip(metrics, values, strict=True):
        with recorder.isolated([check], "recording the value of"):
            _record(run, name, check, metric, value)
    for check in count_checks:
        recorder.ok(check, float(rows))


def _compiled(run: RunContext, name: str, checks: list[CheckSpec]) -> list[tuple[CheckSpec, Metric]]:
    plan, compiled = run.plans[name], []
    for check in checks:
        try:
            compiled.append((check, run.backend.metric(name, check, plan.folded_sql.get(check.id))))
        except Exception as exc:  # noqa: BLE001
            _failed(run, name, check, exc, "compiling")
    return compiled


def _bound(run: RunContext, name: str, metrics: list[tuple[CheckSpec, Metric]]) -> list[tuple[CheckSpec, Metric]]:
    """The metrics that bind over the batch: all together, else each alone (nothing runs)."""
    try:
        run.backend.bind(name, [m for _, m in metrics])
        return metrics
    except Exception:  # noqa: BLE001 - some check does not bind: find it, keep it out of the pass
        pass
    kept = []
    for check, metric in metrics:
        try:
            run.backend.bind(name, [metric])
        except Exception as exc:  # noqa: BLE001
            _failed(run, name, check, exc, "compiling")
            continue
        kept.append((check, metric))
    return kept


def _failed(run: RunContext, name: str, check: CheckSpec, exc: BaseException, stage: str) -> None:
    if check.id in run.plans[name].folded_sql:
        query(run, name, check)  # as written: its own error message, or its value after all
    else:
        run.recorder.fail(check, exc, stage)


def _isolated(run: RunContext, name: str, metric: Metric) -> Any:
    try:
        return run.backend.aggregate(name, [metric])[1]
    except Exception as exc:  # noqa: BLE001
        return _Failed(exc)


def _record(run: RunContext, name: str, check: CheckSpec, metric: Metric, value: Any) -> None:
    recorder, backend = run.recorder, run.backend
    folded = check.id in run.plans[name].folded_sql
    if isinstance(value, _Failed):
        _failed(run, name, check, value.exc, "computing")
        return
    if folded:
        recorder.ok_value(check, query_value(value, "query"))
    elif metric.predicate is not None:  # a conditional count, row rules: counted rows
        count = recorder.ok_count(check, value)
        recorder.error_rows(check, count, lambda: backend.offending_rows(name, metric))
        if metric.marks and check.metric.get("output"):
            recorder.marked_batch(check, check.metric["output"], lambda: backend.marked_rows(name, metric))
    else:
        convert = METRIC_KINDS[check.metric.kind].statistic  # a newest time → its age, on every engine
        recorder.ok_value(check, convert(value, check.metric.fields) if convert else value)
    if metric.findings:
        recorder.outcomes[check.id]["findings"] = list(metric.findings)
