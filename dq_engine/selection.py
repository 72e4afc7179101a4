"""Which engine reads each batch, and why.

`auto` (the default) decides per batch, from the spec alone (no data is read; a file source's size
is listed from the file system):

- a table in a database: pushdown, when an engine "pushdown" is registered (dq_engine/engines.py)
  and reads it; else Spark;
- local Parquet, CSV or JSON files of at most `duckdb_max_bytes` (DQ_DUCKDB_MAX_BYTES): DuckDB,
  unless a check on the batch needs Spark's answer (a Java-only regex, a datetime format or custom
  SQL DuckDB would answer differently, such a rule in a row rule set: dq_engine/duckdb/capability.py)
  or its filter is not portable;
- everything else: Spark (hdfs:// and s3a:// paths, ORC, larger files);
- a check reading two batches of different datasources (accuracy, value comparison): Spark for
  both, which reads every kind of source; except two local file batches both going to DuckDB,
  which reads them both as well.

A pinned engine (the run's `engine`, else the datasource's) is taken as it is, or refused
(`EngineRefused`, naming the batch and the reason) when it cannot read the batch or answer one of
its checks as Spark would. Pure Python: the web app asks it when a run starts (a refusal is a 400
naming `engine`), `dq_engine.run` for batches whose engine is "auto".
"""

from __future__ import annotations

import logging
import os
from collections.abc import Hashable, Mapping
from dataclasses import dataclass

from dq_engine.engines import ENGINES, make_engine
from dq_engine.spec import FileSource, JdbcSource, JobSpec
from dq_engine.words import fragment, gettext_noop, say

# The messages (dq_engine/words.py: the platform translates them).
UNKNOWN_ENGINE = gettext_noop("Unknown engine %(engine)s; choose one of %(names)s.")
CANNOT_RUN = gettext_noop("Engine %(engine)s cannot run %(batch)s: %(problem)s.")
# Why each batch got its engine (the run page shows it).
CHOSEN_FOR_RUN = gettext_noop("%(engine)s: chosen for this run")
PINNED = gettext_noop("%(engine)s: pinned by its datasource")
AUTO_PUSHDOWN = gettext_noop("auto: a table in one database, computed by the database itself")
AUTO_NOT_PUSHDOWN = gettext_noop("auto: a database table that pushdown cannot check (%(problem)s)")
AUTO_NO_PUSHDOWN = gettext_noop("auto: a database table (no pushdown engine is installed)")
AUTO_SPARK = gettext_noop("auto: Spark reads every kind of source")
AUTO_PROBLEM = gettext_noop("auto: %(problem)s")
AUTO_UNLISTED = gettext_noop("auto: the files under %(path)s could not be listed")
AUTO_TOO_BIG = gettext_noop("auto: %(size)s of files, above the DuckDB limit of %(limit)s")
AUTO_DUCKDB = gettext_noop("auto: local %(format)s files, %(size)s (DuckDB limit %(limit)s)")
A_BATCH = fragment(gettext_noop("batch %(name)s"), "batch")

logger = logging.getLogger(__name__)

AUTO = "auto"
CHOICES = (AUTO, *ENGINES)
DEFAULT_DUCKDB_MAX_BYTES = 2 * 1024**3
PUSHDOWN, DUCKDB, SPARK = "pushdown", "duckdb", "spark"


@dataclass(frozen=True)
class Choice:
    engine: str
    reason: str


class EngineRefused(ValueError):
    def __init__(self, batch: str, message: str):
        super().__init__(message)
        self.batch = batch


def duckdb_max_bytes_from_env() -> int:
    text = os.environ.get("DQ_DUCKDB_MAX_BYTES", "")
    return int(text) if text.strip() else DEFAULT_DUCKDB_MAX_BYTES


def choose_engines(
    spec: JobSpec,
    requested: str = AUTO,
    pins: Mapping[str, str] | None = None,
    origins: Mapping[str, Hashable] | None = None,
    duckdb_max_bytes: int | None = None,
    describe: Mapping[str, str] | None = None,
) -> dict[str, Choice]:
    """{batch name: Choice} for every batch of the spec.

    - `requested`: the run's engine (AUTO or an engine key), which wins over `pins`;
    - `pins`: {batch: engine} pinned by the batch's datasource (AUTO or missing: not pinned);
    - `origins`: {batch: datasource identity}; batches of one origin are one datasource (default:
      the batch's source name);
    - `describe`: {batch: how to name it in messages} (default: "batch <name>").
    Raises EngineRefused when a pinned or requested engine cannot run a batch."""
    if requested not in CHOICES:
        raise EngineRefused("", say(UNKNOWN_ENGINE, engine=repr(requested), names=", ".join(CHOICES)))
    limit = duckdb_max_bytes_from_env() if duckdb_max_bytes is None else duckdb_max_bytes
    engines = _Engines()
    named = {name: (describe or {}).get(name) or say(A_BATCH, name=name) for name in spec.batches}
    choices: dict[str, Choice] = {}
    for name in spec.batches:
        pin = requested if requested != AUTO else (pins or {}).get(name)
        if pin and pin != AUTO:
            problem = engines.problem(pin, spec, name)
            if problem:
                raise EngineRefused(name, say(CANNOT_RUN, engine=repr(pin), batch=named[name], problem=problem))
            why = say(CHOSEN_FOR_RUN, engine=pin) if requested != AUTO else say(PINNED, engine=pin)
            choices[name] = Choice(pin, why)
        else:
            choices[name] = _auto(engines, spec, name, limit)
    _across_datasources(spec, choices, requested, pins or {}, origins or {})
    return choices


