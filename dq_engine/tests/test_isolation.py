"""Failure is a value: broken checks and unreadable batches report `error` while the rest report."""

from __future__ import annotations

import json
import time

import pytest

from dq_engine.tests.conftest import check, make_spec

pytestmark = pytest.mark.spark


def _assert_clean_message(message: str) -> None:
    """A message for a person: no JVM stack, no Python traceback."""
    assert message and "\tat " not in message and "JVM stacktrace" not in message and "Traceback" not in message


def test_one_bad_column_and_sql_errors_leave_the_other_checks_reporting(spark, parquet_sources):
    import dq_engine

    checks = [
        check("good_null", "null_or_empty", column="customer_email"),
        check("bad_column", "null_or_empty", column="no_such_column"),
        check("bad_type", "aggregate", column="status", function="avg"),
        check("bad_regex", "regexp_mismatch", column="status", pattern="pa(id"),
        check("good_range", "outside_range", column="amount", min=0, max=100),
        check("refused_sql", "custom_sql", sql="DELETE FROM ${src_table}"),
        check("analysis_sql", "custom_sql", sql="SELECT max(no_such_column) FROM ${src_table}"),
        check("runtime_sql", "custom_sql", sql="SELECT sum(CAST(status AS INT)) FROM ${src_table}"),
        check("good_sql", "custom_sql", sql="SELECT count(*) FROM ${src_table} WHERE status = 'paid'"),
        check("good_dup", "duplicate_values", column="customer_email"),
        check("bad_dup", "duplicate_values", column="nope"),
    ]
    document = dq_engine.run(make_spec(parquet_sources, checks), spark=spark)
    outcomes = document["checks"]

    assert {k: (v["status"], v["statistic"]) for k, v in outcomes.items() if k.startswith("good")} == {
        "good_null": ("ok", 2.0),
        "good_range": ("ok", 2.0),
        "good_sql": ("ok", 3.0),
        "good_dup": ("ok", 2.0),
    }
    bad = {k: v for k, v in outcomes.items() if not k.startswith("good")}
    assert {v["status"] for v in bad.values()} == {"error"}
    assert all(v["statistic"] is None for v in bad.values())
    for outcome in bad.values():
        _assert_clean_message(outcome["message"])
    assert "Unknown column 'no_such_column'" in outcomes["bad_column"]["message"]
    assert "avg needs a numeric column" in outcomes["bad_type"]["message"]
    assert "Not a valid regular expression" in outcomes["bad_regex"]["message"]
    assert "refused" in outcomes["refused_sql"]["message"]
    assert "UNRESOLVED_COLUMN" in outcomes["analysis_sql"]["message"]
    assert "CAST_INVALID_INPUT" in outcomes["runtime_sql"]["message"]
    # The checks that do not analyse were kept out of the fused pass; the two plain aggregate SQL
    # statistics joined it, and one of them fails only at run time, so the fused pass failed and
    # each of its 4 checks (plus the row count) was computed alone.
    stats = document["plan"]["batches"]["b"]
    assert (stats["fused_checks"], stats["fused_sql_checks"]) == (4, 2)
    assert (stats["aggregate_passes"], stats["isolation_passes"]) == (0, 5)
    # PySpark's error loggers, quieted during the run, still work for the caller afterwards
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException):
        spark.range(1).select("no_such_column")


def test_a_check_that_fails_only_at_run_time_is_isolated_from_the_fused_pass(spark, data_dir):
    import pyarrow as pa
    import pyarrow.parquet as pq

    import dq_engine

    path = data_dir / "overflow.parquet"
    pq.write_table(pa.table({"big": pa.array([2**63 - 1, 1, None], pa.int64()), "name": ["a", "", None]}), path)
    spec = {
        "run_id": "overflow",
        "sources": {"s": {"kind": "file", "format": "parquet", "path": str(path)}},
        "batches": {"b": {"source": "s"}},
        "checks": [
            check("sum_overflows", "aggregate", column="big", function="sum"),  # ANSI: overflow at run time
            check("max", "aggregate", column="big", function="max"),
            check("nulls", "null_or_empty", column="name"),
        ],
    }
    document = dq_engine.run(spec, spark=spark)

    assert document["checks"]["sum_overflows"]["status"] == "error"
    assert "ARITHMETIC_OVERFLOW" in document["checks"]["sum_overflows"]["message"]
    assert (document["checks"]["max"]["status"], document["checks"]["max"]["statistic"]) == ("ok", float(2**63 - 1))
    assert (document["checks"]["nulls"]["status"], document["checks"]["nulls"]["statistic"]) == ("ok", 2.0)
    assert document["batches"]["b"] == {"rows": 3, "error": None, "engine": "spark"}
    assert document["plan"]["batches"]["b"]["isolation_passes"] == 4  # row count + each of the 3 checks


