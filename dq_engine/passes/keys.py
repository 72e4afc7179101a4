"""Uniqueness and accuracy: one key group per key column, shared by every uniqueness check on it;
one join per (source batch, target batch, mappings), shared by the identical accuracy checks. The
statistic and the offending rows come from the backend; the error rows are written from its
handle on them."""

from __future__ import annotations

import functools

from dq_engine.passes.backend import Found, Work
from dq_engine.passes.context import RunContext
from dq_engine.plan import MappingKey
from dq_engine.spec import CheckSpec


def key_group_units(run: RunContext, name: str) -> list[Work]:
    by_column: dict[str, list[CheckSpec]] = {}
    for check in run.runnable(run.plans[name].uniqueness_checks):
        with run.recorder.isolated([check], "resolving the key column of"):
            by_column.setdefault(run.backend.key_column(name, check), []).append(check)
    return [(group, functools.partial(duplicates, run, name, column, group)) for column, group in by_column.items()]


def duplicates(run: RunContext, name: str, column: str, group: list[CheckSpec]) -> None:
    found = _found(run, group, "grouping the keys of", lambda: run.backend.duplicates(name, column))
    if found is not None:
        run.recorder.count(name, "group_bys")
        _record(run, group, found, value=found.value)


def join_units(run: RunContext, name: str) -> list[Work]:
    units: list[Work] = []
    for (target, mappings), checks in run.plans[name].joins.items():
        checks = run.runnable(checks)
        if checks:
            units.append((checks, functools.partial(join, run, name, target, mappings, checks)))
    return units


def join(run: RunContext, name: str, target: str, mappings: MappingKey, checks: list[CheckSpec]) -> None:
    found = _found(
        run, checks, "joining the batches of", lambda: run.backend.unmatched(name, target, mappings, checks[0])
    )
    if found is not None:
        run.recorder.count(name, "joins")
        _record(run, checks, found, value=found.count)


def _found(run: RunContext, checks: list[CheckSpec], stage: str, compute) -> Found | None:
    with run.recorder.isolated(checks, stage):
        return compute()
    return None


def _record(run: RunContext, checks: list[CheckSpec], found: Found, value) -> None:
    for check in checks:
        with run.recorder.isolated([check], "recording"):
            count = int(found.count or 0)
            run.recorder.ok(check, float(value or 0), error_row_count=count)
            run.recorder.error_rows(check, count, found.rows)
