"""The Spark engine's outcome recorder: the shared one (dq_engine/outcomes.py) with Spark's
error-row writers (error_rows.py) and Spark's and py4j's messages (messages.py)."""

from __future__ import annotations

from typing import Any

from dq_engine import outcomes
from dq_engine.outcomes import CANCELLED

__all__ = ["CANCELLED", "Outcomes"]


class Outcomes(outcomes.Outcomes):
    def explain(self, exc: BaseException) -> str:
        from dq_engine.spark.messages import explain

        return explain(exc)

    def write_error_rows(self, rows: Any, path: str, check_name: str, limit: int) -> None:
        from dq_engine.spark.error_rows import write_error_rows

        write_error_rows(rows, path, check_name, limit)

    def write_marked_batch(self, rows: Any, path: str) -> None:
        from dq_engine.spark.error_rows import write_marked_batch

        write_marked_batch(rows, path)
