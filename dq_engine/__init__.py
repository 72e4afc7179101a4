"""The data-quality engine: one JSON job spec in, one result document out.

Pure Python. It imports nothing from Django or Celery, so it runs inside a Celery worker or as its
own `spark-submit` application alike (tests/test_layout.py holds it to that).

- `dq_engine.run(spec, secrets=None, *, spark=None, cancel=None)`: the entry point
  (dq_engine/dispatch.py); each batch runs on its engine (dq_engine/engines.py: Spark, DuckDB),
  chosen by dq_engine/selection.py for a batch whose engine is "auto".
- `dq_engine.vocabulary`: the one registry of metric kinds, predicates and operators.

`import dq_engine` stays cheap: `run` is imported on first use, PySpark and duckdb only by an
engine that runs a batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dq_engine.dispatch import run

__all__ = ["run"]


def __getattr__(name: str) -> Any:
    if name == "run":
        from dq_engine.dispatch import run

        return run
    raise AttributeError(f"module 'dq_engine' has no attribute {name!r}")
