"""The one way of running checks, whatever the engine: job spec → batches opened → the passes
(combined aggregate, key groups, joins, queries) → one recorder → the result document.

Every engine is a Backend (backend.py); this module decides the order of the work, what a
failure means (its check's error, never the run's: dq_engine/recorder.py), and when the run
stops (one cancel watcher, released by an Event the moment the work is done).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from dq_engine import plan as planning
from dq_engine.passes.aggregate import aggregate_units
from dq_engine.passes.backend import Backend, Unit, Work, run_in_order
from dq_engine.passes.context import RunContext
from dq_engine.passes.keys import join_units, key_group_units
from dq_engine.passes.queries import query_units
from dq_engine.plan import BatchPlan
from dq_engine.recorder import Recorder
from dq_engine.result import run_document, utc_now
from dq_engine.spec import CheckSpec, JobSpec

# How often, once the run is cancelled, the watcher interrupts the backend again (a query started
# after the first interrupt is stopped too).
CANCEL_POLL_SECONDS = 0.2

MakeWork = Callable[[RunContext, str], list[Work]]


def _uniqueness_checks(plan: BatchPlan) -> list[CheckSpec]:
    return plan.uniqueness_checks


def _join_checks(plan: BatchPlan) -> list[CheckSpec]:
    return [check for checks in plan.joins.values() for check in checks]


def _query_checks(plan: BatchPlan) -> list[CheckSpec]:
    return [*plan.sql_checks, *(c for c in plan.row_checks if c.id in plan.folded_sql)]


def _aggregate_checks(plan: BatchPlan) -> list[CheckSpec]:
    return [*plan.row_checks, *plan.count_checks]


# The passes, in the order their units are handed to the backend, each with the checks it answers.
PASSES: tuple[tuple[MakeWork, Callable[[BatchPlan], list[CheckSpec]]], ...] = (
    (aggregate_units, _aggregate_checks),
    (key_group_units, _uniqueness_checks),
    (join_units, _join_checks),
    (query_units, _query_checks),
)


def new_context(
    spec: JobSpec,
    backend: Backend,
    secrets: Mapping[str, str] | None,
    cancel: threading.Event | None,
    plans: dict[str, BatchPlan] | None = None,
) -> RunContext:
    cancel = cancel or threading.Event()
    recorder = Recorder(spec, secrets or {}, cancel, explain=backend.explain, writer=backend)
    plans = plans or planning.make_plan(spec)
    return RunContext(spec=spec, plans=plans, backend=backend, recorder=recorder, cancel=cancel)


def run_checks(run: RunContext, **document_fields: Any) -> dict[str, Any]:
    """Every check of the run gets an outcome (ok, its error, or cancelled); the result document."""
    started_at = utc_now()
    spec, backend, recorder = run.spec, run.backend, run.recorder
    try:
        with cancel_watcher(run.cancel, backend.interrupt):
            for name in spec.batches:
                if run.cancel.is_set():
                    break
                open_batch(run, name)
            if not run.cancel.is_set():
                run_passes(run)
        recorder.finish()
    finally:
        backend.close()
    plan = {"batches": recorder.stats, **backend.plan_extras()}
    return run_document(
        spec, backend.key, started_at, (recorder.rows, recorder.errors), recorder.outcomes, plan, **document_fields
    )


def run_passes(run: RunContext) -> None:
    """Every pass's units handed to the backend at once (in the order of PASSES; Spark runs a few
    at a time). A cached batch's aggregate pass runs first and alone: it builds the cache the
    other passes read."""
    first: list[Unit] = []
    units: list[Unit] = []
    for make_work, checks_of in PASSES:
        for name in run.spec.batches:
            made = guarded_units(run, name, make_work, checks_of(run.plans[name]))
            (first if make_work is aggregate_units and run.backend.cached(name) else units).extend(made)
    run_in_order(first, run.cancel)
    run.backend.run_units(units, run.cancel)


def open_batch(run: RunContext, name: str) -> None:
    """The batch opened, or its error recorded (every check on it reports that)."""
    try:
        run.backend.open(name)
    except Exception as exc:  # noqa: BLE001 - any failure to read a batch is its checks' error
        run.recorder.batch_failed(name, exc)
        return
    run.recorder.stats[name]["cached"] = run.backend.cached(name)


def guarded_units(run: RunContext, name: str, make_work: MakeWork, checks: list[CheckSpec]) -> list[Unit]:
    """A pass's units for a batch; whatever escapes the making of them ends the pass's unfinished
    checks `error`, and whatever escapes one unit its own checks, never the run."""
    with run.recorder.isolated(checks, "preparing"):
        return [_guarded(run, unit_checks, unit) for unit_checks, unit in make_work(run, name)]
    return []


def _guarded(run: RunContext, checks: list[CheckSpec], unit: Unit) -> Unit:
    def guarded() -> None:
        if run.cancel.is_set():
            return
        with run.recorder.isolated(checks, "computing"):
            unit()

    return guarded


@contextmanager
def cancel_watcher(cancel: threading.Event, interrupt: Callable[[], None]) -> Iterator[None]:
    """While the block runs, a thread interrupts the backend once `cancel` is set (and again every
    CANCEL_POLL_SECONDS, for work started after the first interrupt). It waits on its own
    `finished` Event, so the end of the run releases it at once: no poll is left to sleep."""
    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(CANCEL_POLL_SECONDS):
            if cancel.is_set():
                try:
                    interrupt()
                except Exception:  # noqa: BLE001 - an interrupt that fails leaves the work to finish
                    pass

    watcher = threading.Thread(target=watch, name="dq-engine-cancel", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()


class SkeletonEngine:
    """An engine whose runs are this module's over its backend: `run` (dq_engine/engines.py's
    interface) reads and validates the spec, the engine's `run_job` builds its backend and calls
    `run_checks`."""

    key: str

    def run(
        self,
        spec: JobSpec | dict[str, Any],
        secrets: Mapping[str, str] | None = None,
        cancel: threading.Event | None = None,
    ) -> dict[str, Any]:
        """Run every check of the spec and return the result document (dq_engine/result.py).

        - `secrets`: password values by the names the spec's JDBC sources give (`password_secret`);
          nothing from it is logged or copied into the result.
        - `cancel`: once set, the running work is interrupted, no further pass starts, and every
          check not finished by then ends `error` ("The run was cancelled ...").

        Raises SpecError for a malformed spec; every other failure is reported inside the document.
        """
        job = spec if isinstance(spec, JobSpec) else JobSpec.from_dict(spec)
        planning.validate(job)
        return self.run_job(job, secrets or {}, cancel or threading.Event())

    def run_job(self, job: JobSpec, secrets: Mapping[str, str], cancel: threading.Event) -> dict[str, Any]:
        raise NotImplementedError
