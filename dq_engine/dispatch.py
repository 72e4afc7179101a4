"""`dq_engine.run`: one job spec → each batch to its engine → one result document.

The spec's batches name their engine (`engine`, default "spark"; dq_engine/engines.py), or
"auto" (dq_engine/selection.py decides, and the document's batch says why: `engine_reason`). The
checks go with their batch; a check reading two batches of different engines (accuracy, value
comparison across engines) runs on Spark, which reads both. Each engine runs on its part of the
spec, and the documents are merged: a batch is reported by its own engine, a check by the engine
that ran it. A batch whose engine says it cannot read the source is an error for its checks.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from dq_engine import plan as planning
from dq_engine.engines import make_engine
from dq_engine.result import merge_documents, refusal_document
from dq_engine.selection import EngineRefused, choose_engines
from dq_engine.spec import AUTO_ENGINE, JobSpec

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

logger = logging.getLogger(__name__)

# The engine that runs a check whose two batches belong to different engines (it reads every source).
CROSS_ENGINE = "spark"


def run(
    spec: JobSpec | dict[str, Any],
    secrets: Mapping[str, str] | None = None,
    *,
    spark: SparkSession | Callable[[], SparkSession] | None = None,
    cancel: threading.Event | None = None,
    engine_options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Run every check of the spec and return the result document (dq_engine/result.py).

    - `secrets`: password values by the names the spec's JDBC sources give (`password_secret`);
      nothing from it is logged or copied into the result.
    - `spark`: a SparkSession, or a zero-argument callable returning one; the Spark engine calls
      it only when a batch needs Spark. None: the process's active session, or a new default one.
    - `cancel`: a threading.Event; once set, the engines stop and unfinished checks end `error`
      with a message saying the run was cancelled.
    - `engine_options`: further resources the engines take by name (`duckdb_memory_limit`, ...).

    Raises SpecError for a malformed spec (dq_engine.spec); every other failure is in the document.
    """
    job = spec if isinstance(spec, JobSpec) else JobSpec.from_dict(spec)
    planning.validate(job)
    job, reasons = resolve_auto(job)
    resources = {**(engine_options or {}), "spark": spark}
    job, fallen_back = fall_back_where_refused(job, secrets, resources)
    reasons.update(fallen_back)
    document = _run_parts(job, secrets, resources, cancel)
    for name, reason in reasons.items():
        if name in document["batches"]:
            document["batches"][name]["engine_reason"] = reason
    return document


def resolve_auto(spec: JobSpec) -> tuple[JobSpec, dict[str, str]]:
    """The spec with every "auto" batch given its engine (dq_engine/selection.py), and the reasons."""
    auto = [name for name, batch in spec.batches.items() if batch.engine == AUTO_ENGINE]
    if not auto:
        return spec, {}
    pinned = {name: batch.engine for name, batch in spec.batches.items() if name not in auto}
    try:  # the batches with an engine count as pinned (a check across them and an auto one, ...)
        choices = choose_engines(spec, pins=pinned)
    except EngineRefused:  # a pinned engine that cannot run its batch reports that itself, below
        choices = choose_engines(spec)
    batches = {
        name: replace(batch, engine=choices[name].engine) if name in auto else batch
        for name, batch in spec.batches.items()
    }
    return replace(spec, batches=batches), {name: choices[name].reason for name in auto}


