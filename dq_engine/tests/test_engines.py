"""The engine interface: batches go to their engine, the documents merge into one, a cancelled run
stops, and an unknown engine is refused loudly."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from dq_engine.dispatch import split_by_engine
from dq_engine.engines import ENGINES, UnknownEngine, engine_class
from dq_engine.result import merge_documents, refusal_document
from dq_engine.spec import JobSpec, SpecError
from dq_engine.tests.conftest import check, make_spec

ROOT = Path(__file__).resolve().parents[2]
FILES = {"kind": "file", "format": "parquet", "path": "/data/x"}


def _spec_with_engines(engines: dict[str, str], checks: list[dict]) -> JobSpec:
    """A spec whose batches a, b, c name the given engines (built directly: only "spark" is
    registered this round, and the split does not depend on which engines exist)."""
    parsed = JobSpec.from_dict(
        {
            "run_id": 1,
            "sources": {name: FILES for name in engines},
            "batches": {name: {"source": name} for name in engines},
            "checks": checks,
        }
    )
    return replace(parsed, batches={name: replace(b, engine=engines[name]) for name, b in parsed.batches.items()})


def _on(batch: str, check_id: str, kind: str, target: str | None = None, **fields) -> dict:
    return {**check(check_id, kind, target, **fields), "batch": batch}


def test_each_engine_gets_its_batches_and_a_check_across_engines_runs_on_spark():
    mappings = [{"source": "x", "operator": "=", "target": "y"}]
    spec = _spec_with_engines(
        {"a": "duckdb", "b": "duckdb", "c": "spark"},
        [
            _on("a", "a_nulls", "null_or_empty", column="x"),
            _on("a", "a_to_b", "unmatched_rows", target="b", mappings=mappings),
            _on("a", "a_to_c", "unmatched_rows", target="c", mappings=mappings),
            _on("c", "c_count", "row_count"),
        ],
    )

    parts = split_by_engine(spec)

    assert set(parts) == {"duckdb", "spark"}
    assert [c.id for c in parts["duckdb"].checks] == ["a_nulls", "a_to_b"]
    assert set(parts["duckdb"].batches) == {"a", "b"} and set(parts["duckdb"].sources) == {"a", "b"}
    assert [c.id for c in parts["spark"].checks] == ["a_to_c", "c_count"]
    assert set(parts["spark"].batches) == {"a", "c"}  # Spark reads a too, for the cross-engine check
    assert parts["spark"].batches["a"].engine == "duckdb"  # ... but a stays duckdb's to report


def test_the_merged_document_reports_each_batch_from_its_own_engine_and_every_check():
    spec = _spec_with_engines(
        {"a": "duckdb", "c": "spark"},
        [_on("a", "a_nulls", "null_or_empty", column="x"), _on("c", "c_count", "row_count")],
    )
    duck = {
        "run_id": 1,
        "spark_application_id": None,
        "started_at": "2026-11-30T10:00:01.000Z",
        "finished_at": "2026-11-30T10:00:02.000Z",
        "batches": {"a": {"rows": 5, "error": None, "engine": "duckdb"}},
        "checks": {"a_nulls": {"status": "ok", "statistic": 1.0}},
        "plan": {"batches": {"a": {"queries": 1}}},
    }
    spark = {
        "run_id": 1,
        "spark_application_id": "local-1",
        "started_at": "2026-11-30T10:00:00.000Z",
        "finished_at": "2026-11-30T10:00:03.000Z",
        "batches": {
            "a": {"rows": 5, "error": None, "engine": "spark"},
            "c": {"rows": 9, "error": None, "engine": "spark"},
        },
        "checks": {"c_count": {"status": "ok", "statistic": 9.0}},
        "plan": {"batches": {"a": {"aggregate_passes": 1}, "c": {"aggregate_passes": 1}}, "spark_jobs": 4},
    }

    merged = merge_documents(spec, [({"a"}, duck), ({"c"}, spark)])

    assert merged["batches"] == {
        "a": {"rows": 5, "error": None, "engine": "duckdb"},
        "c": {"rows": 9, "error": None, "engine": "spark"},
    }
    assert list(merged["checks"]) == ["a_nulls", "c_count"]
    assert merged["plan"] == {"batches": {"a": {"queries": 1}, "c": {"aggregate_passes": 1}}, "spark_jobs": 4}
    assert (merged["started_at"], merged["finished_at"]) == ("2026-11-30T10:00:00.000Z", "2026-11-30T10:00:03.000Z")
    assert merged["spark_application_id"] == "local-1"


def test_a_batch_its_engine_cannot_read_is_an_error_for_every_check_reading_it():
    mappings = [{"source": "x", "operator": "=", "target": "y"}]
    spec = _spec_with_engines(
        {"a": "duckdb", "b": "duckdb"},
        [
            _on("a", "a_nulls", "null_or_empty", column="x"),
            _on("b", "b_to_a", "unmatched_rows", target="a", mappings=mappings),
            _on("b", "b_count", "row_count"),
        ],
    )

    document = refusal_document(spec, "duckdb", {"a": "DuckDB reads files only; a is a JDBC table."})

    assert document["batches"] == {
        "a": {"rows": None, "error": "DuckDB reads files only; a is a JDBC table.", "engine": "duckdb"}
    }
    assert set(document["checks"]) == {"a_nulls", "b_to_a"}  # b_count does not read a
    assert {(o["status"], o["message"]) for o in document["checks"].values()} == {
        ("error", "DuckDB reads files only; a is a JDBC table.")
    }


def test_a_batch_naming_an_unknown_engine_is_a_malformed_spec():
    spec = {"run_id": 1, "sources": {"s": FILES}, "batches": {"b": {"source": "s", "engine": "oracle"}}, "checks": []}

    with pytest.raises(
        SpecError, match="batches.b.engine must be auto or one of spark, pushdown, duckdb; got 'oracle'"
    ):
        JobSpec.from_dict(spec)
    with pytest.raises(UnknownEngine, match="Unknown engine 'oracle'; the engines are: spark, pushdown, duckdb"):
        engine_class("oracle")


def test_the_registry_imports_an_engine_only_when_it_is_asked_for():
    code = (
        "import sys, dq_engine, dq_engine.engines, dq_engine.dispatch, dq_engine.vocabulary; "
        "print('pyspark' in sys.modules); "
        "dq_engine.engines.engine_class('spark'); print('pyspark' in sys.modules); "
        "dq_engine.engines.engine_class('pushdown'); print('pyspark' in sys.modules, 'psycopg' in sys.modules); "
        "dq_engine.engines.make_engine('duckdb'); print('duckdb' in sys.modules, 'pyspark' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)

    assert result.returncode == 0, result.stderr
    # The classes are loaded (and DuckDB's built, as auto selection does); neither Spark, a database
    # driver nor DuckDB is.
    assert result.stdout.split() == ["False"] * 6
    assert set(ENGINES) == {"spark", "pushdown", "duckdb"}


@pytest.mark.spark
def test_a_spark_factory_is_called_only_when_a_batch_needs_spark(spark, parquet_sources):
    import dq_engine

    calls = []

    def factory():
        calls.append(1)
        return spark

    document = dq_engine.run(make_spec(parquet_sources, [check("count", "row_count")]), spark=factory)

    assert calls == [1] and document["checks"]["count"]["statistic"] == 7.0
    assert document["batches"]["b"]["engine"] == "spark"


@pytest.mark.spark
def test_a_cancelled_run_stops_its_spark_jobs_and_unfinished_checks_end_cancelled(spark, parquet_sources):
    import dq_engine

    # 7 rows to the 12th power: a count Spark needs hours for, unless it is cancelled.
    tables = ", ".join(f"${{src_table}} t{i}" for i in range(12))
    checks = [
        check("nulls", "null_or_empty", column="customer_email"),
        check("endless", "custom_sql", sql=f"SELECT count(*) FROM {tables}"),
    ]
    dq_engine.run(make_spec(parquet_sources, checks[:1]), spark=spark)  # warm: the null count takes < 1 s
    cancel = threading.Event()
    threading.Timer(4.0, cancel.set).start()
    started = time.monotonic()

    document = dq_engine.run(make_spec(parquet_sources, checks), spark=spark, cancel=cancel)

    assert time.monotonic() - started < 30
    assert (document["checks"]["nulls"]["status"], document["checks"]["nulls"]["statistic"]) == ("ok", 2.0)
    endless = document["checks"]["endless"]
    assert endless["status"] == "error" and "cancelled" in endless["message"]
    tracker = spark.sparkContext.statusTracker()
    deadline = time.monotonic() + 10  # a killed task takes a moment to report
    while _running_jobs(tracker, document["plan"]["job_group"]) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _running_jobs(tracker, document["plan"]["job_group"]) == []


def _running_jobs(tracker, group: str) -> list[int]:
    return [job for job in tracker.getJobIdsForGroup(group) if tracker.getJobInfo(job).status == "RUNNING"]


@pytest.mark.spark
def test_a_run_cancelled_before_it_starts_reads_nothing_and_says_so(spark, parquet_sources):
    import dq_engine

    cancel = threading.Event()
    cancel.set()
    checks = [check("nulls", "null_or_empty", column="customer_email"), check("count", "row_count")]

    document = dq_engine.run(make_spec(parquet_sources, checks), spark=spark, cancel=cancel)

    assert {o["status"] for o in document["checks"].values()} == {"error"}
    assert all("cancelled" in o["message"] for o in document["checks"].values())
    assert document["plan"]["spark_jobs"] == 0
