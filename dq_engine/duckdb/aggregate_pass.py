"""The fused aggregate pass on DuckDB: ONE query per batch computes its row count, every
conditional count and aggregate, and the custom SQL statistics that fold into it (plan.py):
`SELECT count(*), COUNT_IF(<predicate>), AVG(...), ... FROM <batch view>`.

Failure is a value, as on Spark: each check's expression is bound alone first (DuckDB binds a
query without running it), and a broken one (an unknown column, a wrong type) stays that check's
error; when the fused query still fails at run time (an overflow), each check runs alone to find
the culprit. A folded custom SQL statistic that fails runs as written instead (its own message).
Error rows of conditional counts are the batch's rows its predicate selects; those of row rules
carry the marks `_dq` and `_dq_failed_checks` beside the batch's columns, and with `output` the
whole batch is written with them (the cleansed layer), as on Spark.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlglot import ErrorLevel, exp

from dq_engine.duckdb.context import DuckDBRun
from dq_engine.duckdb.queries import query
from dq_engine.duckdb.sql import DIALECT, DuckDBDialect, folded_sql, zero_over_no_rows
from dq_engine.errors import CheckError
from dq_engine.query_checks import query_value
from dq_engine.spec import CheckSpec
from dq_engine.vocabulary import METRIC_KINDS, row_metric
from dq_engine.vocabulary.expressions import ColumnRef

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Metric:
    aggregate: str  # DuckDB SQL of one value per batch
    predicate: str | None  # DuckDB SQL of the offending rows (conditional counts, row rules)
    marks: tuple[tuple[str, str], ...] = ()  # (column name, DuckDB SQL) its rows carry (row_rules)
    findings: tuple[str, ...] = ()  # what the schema alone shows (schema_contract)


class _Failed:
    def __init__(self, exc: BaseException):
        self.exc = exc


def sql_of(expression: exp.Expression) -> str:
    return zero_over_no_rows(expression).sql(dialect=DIALECT, comments=False, unsupported_level=ErrorLevel.RAISE)


def metric_of(run: DuckDBRun, name: str, check: CheckSpec) -> Metric:
    """The check's share of the pass (CheckError, or a render error, for one it cannot compute)."""
    folded = run.plans[name].folded_sql.get(check.id)
    if folded is not None:
        return Metric(aggregate=folded_sql(folded), predicate=None)
    if METRIC_KINDS[check.metric.kind].reads_columns:
        column, columns = None, run.batches.refs(name)
    else:
        column, columns = run.batches.column(name, check.metric.get("column")), None
    built = row_metric(check.metric.kind, column, check.metric.fields, DuckDBDialect(), columns)
    aggregate = built.aggregate
    if check.metric.kind == "aggregate" and check.metric.get("function") == "avg":
        aggregate = _spark_decimal_average(column, aggregate)
    return Metric(
        aggregate=sql_of(aggregate),
        predicate=None if built.predicate is None else sql_of(built.predicate),
        marks=tuple((mark, sql_of(expression)) for mark, expression in built.marks),
        findings=built.findings,
    )


def _spark_decimal_average(column: ColumnRef, average: exp.Expression) -> exp.Expression:
    """Spark's average of a decimal(p, s) is a decimal rounded to s + 4 places; DuckDB's is a double."""
    if column.type is None or not column.type.is_type(exp.DataType.Type.DECIMAL):
        return average
    params = column.type.expressions
    scale = int(params[1].name) if len(params) > 1 else 0
    return exp.Round(this=average, decimals=exp.Literal.number(min(38, scale + 4)))


def aggregate_pass(run: DuckDBRun, name: str) -> None:
    plan, batches, outcomes = run.plans[name], run.batches, run.outcomes
    if name in batches.errors:
        batches.runnable([*plan.row_checks, *plan.count_checks])
        return
    view = batches.view(name)
    metrics: list[tuple[CheckSpec, Metric]] = []
    for check in plan.row_checks:
        try:
            metric = metric_of(run, name, check)
            run.con.sql(f"SELECT {metric.aggregate} FROM {view}")  # binds only: a broken check stays its own
            metrics.append((check, metric))
        except Exception as exc:  # noqa: BLE001
            if check.id in plan.folded_sql:
                query(run, name, check)
            else:
                outcomes.fail(check, exc)
    outcomes.stats[name]["fused_checks"] = len(metrics)
    outcomes.stats[name]["fused_sql_checks"] = sum(1 for check, _ in metrics if check.id in plan.folded_sql)
    selected = ", ".join(["count(*)", *(m.aggregate for _, m in metrics)])
    try:
        rows, *results = run.one_row(f"SELECT {selected} FROM {view}")
        outcomes.count(name, "aggregate_passes")
    except Exception as fused_error:  # noqa: BLE001 - isolate the culprit check by check
        if run.cancel.is_set():
            return  # the recorder reports the checks as cancelled
        logger.info("Fused pass over batch %s failed (%s); isolating checks.", name, outcomes.say(fused_error))
        try:
            (rows,) = run.one_row(f"SELECT count(*) FROM {view}")
            outcomes.count(name, "isolation_passes")
        except Exception as exc:  # noqa: BLE001 - the batch itself fails at run time
            batches.errors[name] = f"Batch {name} could not be read: {outcomes.say(exc)}"
            batches.runnable([c for c, _ in metrics] + plan.count_checks)
            return
        results = [_isolated(run, view, metric) for _, metric in metrics]
        outcomes.count(name, "isolation_passes", len(metrics))
    batches.rows[name] = int(rows)
    for (check, metric), value in zip(metrics, results, strict=True):
        _record(run, name, check, metric, value)
    for check in plan.count_checks:
        outcomes.ok(check, float(rows))


def _isolated(run: DuckDBRun, view: str, metric: Metric) -> object:
    try:
        return run.one_row(f"SELECT {metric.aggregate} FROM {view}")[0]
    except Exception as exc:  # noqa: BLE001
        return _Failed(exc)


def _record(run: DuckDBRun, name: str, check: CheckSpec, metric: Metric, value: object) -> None:
    outcomes, folded = run.outcomes, check.id in run.plans[name].folded_sql
    if isinstance(value, _Failed) and folded:
        query(run, name, check)
    elif isinstance(value, _Failed):
        outcomes.fail(check, value.exc)
    elif folded:
        try:
            outcomes.ok_value(check, query_value(value, "query"))
        except CheckError as exc:
            outcomes.fail(check, exc)
    elif metric.predicate is not None:  # a conditional count, row rules: counted rows
        outcomes.ok(check, float(value), error_row_count=int(value))
        marked = marked_rows(run.batches.view(name), metric)
        outcomes.error_rows(check, int(value), lambda: f"{marked} WHERE {metric.predicate}")
        if metric.marks and check.metric.get("output"):
            outcomes.marked_batch(check, check.metric["output"], lambda: marked)
    else:
        outcomes.ok_value(check, value)
    if metric.findings and not isinstance(value, _Failed):
        outcomes.outcomes[check.id]["findings"] = list(metric.findings)


def marked_rows(view: str, metric: Metric) -> str:
    """The SELECT of the batch's rows with the metric's marks beside their columns (row_rules:
    `_dq`, `_dq_failed_checks`), as Spark's `select("*", *marks)`."""
    marks = "".join(
        f", {sql} AS {exp.to_identifier(mark, quoted=True).sql(dialect=DIALECT)}" for mark, sql in metric.marks
    )
    return f"SELECT *{marks} FROM {view}"
