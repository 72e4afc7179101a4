"""The outcome recorder the engines share: each check's outcome, the plan's counters, and the
error-row writes (each engine gives its writers: `write_error_rows`, `write_marked_batch`, and the
`explain` of its exceptions).

Failure is a value (CONVENTIONS.md): a pass that fails records `error` for its own checks only,
with a short, secret-free message; the other checks of the run still report. Passes run
concurrently, so counters are updated under a lock (each check's outcome is written by the one
pass that computes it).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from dq_engine.error_store import error_rows_path
from dq_engine.errors import CheckError, describe
from dq_engine.result import new_outcome, new_stats, number
from dq_engine.spec import CheckSpec, JdbcSource, JobSpec

CANCELLED = "The run was cancelled before this check finished."
_ABSENT = object()  # no comparison value (every metric but value_comparison)


class Outcomes:
    def __init__(self, spec: JobSpec, secrets: Mapping[str, str], cancel: threading.Event):
        self.spec, self.cancel = spec, cancel
        self.outcomes: dict[str, dict[str, Any]] = {check.id: new_outcome(check) for check in spec.checks}
        self.done: set[str] = set()
        self.stats = {name: new_stats() for name in spec.batches}
        self.lock = threading.Lock()
        # Only the secrets this run uses are redacted from messages (the CLI's mapping is os.environ).
        self.used_secrets = [
            secrets[s.password_secret]
            for s in spec.sources.values()
            if isinstance(s, JdbcSource) and s.password_secret and secrets.get(s.password_secret)
        ]

    def say(self, exc: BaseException) -> str:
        return describe(exc, self.used_secrets, explain=self.explain)

    def explain(self, exc: BaseException) -> str:
        """The engine's reading of its own exceptions ("" for the generic one)."""
        return ""

    def write_error_rows(self, rows: Any, path: str, check_name: str, limit: int) -> None:
        raise NotImplementedError

    def write_marked_batch(self, rows: Any, path: str) -> None:
        raise NotImplementedError

    def count(self, batch: str, what: str, n: int = 1) -> None:
        with self.lock:
            self.stats[batch][what] += n

    def fail(self, check: CheckSpec, exc: BaseException) -> None:
        message = CANCELLED if self.cancel.is_set() else self.say(exc)  # a cancelled job's error says only that
        self.outcomes[check.id].update(status="error", statistic=None, comparison=None, message=message)
        self.done.add(check.id)

    def ok(self, check: CheckSpec, statistic: float | None, error_row_count: int | None = None) -> None:
        self.outcomes[check.id].update(status="ok", statistic=statistic, error_row_count=error_row_count)
        self.done.add(check.id)

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

    def error_rows(self, check: CheckSpec, count: int, rows: Callable[[], Any]) -> None:
        """Write a check's offending rows when it asks for them and the spec has a sink."""
        sink = self.spec.error_rows
        if not check.error_rows or sink is None:
            return
        outcome = self.outcomes[check.id]
        if count <= 0 or sink.limit <= 0:
            outcome["error_rows_written"] = 0
            return
        path = error_rows_path(sink.root, check.id)
        try:
            self.write_error_rows(rows(), path, check.name, sink.limit)
        except Exception as exc:  # noqa: BLE001 - the statistic stands; only the sample is missing
            outcome["message"] = f"Error rows could not be written to {path}: {self.say(exc)}"
            return
        self.count(check.batch, "error_row_writes")
        outcome.update(error_rows_written=min(count, sink.limit), error_rows_path=path)

    def marked_batch(self, check: CheckSpec, path: str, rows: Callable[[], Any]) -> None:
        """The cleansed layer: every row of the batch with its marks (row_rules' `output`), as Parquet
        in `path`; a failed write is a note on the check, whose statistic stands."""
        try:
            self.write_marked_batch(rows(), path)
        except Exception as exc:  # noqa: BLE001
            self.outcomes[check.id]["message"] = f"The marked rows could not be written to {path}: {self.say(exc)}"
            return
        self.count(check.batch, "error_row_writes")
        self.outcomes[check.id]["output_path"] = path

    def finish(self, problem: Callable[[CheckSpec], str | None]) -> None:
        """Every check no pass reached (cancelled, its batch failed, or a bug) gets an error saying why."""
        for check in self.spec.checks:
            if check.id not in self.done:
                why = CANCELLED if self.cancel.is_set() else problem(check)
                self.fail(check, CheckError(why or "The engine did not evaluate this check."))
