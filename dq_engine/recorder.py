"""The outcome recorder every engine's run writes to: each check's outcome, each batch's rows and
error, the plan's counters, the error-row and marked-row writes, and failures as values.

Failure is a value: whatever goes wrong with a check (its batch, a refusal, its compilation, its
query, the recording of its value) ends that check `error` with a short, secret-free message, and
the other checks still report. An exception the engine knows (its own, its database driver's,
CheckError, BatchError) says what it says; one nobody foresaw (a bug) is logged with its stack and
the check says so in words, never as Python's text (`'b1'`, `float() argument ...`).

Passes may run concurrently (Spark), so counters are updated under a lock; each check's outcome
is written by the one pass that computes it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol

from dq_engine.error_store import error_rows_path
from dq_engine.errors import BatchError, CheckError, describe, redact, trim
from dq_engine.result import new_outcome, new_stats, number
from dq_engine.spec import CheckSpec, JdbcSource, JobSpec

logger = logging.getLogger(__name__)

CANCELLED = "The run was cancelled before this check finished."
_ABSENT = object()  # no comparison value (every metric but value_comparison)


class RowWriter(Protocol):
    """What the recorder asks an engine to write (dq_engine/passes/backend.py)."""

    def write_error_rows(self, rows: Any, path: str, check: CheckSpec, limit: int, count: int) -> int: ...

    def write_marked_rows(self, rows: Any, path: str, check: CheckSpec) -> None: ...


def unforeseen(exc: BaseException, stage: str) -> str:
    return (
        f"The engine failed unexpectedly while {stage} this check ({type(exc).__name__}); the other checks "
        "are not affected. This is a fault of the engine, not of the check: the worker's log has the details."
    )


# Exceptions whose text is written for the person who wrote the check: the engine's own (a refused
# SQL, a rule set or a regex that does not parse, ...), SQLGlot's (a construct it cannot render),
# and the file system's (a folder that cannot be written: "Permission denied: '/data/out'").
_SAYING_MODULES = ("dq_engine.", "sqlglot.")


def _says_it(exc: BaseException) -> bool:
    return isinstance(exc, OSError) or (type(exc).__module__ or "").startswith(_SAYING_MODULES)


class Recorder:
    def __init__(
        self,
        spec: JobSpec,
        secrets: Mapping[str, str],
        cancel: threading.Event,
        explain: Callable[[BaseException], str] = lambda exc: "",
        writer: RowWriter | None = None,
    ):
        self.spec, self.cancel, self.explain, self.writer = spec, cancel, explain, writer
        self.outcomes: dict[str, dict[str, Any]] = {check.id: new_outcome(check) for check in spec.checks}
        self.done: set[str] = set()
        self.stats = {name: new_stats() for name in spec.batches}
        self.rows: dict[str, int | None] = {}
        self.errors: dict[str, str] = {}  # batch -> why its checks cannot run
        self.lock = threading.Lock()
        # Only the secrets this run uses are redacted from messages (the CLI's mapping is os.environ).
        self.used_secrets = [
            secrets[s.password_secret]
            for s in spec.sources.values()
            if isinstance(s, JdbcSource) and s.password_secret and secrets.get(s.password_secret)
        ]

    # --- messages -----------------------------------------------------------------------------
    def say(self, exc: BaseException, stage: str = "computing") -> str:
        """A short, secret-free message for an exception; an unforeseen one is logged, and said in words."""
        if isinstance(exc, CheckError | BatchError) or _says_it(exc):
            return describe(exc, self.used_secrets)
        try:
            explained = self.explain(exc)
        except Exception:  # noqa: BLE001 - an explanation that fails is no explanation
            explained = ""
        if explained:
            return redact(trim(explained), self.used_secrets)
        logger.error("Unforeseen engine failure while %s a check", stage, exc_info=exc)
        return unforeseen(exc, stage)

    # --- outcomes -----------------------------------------------------------------------------
    def count(self, batch: str, what: str, n: int = 1) -> None:
        with self.lock:
            self.stats[batch][what] += n

    def fail(self, check: CheckSpec, exc: BaseException, stage: str = "computing") -> None:
        message = CANCELLED if self.cancel.is_set() else self.say(exc, stage)  # a cancelled job's error says only that
        self.outcomes[check.id].update(status="error", statistic=None, comparison=None, message=message)
        self.done.add(check.id)

    def ok(self, check: CheckSpec, statistic: float | None, error_row_count: int | None = None) -> None:
        self.outcomes[check.id].update(status="ok", statistic=statistic, error_row_count=error_row_count)
        self.done.add(check.id)

    def ok_count(self, check: CheckSpec, value: Any) -> int:
        """A count of offending rows (NULL over no rows on some engines counts none)."""
        count = int(value or 0)
        self.ok(check, float(count), error_row_count=count)
        return count

    def ok_value(self, check: CheckSpec, value: Any, comparison: Any = _ABSENT) -> None:
        """An aggregate or query value: a number, or NULL (ok, with a message saying so)."""
        statistic, message = number(value)
        self.ok(check, statistic)
        notes = [] if statistic is not None else [f"Statistic: {message}"]
        if comparison is not _ABSENT:
            compared, why = number(comparison)
            self.outcomes[check.id]["comparison"] = compared
            if compared is None:
                notes.append(f"Comparison: {why}")
        self.outcomes[check.id]["message"] = " ".join(notes) or None

    @contextmanager
    def isolated(self, checks: Iterable[CheckSpec], stage: str) -> Iterator[None]:
        """Whatever the block raises ends these checks `error` (those not already finished)."""
        checks = list(checks)
        try:
            yield
        except Exception as exc:  # noqa: BLE001 - the one place a check's failure becomes its value
            for check in checks:
                if check.id not in self.done:
                    self.fail(check, exc, stage)

    # --- batches ------------------------------------------------------------------------------
    def batch_failed(self, name: str, exc: BaseException, prefix: str = "") -> None:
        self.errors[name] = prefix + self.say(exc, "reading the batch of")

    def problem(self, check: CheckSpec) -> str | None:
        """Why a check cannot run because of its batches, or None."""
        if check.batch in self.errors:
            return self.errors[check.batch]
        if check.target_batch and check.target_batch in self.errors:
            return f"Target batch: {self.errors[check.target_batch]}"
        return None

    # --- rows written -------------------------------------------------------------------------
    def error_rows(self, check: CheckSpec, count: int, rows: Callable[[], Any]) -> None:
        """Write a check's offending rows (`rows()` gives the engine's handle on them) when it asks
        for them and the spec has a sink; a failed write is a note, the statistic stands."""
        sink = self.spec.error_rows
        if not check.error_rows or sink is None or self.writer is None:
            return
        outcome = self.outcomes[check.id]
        if count <= 0 or sink.limit <= 0:
            outcome["error_rows_written"] = 0
            return
        path = error_rows_path(sink.root, check.id)
        try:
            written = self.writer.write_error_rows(rows(), path, check, sink.limit, count)
        except Exception as exc:  # noqa: BLE001 - the statistic stands; only the sample is missing
            outcome["message"] = f"Error rows could not be written to {path}: {self.say(exc, 'writing the rows of')}"
            return
        self.count(check.batch, "error_row_writes")
        outcome.update(error_rows_written=written, error_rows_path=path)

    def marked_batch(self, check: CheckSpec, path: str, rows: Callable[[], Any]) -> None:
        """The cleansed layer: every row of the batch with its marks (row_rules' `output`) in the new
        folder `path`; a failed write is a note on the check, whose statistic stands."""
        if self.writer is None:
            return
        try:
            self.writer.write_marked_rows(rows(), path, check)
        except Exception as exc:  # noqa: BLE001
            said = self.say(exc, "writing the marked rows of")
            self.outcomes[check.id]["message"] = f"The marked rows could not be written to {path}: {said}"
            return
        self.count(check.batch, "error_row_writes")
        self.outcomes[check.id]["output_path"] = path

    def finish(self) -> None:
        """Every check no pass reached (cancelled, its batch failed, or a bug) gets an error saying why."""
        for check in self.spec.checks:
            if check.id not in self.done:
                why = CANCELLED if self.cancel.is_set() else self.problem(check)
                self.fail(check, CheckError(why or "The engine did not evaluate this check."))
