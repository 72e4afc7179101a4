"""Accuracy on Spark: one left-anti join per (source batch, target batch, mappings), shared by the
identical accuracy checks; the unmatched source rows are the statistic and the error rows.

Each mapping pair's condition comes from the vocabulary (`mapping_condition`: `=` SQL equality, a
NULL matches nothing; `<=>` null-safe; text against non-text compared as text). A join on one
`=`/`<=>` column that a uniqueness check also groups by is answered by key_groups.py instead.
"""

from __future__ import annotations

import functools
from functools import reduce
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from dq_engine.errors import CheckError
from dq_engine.plan import MappingKey
from dq_engine.spark.columns import field_ref, resolve_column, to_column
from dq_engine.spark.context import SparkRun
from dq_engine.spark.scheduling import Unit
from dq_engine.spec import CheckSpec
from dq_engine.vocabulary import mapping_condition

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame


def accuracy_units(run: SparkRun, name: str) -> list[Unit]:
    units: list[Unit] = []
    for (target, mappings), checks in run.plans[name].joins.items():
        if (name, (target, mappings)) in run.shared_joins:
            continue  # answered with the uniqueness group-by on the same column
        checks = run.batches.runnable(checks)
        if checks:
            units.append(functools.partial(join, run, name, target, mappings, checks))
    return units


def join(run: SparkRun, name: str, target: str, mappings: MappingKey, checks: list[CheckSpec]) -> None:
    frames, outcomes = run.batches.frames, run.outcomes
    try:
        rows = unmatched(frames[name], frames[target], mappings)
        count = rows.count()
        outcomes.count(name, "joins")
    except Exception as exc:  # noqa: BLE001
        for check in checks:
            outcomes.fail(check, exc)
        return
    for check in checks:
        outcomes.ok(check, float(count), error_row_count=int(count))
        outcomes.error_rows(check, int(count), lambda: rows)


def unmatched(source: DataFrame, target: DataFrame, mappings: MappingKey) -> DataFrame:
    """Source rows with no target row matching every pair (target columns renamed to avoid clashes)."""
    conditions = []
    projected: list[Column] = []
    for index, (source_name, operator, target_name) in enumerate(mappings):
        source_field, _ = mapped_column(source, source_name, "source")
        target_field, right_in_target = mapped_column(target, target_name, "target")
        alias = f"__dq_t{index}"
        projected.append(right_in_target.alias(alias))
        conditions.append(
            mapping_condition(
                field_ref(source_field), operator, field_ref(target_field), exp.column(alias, quoted=True)
            )
        )
    condition = reduce(lambda a, b: exp.and_(a, b), conditions)
    return source.join(target.select(*projected), to_column(condition), "left_anti")


def mapped_column(frame: DataFrame, name: str, side: str) -> tuple[Any, Column]:
    try:
        return resolve_column(frame, name)
    except CheckError as exc:
        raise CheckError(f"Mapping {side} column: {exc}")
