"""Custom SQL and value comparison: each check's queries as the user wrote them (the steps and the
answer's shape: dq_engine/query_checks.py), one value at a time from the backend."""

from __future__ import annotations

import functools

from dq_engine.passes.backend import Work
from dq_engine.passes.context import RunContext
from dq_engine.query_checks import run_query_check
from dq_engine.spec import CheckSpec


def query_units(run: RunContext, name: str) -> list[Work]:
    plan = run.plans[name]
    checks = list(plan.sql_checks)
    if not run.backend.folds_sql:
        checks += [c for c in plan.row_checks if c.id in plan.folded_sql]
    return [([check], functools.partial(query, run, name, check)) for check in run.runnable(checks)]


def query(run: RunContext, name: str, check: CheckSpec) -> None:
    """One check's queries, as written; the outcome is recorded (an error is the check's own)."""
    with run.recorder.isolated([check], "running the query of"):
        run_query_check(run.recorder, name, check, functools.partial(run.backend.scalar, check))
