"""Accuracy on DuckDB: one `NOT EXISTS` per (source batch, target batch, mappings), shared by the
identical accuracy checks; the unmatched source rows are the statistic and the error rows.

Each pair's condition comes from the vocabulary (`mapping_condition`, as on Spark): `=` is SQL
equality (a NULL matches nothing), `<=>` null-safe (IS NOT DISTINCT FROM), text against non-text
compared as text.
"""

from __future__ import annotations

from functools import reduce

from sqlglot import exp

from dq_engine.duckdb.aggregate_pass import sql_of
from dq_engine.duckdb.context import DuckDBRun
from dq_engine.errors import CheckError
from dq_engine.plan import MappingKey
from dq_engine.spec import CheckSpec
from dq_engine.vocabulary import mapping_condition

SOURCE, TARGET = "__dq_s", "__dq_t"


def accuracy_checks(run: DuckDBRun, name: str) -> None:
    for (target, mappings), checks in run.plans[name].joins.items():
        checks = run.batches.runnable(checks)
        if checks and not run.cancel.is_set():
            join(run, name, target, mappings, checks)


def join(run: DuckDBRun, name: str, target: str, mappings: MappingKey, checks: list[CheckSpec]) -> None:
    outcomes = run.outcomes
    try:
        rows = unmatched(run, name, target, mappings)
        (count,) = run.one_row(f"SELECT count(*) FROM ({rows})")
        outcomes.count(name, "joins")
    except Exception as exc:  # noqa: BLE001
        for check in checks:
            outcomes.fail(check, exc)
        return
    for check in checks:
        outcomes.ok(check, float(count), error_row_count=int(count))
        outcomes.error_rows(check, int(count), lambda: rows)


def unmatched(run: DuckDBRun, name: str, target: str, mappings: MappingKey) -> str:
    """The SELECT of the source rows with no target row matching every pair."""
    conditions = []
    for source_name, operator, target_name in mappings:
        source = _mapped(run, name, source_name, "source")
        target_column = _mapped(run, target, target_name, "target")
        target_sql = exp.column(target_column.name, table=TARGET, quoted=True)
        condition = mapping_condition(source, operator, target_column, target_sql)
        # The source side is the only unqualified column left: qualify it, so that the subquery
        # cannot resolve it against the target's column of the same name.
        conditions.append(
            condition.transform(
                lambda node: (
                    exp.column(node.name, table=SOURCE, quoted=True)
                    if isinstance(node, exp.Column) and not node.table
                    else node
                )
            )
        )
    condition = sql_of(reduce(lambda a, b: exp.and_(a, b), conditions))
    batches = run.batches
    return (
        f"SELECT {SOURCE}.* FROM {batches.view(name)} AS {SOURCE} WHERE NOT EXISTS "
        f"(SELECT 1 FROM {batches.view(target)} AS {TARGET} WHERE {condition})"
    )


def _mapped(run: DuckDBRun, batch: str, column: str, side: str):
    try:
        return run.batches.column(batch, column)
    except CheckError as exc:
        raise CheckError(f"Mapping {side} column: {exc}")
