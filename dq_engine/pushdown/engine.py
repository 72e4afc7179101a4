"""The pushdown engine behind `dq_engine.run` (dq_engine/engines.py): a batch's checks computed by
the PostgreSQL or MySQL/MariaDB database holding its table, as SQL rendered by SQLGlot.

Per batch: ONE aggregate query (row count, every conditional count, aggregate, row rule and
schema contract's NULL count), one
`GROUP BY ... HAVING COUNT(*) > 1` per uniqueness key, one `NOT EXISTS` per accuracy mapping whose
target is in the same database, one query per custom SQL (render.py), each in a read-only
transaction under a statement timeout (dq_engine/databases/); error rows fetched with the sink's LIMIT
and written as Parquet (error_rows.py), their exact count from the query's own count. Row rules'
error rows carry `_dq` and `_dq_failed_checks` (computed by the database), and their cleansed
output (every row with its marks) is streamed in chunks into Parquet (error_rows.py); a schema
contract's findings come from the catalog's types (dq_engine/databases/).

A run is the one way of running checks (dq_engine/passes/) over the database as its backend
(backend.py). Failure is a value, as on every engine: a check that cannot be built is its own
error; when the combined aggregate query fails, the row count and every check run alone, so
only the culprit errors; a database that cannot be reached (or a table that does not exist) is
the error of its batch's checks, with the driver's reason and never the password.

Selection (per batch, before the run) asks `reason_cannot_read(source)` and, for what only the
checks tell, `reason_cannot_run(spec, batch, secrets)`: None when the engine can compute every
check of the batch as Spark would, else the first reason (a regular expression the database
reads otherwise, times held as text, accuracy across two databases, sampling, a function
with no known translation, a like pattern with a backslash). A check refused during a run
pinned to pushdown ends `error` with that reason.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

from dq_engine.databases import DEFAULT_STATEMENT_TIMEOUT_SECONDS
from dq_engine.databases import kind_of as dialect_of
from dq_engine.errors import BatchError, CheckError
from dq_engine.passes.run import SkeletonEngine, new_context, run_checks
from dq_engine.pushdown.dialects import NOT_PUSHED
from dq_engine.pushdown.refusals import like_escape_problem, reason_cannot_draw
from dq_engine.spec import Batch, CheckSpec, JobSpec

logger = logging.getLogger(__name__)


class PushdownEngine(SkeletonEngine):
    """- `statement_timeout`: seconds a statement may run (default: the spec's limit, else 15 min)."""

    key = "pushdown"

    def __init__(self, statement_timeout: int | None = None, **_other_engines_resources: Any):
        self.statement_timeout = statement_timeout

    # --- what selection asks ----------------------------------------------------------------------
    def reason_cannot_read(self, source: Any) -> str | None:
        if dialect_of(source) is None:
            return f"{NOT_PUSHED}: pushdown reads tables in PostgreSQL and MySQL/MariaDB, not this source."
        return None

    def reason_cannot_filter(self, batch: Batch) -> str | None:
        """Why the batch itself cannot be pushed down (decided from the spec alone), or None."""
        return reason_cannot_draw(batch, "")

    def reason_cannot_check(self, check: CheckSpec) -> str | None:
        """Why a check cannot be pushed down, decided from the spec alone (selection asks this in the
        web process, which has no secrets; what needs the table's catalog is `reason_cannot_run`'s)."""
        reason = like_escape_problem(check)
        return f"{NOT_PUSHED}: check {check.name!r}, {reason}" if reason else None

    def reason_cannot_run(self, spec: JobSpec, batch: str, secrets: Mapping[str, str] | None = None) -> str | None:
        """Why some check of `batch` cannot be pushed down (it reads the table's catalog), or None."""
        reason = self.reason_cannot_read(spec.sources[spec.batches[batch].source])
        if reason:
            return reason
        timeout = self._timeout(spec)
        from dq_engine.pushdown.backend import PushdownBackend

        with PushdownBackend(spec, secrets or {}, timeout) as run:
            try:
                run.open(batch)
            except (BatchError, CheckError) as exc:
                return str(exc) if str(exc).startswith(NOT_PUSHED) else None  # unreadable: not a refusal
            except Exception:  # noqa: BLE001 - not a refusal: the run reports the batch's error itself
                logger.exception("Pushdown could not open batch %s to look at its checks", batch)
                return None
            for check in spec.checks:
                if batch not in (check.batch, check.target_batch):
                    continue
                try:
                    run.refusal(check)
                except CheckError as exc:
                    return f"Check {check.name}: {exc}"
                except Exception:  # noqa: BLE001 - an unreadable batch, a fault: the run reports it as the check's error
                    logger.info("Pushdown could not decide on check %s", check.name, exc_info=True)
                    continue
        return None

    # --- the run ------------------------------------------------------------------------------
    def run_job(self, job: JobSpec, secrets: Mapping[str, str], cancel: threading.Event) -> dict[str, Any]:
        from dq_engine.pushdown.backend import PushdownBackend

        return run_checks(new_context(job, PushdownBackend(job, secrets, self._timeout(job)), secrets, cancel))

    def _timeout(self, spec: JobSpec) -> int:
        from_spec = spec.limits.statement_timeout_seconds
        return int(self.statement_timeout or from_spec or DEFAULT_STATEMENT_TIMEOUT_SECONDS)

    def profile_backend(self, spec: Any, secrets: Mapping[str, str]) -> Any:
        """The table profiles' backend (dq_engine/profiling/): the database computes every figure."""
        from dq_engine.pushdown.profile import PushdownProfile

        return PushdownProfile(spec, secrets, self.statement_timeout or spec.statement_timeout_seconds)
