"""The DuckDB engine's outcome recorder: the shared one (dq_engine/outcomes.py: each
check's outcome, the plan's counters, failures as values, cancellation) with DuckDB's messages and
DuckDB's error-row writer (error_rows.py), which also writes row rules' cleansed output.
Importing it imports no PySpark."""

from __future__ import annotations

from collections.abc import Callable

from dq_engine import errors
from dq_engine.duckdb.error_rows import write_error_rows, write_marked_batch
from dq_engine.error_store import error_rows_path
from dq_engine.outcomes import Outcomes
from dq_engine.spec import CheckSpec


class DuckDBOutcomes(Outcomes):
    con = None  # the run's DuckDB connection, set by the engine before any pass

    def say(self, exc: BaseException) -> str:
        return errors.describe(exc, self.used_secrets, explain=_explain)

    def error_rows(self, check: CheckSpec, count: int, rows: Callable[[], str]) -> None:  # type: ignore[override]
        """Write a check's offending rows (`rows()` gives the SELECT of them) when it asks for them."""
        sink = self.spec.error_rows
        if not check.error_rows or sink is None:
            return
        outcome = self.outcomes[check.id]
        if count <= 0 or sink.limit <= 0:
            outcome["error_rows_written"] = 0
            return
        path = error_rows_path(sink.root, check.id)
        try:
            write_error_rows(self.con, rows(), path, check.name, sink.limit)
        except Exception as exc:  # noqa: BLE001 - the statistic stands; only the sample is missing
            outcome["message"] = f"Error rows could not be written to {path}: {self.say(exc)}"
            return
        self.count(check.batch, "error_row_writes")
        outcome.update(error_rows_written=min(count, sink.limit), error_rows_path=path)

    def marked_batch(self, check: CheckSpec, path: str, rows: Callable[[], str]) -> None:  # type: ignore[override]
        """The cleansed layer (row_rules' `output`): `rows()` gives the SELECT of every row with its
        marks; a failed write is a note on the check, whose statistic stands (as on Spark)."""
        try:
            write_marked_batch(self.con, rows(), path)
        except Exception as exc:  # noqa: BLE001
            self.outcomes[check.id]["message"] = f"The marked rows could not be written to {path}: {self.say(exc)}"
            return
        self.count(check.batch, "error_row_writes")
        self.outcomes[check.id]["output_path"] = path


def _explain(exc: BaseException) -> str:
    """DuckDB's exceptions say their kind in their text ("Binder Error: ..."); the rest is generic."""
    module = type(exc).__module__ or ""
    if module.startswith(("duckdb", "_duckdb")):
        return str(exc).split("\n\nLINE ", 1)[0].strip()
    return ""
