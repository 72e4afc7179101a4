"""What an engine supplies to the one way of running checks (dq_engine/passes/run.py).

An engine is a backend: it opens a batch, compiles a check's share of the combined aggregate,
runs that aggregate, groups keys, joins batches, runs a query's one value, writes error rows and
marked rows, interrupts its running work, and explains its own exceptions. It never decides what
a failure means for the other checks, nor records an outcome: the passes and the recorder do.

Every method may raise. CheckError / BatchError (dq_engine/errors.py) carry a message for the
user as they are; `explain` turns the engine's own exceptions (its SQL engine's, its driver's)
into one; anything else is a fault the recorder reports in words (dq_engine/recorder.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from dq_engine.plan import MappingKey
from dq_engine.spec import CheckSpec

Unit = Callable[[], None]
# A pass's unit of work and the checks it answers (whatever escapes it ends those checks `error`).
Work = tuple[list[CheckSpec], Unit]


@dataclass(frozen=True)
class Metric:
    """One check's share of the combined aggregate, in the engine's own terms (SQL text, SQLGlot
    trees, Spark columns): its one value per batch, the condition of its offending rows
    (conditional counts, row rules; None for an aggregate), the marks its rows carry (row rules'
    `_dq`, `_dq_failed_checks`) and what the schema alone shows (schema contracts)."""

    aggregate: Any
    predicate: Any = None
    marks: tuple[Any, ...] = ()
    findings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Found:
    """What a key group or a join found: the statistic, the exact number of offending rows, and
    the engine's handle on those rows (for the error-row writer), made only when asked for."""

    value: Any
    count: Any
    rows: Callable[[], Any]


class Backend(Protocol):
    key: str
    # Whether a custom SQL statistic of the plain shape (plan.py's folded_sql, Spark SQL) joins the
    # aggregate; when not, it runs as written among the query checks.
    folds_sql: bool

    # --- batches -------------------------------------------------------------------------------
    def open(self, name: str) -> None:
        """Read the batch's schema, apply its filter; BatchError (or CheckError) says why not."""

    def refusal(self, check: CheckSpec) -> None:
        """CheckError when this engine will not compute the check (the reason); runs nothing."""

    def cached(self, name: str) -> bool:
        """Whether the open batch is cached for the run (its aggregate pass, which builds the
        cache, then runs before any other pass)."""

    # --- the combined aggregate ----------------------------------------------------------------
    def metric(self, name: str, check: CheckSpec, folded: str | None) -> Metric:
        """The check's share of the aggregate (`folded`: its custom SQL as one Spark SQL aggregate)."""

    def bind(self, name: str, metrics: Sequence[Metric]) -> None:
        """Raise when these metrics do not analyse together over the batch (nothing runs)."""

    def aggregate(self, name: str, metrics: Sequence[Metric]) -> Sequence[Any]:
        """ONE query over the batch: its row count, then each metric's value."""

    def offending_rows(self, name: str, metric: Metric) -> Any:
        """The batch's rows the metric's predicate selects, with its marks."""

    def marked_rows(self, name: str, metric: Metric) -> Any:
        """Every row of the batch with the metric's marks beside its columns."""

    # --- key groups, joins, queries ------------------------------------------------------------
    def key_column(self, name: str, check: CheckSpec) -> str:
        """The batch's column a uniqueness check groups by (as the batch spells it)."""

    def duplicates(self, name: str, column: str) -> Found:
        """Duplicated non-NULL values of the column (value) and the rows holding them (count)."""

    def unmatched(self, name: str, target: str, mappings: MappingKey, check: CheckSpec) -> Found:
        """The batch's rows with no target row matching every mapping pair."""

    # Optional: `shared_key_column(name, target, mappings) -> str | None` and
    # `duplicates_and_unmatched(name, column, target, mappings) -> (Found, Found)`: a backend that
    # answers a uniqueness check and an accuracy check on that same column with ONE key group
    # (Spark: no join). keys.py uses them when the backend has them.

    def scalar(self, check: CheckSpec, text: Any, placeholders: tuple[str, ...], what: str) -> Any:
        """The one value of a user's checked SELECT (dq_engine/query_checks.py)."""

    # --- writing, running, stopping ------------------------------------------------------------
    def write_error_rows(self, rows: Any, path: str, check: CheckSpec, limit: int, count: int) -> int:
        """Write at most `limit` of the rows as Parquet in `path`; the number written."""

    def write_marked_rows(self, rows: Any, path: str, check: CheckSpec) -> None:
        """Write every marked row as Parquet in the new folder `path`."""

    def run_units(self, units: list[Unit], cancel: threading.Event) -> None:
        """Run the passes' units (one after another, or a few at a time); none starts once cancelled."""

    def interrupt(self) -> None:
        """Stop the work running now (called by the cancel watcher, from another thread)."""

    def explain(self, exc: BaseException) -> str:
        """A message for the engine's own exception, or "" for one it does not know."""

    def plan_extras(self) -> dict[str, Any]:
        """The engine's own entries in the document's `plan` (beside `batches`)."""

    def close(self) -> None:
        """Release the run's connections, views, caches."""


def run_in_order(units: list[Unit], cancel: threading.Event) -> None:
    """Units one after another, skipping those not started when the run is cancelled."""
    for unit in units:
        if cancel.is_set():
            return
        unit()
