"""The Spark engine: one JSON job spec in, one result document out.

Pure Python + PySpark. It imports nothing from Django or Celery, so it runs inside a Celery worker
or as its own `spark-submit` application alike (tests/test_layout.py holds it to that).

`import dq_engine` stays cheap: `dq_engine.run` (see dq_engine.runner) is imported on first use,
and PySpark only with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dq_engine.runner import run

__all__ = ["run"]


def __getattr__(name: str) -> Any:
    if name == "run":
        from dq_engine.runner import run

        return run
    raise AttributeError(f"module 'dq_engine' has no attribute {name!r}")