def _auto(engines: _Engines, spec: JobSpec, name: str, limit: int) -> Choice:
    source = spec.sources[spec.batches[name].source]
    if isinstance(source, JdbcSource):
        if PUSHDOWN in ENGINES:
            problem = engines.problem(PUSHDOWN, spec, name)
            if problem is None:
                return Choice(PUSHDOWN, say(AUTO_PUSHDOWN))
            return Choice(SPARK, say(AUTO_NOT_PUSHDOWN, problem=problem))
        return Choice(SPARK, say(AUTO_NO_PUSHDOWN))
    if not isinstance(source, FileSource) or DUCKDB not in ENGINES:
        return Choice(SPARK, say(AUTO_SPARK))
    problem = engines.problem(DUCKDB, spec, name, reading_only=True)
    if problem:
        return Choice(SPARK, say(AUTO_PROBLEM, problem=problem))
    from dq_engine.duckdb.readers import size_in_bytes

    size = size_in_bytes(source.path)
    if size is None:
        return Choice(SPARK, say(AUTO_UNLISTED, path=source.path))
    if size > limit:
        return Choice(SPARK, say(AUTO_TOO_BIG, size=_size(size), limit=_size(limit)))
    problem = engines.problem(DUCKDB, spec, name)
    if problem:
        return Choice(SPARK, say(AUTO_PROBLEM, problem=problem))
    return Choice(DUCKDB, say(AUTO_DUCKDB, format=source.format, size=_size(size), limit=_size(limit)))


def _across_datasources(
    spec: JobSpec,
    choices: dict[str, Choice],
    requested: str,
    pins: Mapping[str, str],
    origins: Mapping[str, Hashable],
) -> None:
    """Checks reading two batches of different datasources: Spark for both (unless both are
    DuckDB's); only batches auto chose are moved."""

    def origin(batch: str) -> Hashable:
        return origins.get(batch, spec.batches[batch].source)

    def chosen_by_auto(batch: str) -> bool:
        return requested == AUTO and (pins.get(batch) or AUTO) == AUTO

    for check in spec.checks:
        target = check.target_batch
        if target is None or target == check.batch or origin(target) == origin(check.batch):
            continue
        if choices[check.batch].engine == DUCKDB and choices[target].engine == DUCKDB:
            continue  # DuckDB reads both local file sources
        for batch in (check.batch, target):
            if chosen_by_auto(batch) and choices[batch].engine != SPARK:
                choices[batch] = Choice(SPARK, f"auto: check {check.name!r} reads two datasources; Spark reads both")


class _Engines:
    """The registered engines, built once without resources (no Spark is started), and what
    each says it cannot do for a batch."""

    def __init__(self):
        self._made: dict[str, object] = {}

    def engine(self, key: str) -> object:
        if key not in self._made:
            self._made[key] = make_engine(key)
        return self._made[key]

    def problem(self, key: str, spec: JobSpec, name: str, reading_only: bool = False) -> str | None:
        if key not in ENGINES:
            return f"no engine {key!r} is installed (the engines are {', '.join(ENGINES)})"
        engine = self.engine(key)
        batch = spec.batches[name]
        reason = engine.reason_cannot_read(spec.sources[batch.source])
        if reason or reading_only:
            return _clause(reason)
        if hasattr(engine, "reason_cannot_filter"):
            reason = engine.reason_cannot_filter(batch)
            if reason:
                return _clause(reason)
        if hasattr(engine, "reason_cannot_check"):
            for check in spec.checks:
                if name in (check.batch, check.target_batch):
                    try:
                        reason = engine.reason_cannot_check(check)
                    except Exception:  # noqa: BLE001 - a fault in the engine's answer: not its check
                        logger.exception("Engine %s could not say whether it runs check %s", key, check.name)
                        reason = f"{key} could not tell whether it runs check {check.name!r}"
                    if reason:
                        return _clause(reason)
        return None


def _clause(reason: str | None) -> str | None:
    """A reason as a clause inside a sentence (no final full stop)."""
    return reason.rstrip(". ") if reason else None


def _size(size: int) -> str:
    for unit, scale in (("GB", 1024**3), ("MB", 1024**2), ("kB", 1024)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"
