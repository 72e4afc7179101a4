"""The DuckDB engine behind `dq_engine.run` (dq_engine/engines.py): local Parquet, CSV and JSON
files, embedded in the worker (no JVM), with the same answers as Spark.

A run is the one way of running checks (dq_engine/passes/) over DuckDB as its backend
(backend.py), on one in-memory DuckDB connection closed at the end:
1. each batch as a temp view (batches.py): its files, its filter rendered for DuckDB;
2. per batch ONE aggregate query: row count, every conditional count and aggregate, the custom
   SQL statistics that fold into it;
3. one GROUP BY ... HAVING per uniqueness key;
4. one NOT EXISTS per accuracy mapping;
5. custom SQL / value comparison as written, translated to DuckDB (sql.py);
each followed by its checks' error-row writes (DuckDB's COPY ... TO Parquet, error_rows.py).
A failure is its check's error only (dq_engine/recorder.py); cancelling interrupts the running
query.

`import dq_engine.duckdb.engine` does not import duckdb: `auto` selection asks this class what
it can read in the web app too.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from dq_engine.duckdb import capability, readers
from dq_engine.passes.run import SkeletonEngine, new_context, run_checks
from dq_engine.spec import Batch, CheckSpec, FileSource, JdbcSource, JobSpec

if TYPE_CHECKING:
    import duckdb

# The process's in-memory DuckDB databases (one per memory limit and thread count); each run
# opens its own connection (a cursor) to one and closes it at the end. It holds no tables.
_databases: dict[tuple[int, str | None, int | None], duckdb.DuckDBPyConnection] = {}
_databases_lock = threading.Lock()


class DuckDBEngine(SkeletonEngine):
    """- `duckdb_memory_limit`: DuckDB's memory_limit (e.g. "2GB"; default: env
      DQ_DUCKDB_MEMORY_LIMIT, else DuckDB's own, 80% of RAM); it spills to a temp directory beyond.
    - `duckdb_threads`: worker threads (default: DuckDB's, one per core)."""

    key = "duckdb"

    def __init__(
        self, duckdb_memory_limit: str | None = None, duckdb_threads: int | None = None, **_other_resources: Any
    ):
        self.memory_limit = duckdb_memory_limit or os.environ.get("DQ_DUCKDB_MEMORY_LIMIT") or None
        self.threads = duckdb_threads

    def reason_cannot_read(self, source: JdbcSource | FileSource) -> str | None:
        return readers.reason_cannot_read(source)

    def reason_cannot_check(self, check: CheckSpec) -> str | None:
        """Why a check should not run here (Spark answers it as Java would), or None."""
        return capability.reason_cannot_check(check)

    def reason_cannot_filter(self, batch: Batch) -> str | None:
        return capability.reason_cannot_filter(batch)

    def run_job(self, job: JobSpec, secrets: Mapping[str, str], cancel: threading.Event) -> dict[str, Any]:
        from dq_engine.duckdb.backend import DuckDBBackend

        return run_checks(new_context(job, DuckDBBackend(job, self.connect()), secrets, cancel))

    def connect(self) -> duckdb.DuckDBPyConnection:
        """A connection of its own for this run (its temp views are its own, and go with it) to the
        process's in-memory DuckDB database, opened once per setting (opening one costs ~50 ms)."""
        key = (os.getpid(), self.memory_limit, self.threads)  # a forked child opens its own
        with _databases_lock:
            if key not in _databases:
                import duckdb

                # One spill directory per process: two workers must never share DuckDB temp files.
                spill = os.path.join(tempfile.gettempdir(), f"dq-duckdb-{os.getpid()}")
                config: dict[str, Any] = {"temp_directory": spill}
                if self.memory_limit:
                    config["memory_limit"] = self.memory_limit
                if self.threads:
                    config["threads"] = int(self.threads)
                _databases[key] = duckdb.connect(":memory:", config=config)
            return _databases[key].cursor()

    def profile_backend(self, spec: Any, secrets: Mapping[str, str]) -> Any:
        """The table profiles' backend (dq_engine/profiling/), on a connection of its own."""
        from dq_engine.duckdb.profile import DuckDBProfile

        return DuckDBProfile(spec, self.connect())
