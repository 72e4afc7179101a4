"""The result document: one plain, JSON-serialisable dict per run (executions/ records it).

{
  "run_id": 12,
  "spark_application_id": "local-1764499200000",
  "started_at": "2026-11-30T10:00:00.123Z", "finished_at": "2026-11-30T10:00:04.456Z",   (UTC)
  "batches": {"b1": {"rows": 1000, "error": null, "engine": "spark"},
              "b2": {"rows": null, "error": "Batch b2 could not be read (...): Connection refused", "engine": "spark"}},
  "checks": {
    "41": {"status": "ok", "statistic": 3.0, "comparison": null, "message": null,
           "error_row_count": 3, "error_rows_written": 3, "error_rows_path": "/var/dq/error-data/run-12/41",
           "batch": "b1", "target_batch": null},
    "42": {"status": "error", "statistic": null, "comparison": null,
           "message": "Unknown column 'emial'; the batch has the columns id, email.", ...}
  },
  "plan": {"batches": {"b1": {"aggregate_passes": 1, "isolation_passes": 0, "group_bys": 1, "joins": 0,
                              "sql_queries": 1, "error_row_writes": 1, "cached": true, "fused_checks": 5}},
           "spark_jobs": 9, "job_group": "dq-engine-12-1a2b3c4d"}
}

Every engine returns this shape; `dq_engine.run` merges the documents of a spec whose batches
went to several engines (`merge_documents`): `batches[...]["engine"]` says which engine read each
batch, `spark_application_id` is null when no batch needed Spark, and `plan` holds each engine's
own counters (`spark_jobs` and `job_group` are Spark's).

- `statistic`: float, or null when the check errored or the value is NULL (an aggregate over no
  values, a custom query returning NULL: status "ok" with a message saying so).
- `comparison`: value_comparison's second query; null for every other metric.
- `error_row_count`: exact number of offending rows (conditional counts, uniqueness: rows carrying
  a duplicated value, accuracy: unmatched source rows); null for metrics without rows.
- `findings`: what the schema alone showed (schema_contract: missing columns, wrong types, extras).
- `output_path`: a row_rules check with an `output` folder: where the whole batch was written with
  its `_dq` and `_dq_failed_checks` (absent when not asked or not written; the message says why).
- `error_rows_written` / `error_rows_path`: set when the check asked for error rows and the spec
  has an error-row sink (at most `limit` rows are written; 0 and null path when there were none).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from dq_engine.spec import CheckSpec, JobSpec


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_outcome(check: CheckSpec) -> dict[str, Any]:
    return {
        "status": "error",
        "statistic": None,
        "comparison": None,
        "message": None,
        "error_row_count": None,
        "error_rows_written": None,
        "error_rows_path": None,
        "batch": check.batch,
        "target_batch": check.target_batch,
    }


def new_stats() -> dict[str, Any]:
    """One batch's counters in the document's `plan`, the same names on every engine."""
    return {
        "aggregate_passes": 0,
        "isolation_passes": 0,
        "group_bys": 0,
        "joins": 0,
        "sql_queries": 0,
        "error_row_writes": 0,
        "cached": False,
        "fused_checks": 0,
        "fused_sql_checks": 0,
    }


def run_document(
    job: JobSpec,
    engine: str,
    started_at: str,
    batches: tuple[dict[str, int | None], dict[str, str]],
    checks: dict[str, dict[str, Any]],
    plan: dict[str, Any],
    spark_application_id: str | None = None,
) -> dict[str, Any]:
    """An engine's document for the run of `job`: `batches` is (rows by batch, error by batch)."""
    rows, errors = batches
    return {
        "run_id": job.run_id,
        "spark_application_id": spark_application_id,
        "started_at": started_at,
        "finished_at": utc_now(),
        "batches": {
            name: {"rows": rows.get(name), "error": errors.get(name), "engine": engine} for name in job.batches
        },
        "checks": checks,
        "plan": plan,
    }


def number(value: Any) -> tuple[float | None, str | None]:
    """A statistic as a float (Decimal, int, float), or None with a message saying why not."""
    if value is None:
        return None, "The value is NULL (no non-NULL values to measure)."
    if isinstance(value, bool):
        return None, f"The value is a boolean ({value}), not a number."
    if isinstance(value, int | float | Decimal):
        result = float(value)
        if not math.isfinite(result):
            return None, f"The value is {value}, which is not a finite number."
        return result, None
    if isinstance(value, str):
        try:
            return number(Decimal(value.strip()))
        except ArithmeticError:
            pass
    return None, f"The value {str(value)[:80]!r} is not a number."


def refusal_document(part: JobSpec, engine: str, refused: dict[str, str]) -> dict[str, Any]:
    """The document of batches an engine cannot read: each batch's reason, and an error for every
    check reading one of them."""
    now = utc_now()
    outcomes = {}
    for check in part.checks:
        reason = refused.get(check.batch) or (check.target_batch and refused.get(check.target_batch))
        if reason:
            outcomes[check.id] = {**new_outcome(check), "message": reason}
    return {
        "run_id": part.run_id,
        "spark_application_id": None,
        "started_at": now,
        "finished_at": now,
        "batches": {name: {"rows": None, "error": reason, "engine": engine} for name, reason in refused.items()},
        "checks": outcomes,
        "plan": {"batches": {}},
    }


def merge_documents(spec: JobSpec, parts: list[tuple[set[str], dict[str, Any]]]) -> dict[str, Any]:
    """One document from the engines' documents: `parts` pairs each document with the batches its
    engine owns (it reports those; a batch it only read for a cross-engine check is reported by
    its own engine). Checks come from the engine that ran them."""
    merged: dict[str, Any] = {
        "run_id": spec.run_id,
        "spark_application_id": None,
        "started_at": min(document["started_at"] for _, document in parts),
        "finished_at": max(document["finished_at"] for _, document in parts),
        "batches": {},
        "checks": {},
        "plan": {"batches": {}},
    }
    for owned, document in parts:
        merged["spark_application_id"] = merged["spark_application_id"] or document.get("spark_application_id")
        merged["checks"].update(document["checks"])
        for name in owned:
            merged["batches"][name] = document["batches"][name]
            if name in document["plan"].get("batches", {}):
                merged["plan"]["batches"][name] = document["plan"]["batches"][name]
        for key, value in document["plan"].items():
            if key != "batches":
                merged["plan"].setdefault(key, value)
    merged["batches"] = {name: merged["batches"][name] for name in spec.batches if name in merged["batches"]}
    merged["checks"] = {check.id: merged["checks"][check.id] for check in spec.checks if check.id in merged["checks"]}
    return merged
