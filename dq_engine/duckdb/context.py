"""What the DuckDB engine's passes share during one run (built by engine.py)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dq_engine.duckdb.batches import Batches
from dq_engine.duckdb.outcomes import DuckDBOutcomes
from dq_engine.plan import BatchPlan
from dq_engine.spec import JobSpec

if TYPE_CHECKING:
    import duckdb


@dataclass
class DuckDBRun:
    spec: JobSpec
    con: duckdb.DuckDBPyConnection
    plans: dict[str, BatchPlan]
    batches: Batches
    outcomes: DuckDBOutcomes
    cancel: threading.Event

    def one_row(self, sql: str) -> tuple[Any, ...]:
        """Run a query that returns one row (an aggregate) and return it."""
        return self.con.execute(sql).fetchone()