def fall_back_where_refused(
    spec: JobSpec, secrets: Mapping[str, str] | None, resources: dict[str, Any]
) -> tuple[JobSpec, dict[str, str]]:
    """The spec with each batch that has a `fallback` moved to it when its engine refuses one of
    the batch's checks after looking at the source (pushdown reads the table's catalog: a
    case-insensitive collation, times held as text, ...), and the reasons. A batch auto chose for
    pushdown is thus read by Spark instead of ending its refused checks `error`."""
    moved: dict[str, str] = {}
    batches = dict(spec.batches)
    for name, batch in spec.batches.items():
        if not batch.fallback or batch.fallback == batch.engine:
            continue
        engine = make_engine(batch.engine, **resources)
        ask = getattr(engine, "reason_cannot_run", None)
        try:
            reason = ask(spec, name, secrets) if ask else None
        except Exception:  # noqa: BLE001 - a fault in the engine's answer: the batch moves where it is read
            logger.exception("Engine %s could not say whether it runs batch %s", batch.engine, name)
            reason = f"{batch.engine} could not tell whether it runs the checks of batch {name}"
        if reason:
            batches[name] = replace(batch, engine=batch.fallback)
            moved[name] = (
                f"auto: {batch.fallback}, since {batch.engine} cannot run a check of it ({reason.rstrip('. ')})"
            )
    return (replace(spec, batches=batches), moved) if moved else (spec, {})


def needs_spark(spec: JobSpec | dict[str, Any]) -> bool:
    """Whether some batch or check of the spec runs on Spark (the launcher starts Spark only then)."""
    job = spec if isinstance(spec, JobSpec) else JobSpec.from_dict(spec)
    job, _ = resolve_auto(job)
    return CROSS_ENGINE in split_by_engine(job)


def _run_parts(
    job: JobSpec, secrets: Mapping[str, str] | None, resources: dict[str, Any], cancel: threading.Event | None
) -> dict[str, Any]:
    parts = split_by_engine(job)
    documents: list[tuple[set[str], dict[str, Any]]] = []
    for key, part in parts.items():
        engine = make_engine(key, **resources)
        refused = {
            name: reason
            for name in owned_batches(part, key)
            if (reason := engine.reason_cannot_read(part.sources[part.batches[name].source]))
        }
        runnable = without_batches(part, set(refused))
        if runnable.batches:
            documents.append((owned_batches(runnable, key), engine.run(runnable, secrets, cancel=cancel)))
        if refused:
            documents.append((set(refused), refusal_document(part, key, refused)))
    if len(documents) == 1:
        return documents[0][1]
    return merge_documents(job, documents)


def engine_of_check(spec: JobSpec, batch: str, target: str | None) -> str:
    engine = spec.batches[batch].engine
    if target is not None and spec.batches[target].engine != engine:
        return CROSS_ENGINE
    return engine


def owned_batches(part: JobSpec, key: str) -> set[str]:
    """The batches of a part that its engine reports (not those it only reads for a cross-engine check)."""
    return {name for name, batch in part.batches.items() if batch.engine == key}


def split_by_engine(spec: JobSpec) -> dict[str, JobSpec]:
    """{engine key: the spec's part it runs}: its batches (plus those a cross-engine check of it
    reads), their sources and the checks it runs. An engine with batches but no checks still gets
    its part (its batches' row counts are reported)."""
    batches: dict[str, set[str]] = {}
    checks: dict[str, list] = {}
    for name, batch in spec.batches.items():
        batches.setdefault(batch.engine, set()).add(name)
    for check in spec.checks:
        key = engine_of_check(spec, check.batch, check.target_batch)
        checks.setdefault(key, []).append(check)
        batches.setdefault(key, set()).update(b for b in (check.batch, check.target_batch) if b is not None)
    parts = {}
    for key, names in batches.items():
        kept = {name: batch for name, batch in spec.batches.items() if name in names}
        parts[key] = replace(
            spec,
            batches=kept,
            sources={name: spec.sources[name] for name in {b.source for b in kept.values()}},
            checks=checks.get(key, []),
        )
    return parts


def without_batches(part: JobSpec, names: set[str]) -> JobSpec:
    """The part without these batches and the checks that read them."""
    if not names:
        return part
    batches = {name: batch for name, batch in part.batches.items() if name not in names}
    return replace(
        part,
        batches=batches,
        sources={name: part.sources[name] for name in {b.source for b in batches.values()}},
        checks=[c for c in part.checks if c.batch not in names and c.target_batch not in names],
    )
