"""Uniqueness and accuracy: one key group per key column, shared by every uniqueness check on it;
one join per (source batch, target batch, mappings), shared by the identical accuracy checks. The
statistic and the offending rows come from the backend; the error rows are written from its
handle on them.

A backend that can (Spark) answers a uniqueness check and an accuracy check mapping that same
single column (`=` or `<=>`) with ONE key group and no join; when that shared query fails, both
run apart, so each check gets its own error.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from dq_engine.passes.backend import Found, Work
from dq_engine.passes.context import RunContext
from dq_engine.plan import MappingKey
from dq_engine.spec import CheckSpec

logger = logging.getLogger(__name__)

Join = tuple[str, MappingKey, list[CheckSpec]]  # (target batch, mappings, accuracy checks)


def key_group_units(run: RunContext, name: str) -> list[Work]:
    by_column: dict[str, list[CheckSpec]] = {}
    for check in run.runnable(run.plans[name].uniqueness_checks):
        with run.recorder.isolated([check], "resolving the key column of"):
            by_column.setdefault(run.backend.key_column(name, check), []).append(check)
    shareable = _shareable_joins(run, name) if by_column else {}
    units: list[Work] = []
    for column, group in by_column.items():
        shared = shareable.get(column)
        if shared is None:
            units.append((group, functools.partial(duplicates, run, name, column, group)))
        else:
            run.shared_joins.add((name, shared[0], shared[1]))  # the join pass leaves it to this unit
            units.append(
                ([*group, *shared[2]], functools.partial(duplicates_with_join, run, name, column, group, shared))
            )
    return units


def duplicates(run: RunContext, name: str, column: str, group: list[CheckSpec]) -> None:
    found = _found(run, group, "grouping the keys of", lambda: run.backend.duplicates(name, column))
    if found is not None:
        run.recorder.count(name, "group_bys")
        _record(run, group, found, found.value)


def join_units(run: RunContext, name: str) -> list[Work]:
    units: list[Work] = []
    for (target, mappings), checks in run.plans[name].joins.items():
        if (name, target, mappings) in run.shared_joins:
            continue  # answered with the key group on the same column
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
        _record(run, checks, found, found.count)


def duplicates_with_join(run: RunContext, name: str, column: str, group: list[CheckSpec], shared: Join) -> None:
    target, mappings, accuracy = shared
    try:
        found, unmatched = run.backend.duplicates_and_unmatched(name, column, target, mappings)  # type: ignore[attr-defined]
    except Exception as exc:  # noqa: BLE001 - apart, each check gets its own error
        if run.cancel.is_set():
            return  # the recorder reports the checks as cancelled
        logger.info("Shared key group on %s.%s failed (%s).", name, column, run.recorder.say(exc))
        duplicates(run, name, column, group)
        join(run, name, target, mappings, accuracy)
        return
    run.recorder.count(name, "group_bys")
    run.recorder.count(name, "joins")
    _record(run, group, found, found.value)
    _record(run, accuracy, unmatched, unmatched.count)


def _shareable_joins(run: RunContext, name: str) -> dict[str, Join]:
    """{source column: (target, mappings, checks)} for the joins the backend can answer with the
    key group of that column (the first such join per column)."""
    ask = getattr(run.backend, "shared_key_column", None)
    if ask is None:
        return {}
    shareable: dict[str, Join] = {}
    for (target, mappings), checks in run.plans[name].joins.items():
        if len(mappings) != 1 or mappings[0][1] not in ("=", "<=>") or not checks:
            continue
        if any(run.recorder.problem(check) or check.id in run.recorder.done for check in checks):
            continue  # the join pass reports them
        try:
            column = ask(name, target, mappings)
        except Exception:  # noqa: BLE001 - the separate join reports it
            continue
        if column is not None:
            shareable.setdefault(column, (target, mappings, checks))
    return shareable


def _found(run: RunContext, checks: list[CheckSpec], stage: str, compute: Callable[[], Found]) -> Found | None:
    with run.recorder.isolated(checks, stage):
        return compute()
    return None


def _record(run: RunContext, checks: list[CheckSpec], found: Found, value: object) -> None:
    for check in checks:
        with run.recorder.isolated([check], "recording the value of"):
            count = int(found.count or 0)
            run.recorder.ok(check, float(value or 0), error_row_count=count)
            run.recorder.error_rows(check, count, found.rows)
