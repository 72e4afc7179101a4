"""The job spec: what the engine is asked to compute, as typed objects parsed from JSON.

The platform (executions/) builds a spec per run; the engine never sees Django objects, rule
templates or SQL text with holes. Secrets are not in the spec: a JDBC source names the
environment variable (or secrets-mapping key) that holds its password, so a spec can be written
to disk for `spark-submit` without leaking anything.

Shape (JSON):
{
  "run_id": 12,
  "sources": {"s1": {"kind": "jdbc", "url": "jdbc:postgresql://127.0.0.1:5432/test",
                     "driver": "org.postgresql.Driver", "table": "public.orders", "user": "reader",
                     "password_secret": "DQ_SECRET_S1", "options": {}},
              "s2": {"kind": "file", "format": "parquet", "path": "/data/orders", "options": {}}},
  "batches": {"b1": {"source": "s1", "filter": "status = 'paid'", "sample_fraction": null}},
  "checks": [
    {"id": "41", "name": "emails present", "batch": "b1", "target_batch": null,
     "metric": {"kind": "conditional_count", "predicate": "null_or_empty", "column": "customer_email"},
     "error_rows": true}
  ],
  "error_rows": {"root": "/var/dq/error-data/run-12", "limit": 1000},
  "limits": {"statement_timeout_seconds": 900}
}

`limits.statement_timeout_seconds` bounds each statement an engine runs in a database (pushdown).

Metric kinds, predicates and the fields each needs: dq_engine/vocabulary (the one registry).
A batch may name the engine that reads it (`"engine": "spark"`, the default; dq_engine/engines.py),
or "auto" to let dq_engine/selection.py choose.

Result document (JSON): see `dq_engine.result`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dq_engine.engines import DEFAULT_ENGINE, ENGINES
from dq_engine.vocabulary import METRIC_KINDS, PREDICATES, metric_fields

FILE_FORMATS = ("parquet", "csv", "json", "orc")
# A batch whose engine is "auto" gets one from dq_engine/selection.py when the spec runs.
AUTO_ENGINE = "auto"


class SpecError(ValueError):
    """The spec is malformed; the message names the offending path."""


@dataclass(frozen=True)
class JdbcSource:
    url: str
    driver: str
    table: str
    user: str = ""
    password_secret: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    kind: str = "jdbc"


@dataclass(frozen=True)
class FileSource:
    format: str
    path: str
    options: dict[str, str] = field(default_factory=dict)
    kind: str = "file"


@dataclass(frozen=True)
class Batch:
    source: str
    filter: str | None = None
    sample_fraction: float | None = None
    engine: str = DEFAULT_ENGINE
    limit: int | None = None  # at most this many rows, the first read (the row checks' "try on the first 1,000 rows")
    # The engine that reads the batch instead when `engine` refuses one of its checks in the worker
    # (with the table's catalog, which the web process's choice could not see); None for a pin.
    fallback: str | None = None


@dataclass(frozen=True)
class Metric:
    kind: str
    fields: dict[str, Any]

    def __getitem__(self, name: str) -> Any:
        return self.fields[name]

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    @property
    def predicate(self) -> str | None:
        return self.fields.get("predicate")


@dataclass(frozen=True)
class CheckSpec:
    id: str
    name: str
    batch: str
    metric: Metric
    target_batch: str | None = None
    error_rows: bool = False


@dataclass(frozen=True)
class ErrorRowSink:
    root: str
    limit: int = 1000


@dataclass(frozen=True)
class Limits:
    statement_timeout_seconds: int | None = None


@dataclass(frozen=True)
class JobSpec:
    run_id: int | str
    sources: dict[str, JdbcSource | FileSource]
    batches: dict[str, Batch]
    checks: list[CheckSpec]
    error_rows: ErrorRowSink | None = None
    limits: Limits = field(default_factory=Limits)

    @classmethod
    def from_dict(cls, data: Any) -> JobSpec:
        return _parse_spec(data)

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "sources": {name: _source_dict(s) for name, s in self.sources.items()},
            "batches": {
                name: {
                    "source": b.source,
                    "filter": b.filter,
                    "sample_fraction": b.sample_fraction,
                    "engine": b.engine,
                    **({"limit": b.limit} if b.limit is not None else {}),
                }
                for name, b in self.batches.items()
            },
            "checks": [
                {
                    "id": c.id,
                    "name": c.name,
                    "batch": c.batch,
                    "target_batch": c.target_batch,
                    "metric": {"kind": c.metric.kind, **c.metric.fields},
                    "error_rows": c.error_rows,
                }
                for c in self.checks
            ],
            "error_rows": None
            if self.error_rows is None
            else {"root": self.error_rows.root, "limit": self.error_rows.limit},
            "limits": {"statement_timeout_seconds": self.limits.statement_timeout_seconds},
        }


def _source_dict(source: JdbcSource | FileSource) -> dict[str, Any]:
    if isinstance(source, JdbcSource):
        return {
            "kind": "jdbc",
            "url": source.url,
            "driver": source.driver,
            "table": source.table,
            "user": source.user,
            "password_secret": source.password_secret,
            "options": dict(source.options),
        }
    return {"kind": "file", "format": source.format, "path": source.path, "options": dict(source.options)}


# --- parsing ----------------------------------------------------------------------------------
def _require(mapping: Any, key: str, path: str, kind: type | tuple = str) -> Any:
    if not isinstance(mapping, dict) or key not in mapping:
        raise SpecError(f"{path}.{key} is missing.")
    value = mapping[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise SpecError(f"{path}.{key} has the wrong type ({type(value).__name__}).")
    return value


def _parse_source(name: str, data: Any) -> JdbcSource | FileSource:
    path = f"sources.{name}"
    kind = _require(data, "kind", path)
    options = {str(k): str(v) for k, v in (data.get("options") or {}).items()}
    if kind == "jdbc":
        return JdbcSource(
            url=_require(data, "url", path),
            driver=_require(data, "driver", path),
            table=_require(data, "table", path),
            user=data.get("user") or "",
            password_secret=data.get("password_secret"),
            options=options,
        )
    if kind == "file":
        fmt = _require(data, "format", path)
        if fmt not in FILE_FORMATS:
            raise SpecError(f"{path}.format must be one of {', '.join(FILE_FORMATS)}.")
        return FileSource(format=fmt, path=_require(data, "path", path), options=options)
    raise SpecError(f"{path}.kind must be jdbc or file.")


def _parse_metric(path: str, data: Any) -> Metric:
    kind = _require(data, "kind", path)
    fields = {k: v for k, v in data.items() if k != "kind"}
    if kind not in METRIC_KINDS:
        raise SpecError(f"{path}.kind {kind!r} is unknown; the kinds are {', '.join(METRIC_KINDS)}.")
    predicate = None
    if kind == "conditional_count":
        predicate = _require(data, "predicate", path)
        if predicate not in PREDICATES:
            raise SpecError(f"{path}.predicate must be one of {', '.join(PREDICATES)}.")
    required = [f.name for f in metric_fields(kind, predicate) if f.engine and f.required]
    missing = [name for name in required if name not in fields]
    if missing:
        raise SpecError(f"{path} lacks {', '.join(missing)}.")
    return Metric(kind=kind, fields=fields)


def _parse_spec(data: Any) -> JobSpec:
    if not isinstance(data, dict):
        raise SpecError("The spec must be a JSON object.")
    sources = {name: _parse_source(name, s) for name, s in _require(data, "sources", "spec", dict).items()}
    batches = {}
    for name, b in _require(data, "batches", "spec", dict).items():
        source = _require(b, "source", f"batches.{name}")
        if source not in sources:
            raise SpecError(f"batches.{name}.source names an unknown source {source!r}.")
        engine = b.get("engine") or DEFAULT_ENGINE
        if engine not in ENGINES and engine != AUTO_ENGINE:
            raise SpecError(
                f"batches.{name}.engine must be {AUTO_ENGINE} or one of {', '.join(ENGINES)}; got {engine!r}."
            )
        limit = b.get("limit")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise SpecError(f"batches.{name}.limit must be a whole number ≥ 1; got {limit!r}.")
        fallback = b.get("fallback")
        if fallback is not None and fallback not in ENGINES:
            raise SpecError(f"batches.{name}.fallback must be one of {', '.join(ENGINES)}; got {fallback!r}.")
        batches[name] = Batch(
            source=source,
            filter=b.get("filter") or None,
            sample_fraction=b.get("sample_fraction"),
            engine=engine,
            limit=limit,
            fallback=fallback,
        )
    checks = []
    for index, c in enumerate(_require(data, "checks", "spec", list)):
        path = f"checks[{index}]"
        batch = _require(c, "batch", path)
        target = c.get("target_batch")
        metric = _parse_metric(f"{path}.metric", _require(c, "metric", path, dict))
        for name in (batch, target):
            if name is not None and name not in batches:
                raise SpecError(f"{path} names an unknown batch {name!r}.")
        if METRIC_KINDS[metric.kind].needs_target and target is None:
            raise SpecError(f"{path}: {metric.kind} needs a target_batch.")
        checks.append(
            CheckSpec(
                id=str(_require(c, "id", path, (str, int))),
                name=str(c.get("name") or c["id"]),
                batch=batch,
                metric=metric,
                target_batch=target,
                error_rows=bool(c.get("error_rows")),
            )
        )
    sink = data.get("error_rows")
    error_rows = (
        None
        if not sink
        else ErrorRowSink(root=_require(sink, "root", "error_rows"), limit=int(sink.get("limit", 1000)))
    )
    limits = data.get("limits") or {}
    timeout = limits.get("statement_timeout_seconds") if isinstance(limits, dict) else None
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 1):
        raise SpecError("limits.statement_timeout_seconds must be a whole number of seconds, at least 1.")
    return JobSpec(
        run_id=data.get("run_id", ""),
        sources=sources,
        batches=batches,
        checks=checks,
        error_rows=error_rows,
        limits=Limits(statement_timeout_seconds=timeout),
    )
