"""The engines behind `dq_engine.run`, one package each, picked per batch by the spec's `engine`.

An engine is a class, imported only when a batch needs it (a worker that never meets a Spark
batch never imports PySpark), built with the resources `dq_engine.run` was given (keyword
arguments; each engine takes the ones it uses and ignores the rest), and answering:

- `reason_cannot_read(source) -> str | None`: why it cannot read a spec source, or None;
- `run(spec, secrets=None, cancel=None) -> dict`: the result document (dq_engine/result.py) for
  a spec all of whose batches it reads. `cancel` is a threading.Event: once set, the engine stops
  its work and every check it has not finished ends `error` with a message saying it was
  cancelled.

Optional, asked by `auto` selection (dq_engine/selection.py) before anything is read:

- `reason_cannot_check(check) -> str | None`: why a check (a spec CheckSpec) should not run on this
  engine (it would answer it differently from Spark), or None;
- `reason_cannot_filter(batch) -> str | None`: the same for a batch's filter.

Building an engine with no resources must be cheap (no session, no connection): selection does so
in the web app.

A new engine plugs in by adding its dotted path here (and its package).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Mapping
from typing import Any, Protocol

ENGINES: dict[str, str] = {
    "spark": "dq_engine.spark.engine.SparkEngine",
    "pushdown": "dq_engine.pushdown.engine.PushdownEngine",
    "duckdb": "dq_engine.duckdb.engine.DuckDBEngine",
}
DEFAULT_ENGINE = "spark"


class Engine(Protocol):
    key: str

    # The spec's types (dq_engine.spec.JobSpec, JdbcSource | FileSource) are not imported here:
    # the spec parser reads ENGINES, and this module must not import it back.
    def reason_cannot_read(self, source: Any) -> str | None: ...

    def run(
        self, spec: Any, secrets: Mapping[str, str] | None = None, cancel: threading.Event | None = None
    ) -> dict[str, Any]: ...


class UnknownEngine(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def engine_class(key: str) -> type:
    """The engine class registered under `key`, imported now."""
    if key not in ENGINES:
        raise UnknownEngine(f"Unknown engine {key!r}; the engines are: {', '.join(ENGINES)}.")
    module_name, _, class_name = ENGINES[key].rpartition(".")
    return getattr(importlib.import_module(module_name), class_name)


def make_engine(key: str, **resources: Any) -> Engine:
    """An engine instance, given the caller's resources (e.g. `spark=`)."""
    return engine_class(key)(**resources)