def test_an_unreachable_database_makes_every_check_on_its_batch_an_error_within_seconds(
    spark, parquet_sources, closed_port
):
    import dq_engine

    password = "Unreachable-Pw-9x!"
    unreachable = {
        "kind": "jdbc",
        "url": f"jdbc:postgresql://127.0.0.1:{closed_port}/test",
        "driver": "org.postgresql.Driver",
        "table": "public.orders",
        "user": "reader",
        "password_secret": "DQ_SECRET_DOWN",
    }
    mappings = [{"source": "email", "operator": "=", "target": "customer_email"}]
    spec = make_spec(
        {"orders": unreachable, "customers": parquet_sources["customers"]},
        [
            check("null", "null_or_empty", column="customer_email"),
            check("dup", "duplicate_values", column="customer_email"),
            check("sql", "custom_sql", sql="SELECT count(*) FROM ${src_table}"),
            check("count", "row_count"),
            {**check("reverse_accuracy", "unmatched_rows", target="b", mappings=mappings), "batch": "t"},
            {**check("target_count", "row_count"), "batch": "t"},
        ],
    )
    started = time.monotonic()
    document = dq_engine.run(spec, {"DQ_SECRET_DOWN": password}, spark=spark)
    elapsed = time.monotonic() - started

    assert elapsed < 20
    assert document["batches"]["b"]["rows"] is None
    assert "Connection refused" in document["batches"]["b"]["error"]
    for check_id in ("null", "dup", "sql", "count"):
        outcome = document["checks"][check_id]
        assert outcome["status"] == "error" and outcome["message"] == document["batches"]["b"]["error"]
        _assert_clean_message(outcome["message"])
    assert document["checks"]["reverse_accuracy"]["status"] == "error"
    assert document["checks"]["reverse_accuracy"]["message"].startswith("Target batch: Batch b could not be read")
    assert document["checks"]["target_count"] == {
        **document["checks"]["target_count"],
        "status": "ok",
        "statistic": 3.0,
    }
    assert password not in json.dumps(document)


def test_a_missing_path_a_refused_filter_and_a_missing_secret_each_fail_only_their_batch(
    spark, parquet_sources, data_dir
):
    import dq_engine

    jdbc = {
        "kind": "jdbc",
        "url": "jdbc:postgresql://127.0.0.1:5432/test",
        "driver": "org.postgresql.Driver",
        "table": "public.t",
        "user": "u",
        "password_secret": "NOT_GIVEN",
    }
    spec = {
        "run_id": "batches",
        "sources": {
            "missing": {"kind": "file", "format": "parquet", "path": str(data_dir / "no-such-dataset")},
            "orders": parquet_sources["orders"],
            "secretless": jdbc,
        },
        "batches": {
            "gone": {"source": "missing"},
            "subquery": {"source": "orders", "filter": "order_id IN (SELECT 1)"},
            "typo": {"source": "orders", "filter": "order_idd > 1"},
            "nopw": {"source": "secretless"},
            "fine": {"source": "orders", "filter": "status = 'paid'"},
            "oversampled": {"source": "orders", "sample_fraction": 2},
            "sampled": {"source": "orders", "sample_fraction": 0.5},
        },
        "checks": [
            {**check(name, "row_count"), "batch": name}
            for name in ("gone", "subquery", "typo", "nopw", "oversampled", "sampled", "fine")
        ],
    }
    document = dq_engine.run(spec, {}, spark=spark)
    messages = {
        name: document["checks"][name]["message"] for name in ("gone", "subquery", "typo", "nopw", "oversampled")
    }

    assert "PATH_NOT_FOUND" in messages["gone"] and "could not be read" in messages["gone"]
    assert "filter of batch subquery was refused" in messages["subquery"] and "subquery" in messages["subquery"]
    assert "Unknown column in the filter: order_idd" in messages["typo"]
    assert "password secret NOT_GIVEN is not set" in messages["nopw"]
    assert "sample_fraction must be a number in (0, 1]" in messages["oversampled"]
    assert all(document["checks"][name]["status"] == "error" for name in messages)
    for message in messages.values():
        _assert_clean_message(message)
    assert (document["checks"]["fine"]["status"], document["checks"]["fine"]["statistic"]) == ("ok", 4.0)
    assert document["checks"]["sampled"]["status"] == "ok" and 0 <= document["checks"]["sampled"]["statistic"] <= 8


def test_a_query_must_return_one_number_and_null_is_reported_as_such(spark, parquet_sources):
    import dq_engine

    checks = [
        check("two_rows", "custom_sql", sql="SELECT order_id FROM ${src_table}"),
        check("text", "custom_sql", sql="SELECT max(status) FROM ${src_table}"),
        check("no_rows", "custom_sql", sql="SELECT order_id FROM ${src_table} WHERE order_id > 100"),
        check("null", "custom_sql", sql="SELECT max(amount) FROM ${src_table} WHERE amount > 1000"),
        check("decimal", "custom_sql", sql="SELECT sum(amount) FROM ${src_table} WHERE order_id <= 2"),
    ]
    outcomes = dq_engine.run(make_spec(parquet_sources, checks), spark=spark)["checks"]

    assert "more than one row" in outcomes["two_rows"]["message"]
    assert "must return a number" in outcomes["text"]["message"]
    assert "no rows" in outcomes["no_rows"]["message"]
    assert {outcomes[k]["status"] for k in ("two_rows", "text", "no_rows")} == {"error"}
    assert (outcomes["null"]["status"], outcomes["null"]["statistic"]) == ("ok", None)
    assert "NULL" in outcomes["null"]["message"]
    assert (outcomes["decimal"]["status"], outcomes["decimal"]["statistic"]) == ("ok", 7.5)
