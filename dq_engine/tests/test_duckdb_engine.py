"""The DuckDB engine's own behaviour: failures stay with their check, error rows keep the limit and
the exact count, a cancelled run stops its query, and what it cannot read is said per batch.
(Its answers are Spark's: test_engine_equivalence.py.)"""

from __future__ import annotations

import json
import threading
import time

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import dq_engine


@pytest.fixture
def orders(tmp_path) -> dict:
    pq.write_table(
        pa.table({"id": pa.array([1, 2, 2, 3, 3, 3], pa.int8()), "email": ["a@b.co", None, "", "x", "y", "z"]}),
        tmp_path / "orders.parquet",
    )
    return {"kind": "file", "format": "parquet", "path": str(tmp_path / "orders.parquet")}


def _run(source: dict, checks: list[dict], tmp_path=None, limit: int = 100, **kwargs) -> dict:
    spec = {
        "run_id": "duckdb-test",
        "sources": {"s": source},
        "batches": {"b": {"source": "s", "engine": "duckdb"}},
        "checks": [{"batch": "b", "name": c["id"], **c} for c in checks],
    }
    if tmp_path is not None:
        spec["error_rows"] = {"root": str(tmp_path / "errors"), "limit": limit}
    return dq_engine.run(spec, spark=lambda: pytest.fail("Spark must not start"), **kwargs)


def test_one_broken_check_errors_alone_and_the_others_share_one_aggregate_query(orders):
    document = _run(
        orders,
        [
            {"id": "nulls", "metric": {"kind": "conditional_count", "predicate": "null_or_empty", "column": "email"}},
            {"id": "typo", "metric": {"kind": "conditional_count", "predicate": "null_or_empty", "column": "emial"}},
            {"id": "avg_text", "metric": {"kind": "aggregate", "column": "email", "function": "avg"}},
            {"id": "text_sql", "metric": {"kind": "custom_sql", "sql": "SELECT max(email) FROM ${src_table}"}},
            # id * 100 overflows int8 in DuckDB at run time: the fused query fails,
            # and each check is run alone to find the one that does.
            {
                "id": "overflow",
                "metric": {"kind": "custom_sql", "sql": "SELECT sum(CAST(id * 100 AS TINYINT)) FROM ${src_table}"},
            },
            {"id": "count", "metric": {"kind": "row_count"}},
        ],
    )
    checks = document["checks"]

    assert (checks["nulls"]["status"], checks["nulls"]["statistic"]) == ("ok", 2.0)
    assert (checks["count"]["status"], checks["count"]["statistic"]) == ("ok", 6.0)
    assert checks["typo"]["message"] == "Unknown column 'emial'; the batch has the columns id, email."
    assert "needs a numeric column" in checks["avg_text"]["message"]
    assert "must return a number" in checks["text_sql"]["message"]
    assert checks["overflow"]["status"] == "error" and "Overflow in multiplication" in checks["overflow"]["message"]
    assert document["plan"]["batches"]["b"]["isolation_passes"] >= 1


def test_error_rows_keep_the_limit_and_the_count_stays_exact(orders, tmp_path):
    document = _run(
        orders,
        [{"id": "dups", "metric": {"kind": "duplicate_values", "column": "id"}, "error_rows": True}],
        tmp_path,
        limit=2,
    )
    outcome = document["checks"]["dups"]
    rows = ds.dataset(outcome["error_rows_path"], format="parquet").to_table()

    assert (outcome["statistic"], outcome["error_row_count"], outcome["error_rows_written"]) == (2.0, 5, 2)
    assert rows.column_names == ["id", "email", "_dq_check"] and rows.num_rows == 2
    assert set(rows.column("_dq_check").to_pylist()) == {"dups"}


def test_a_cancelled_run_interrupts_its_query_and_says_so(orders):
    tables = ", ".join(f"${{src_table}} t{i}" for i in range(14))  # 6^14 rows: hours, unless interrupted
    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    started = time.monotonic()

    document = _run(
        orders,
        [{"id": "endless", "metric": {"kind": "custom_sql", "sql": f"SELECT count(*) FROM {tables}"}}],
        cancel=cancel,
    )

    assert time.monotonic() - started < 20
    assert document["checks"]["endless"]["status"] == "error"
    assert "cancelled" in document["checks"]["endless"]["message"]


def test_a_source_duckdb_cannot_read_is_an_error_for_its_checks_with_the_reason(tmp_path):
    orc = {"kind": "file", "format": "orc", "path": str(tmp_path)}

    document = _run(orc, [{"id": "count", "metric": {"kind": "row_count"}}])

    assert document["batches"]["b"] == {
        "rows": None,
        "error": "DuckDB does not read ORC files; Spark does.",
        "engine": "duckdb",
    }
    assert document["checks"]["count"]["message"] == "DuckDB does not read ORC files; Spark does."


def test_json_lines_and_csv_files_are_read(tmp_path):
    (tmp_path / "o.json").write_text("\n".join(json.dumps(r) for r in [{"e": "a"}, {"e": None}, {"e": ""}]) + "\n")
    (tmp_path / "o.csv").write_text("e;n\na;1\n;2\nb;3\n")
    nulls = [{"id": "nulls", "metric": {"kind": "conditional_count", "predicate": "null_or_empty", "column": "e"}}]

    from_json = _run({"kind": "file", "format": "json", "path": str(tmp_path / "o.json")}, nulls)
    from_csv = _run(
        {"kind": "file", "format": "csv", "path": str(tmp_path / "o.csv"), "options": {"delimiter": ";"}}, nulls
    )

    assert from_json["checks"]["nulls"]["statistic"] == 2.0
    assert from_csv["checks"]["nulls"]["statistic"] == 1.0


def test_a_batch_limited_to_its_first_rows_is_drawn_once_for_every_pass(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    # Eight files of 5,000 rows: a multi-threaded scan may yield any of them first; every query
    # of the batch (the aggregate pass, the group-by, a query as written) must see the same rows.
    (tmp_path / "t").mkdir()
    for part in range(8):
        ids = list(range(part * 5000, (part + 1) * 5000))
        pq.write_table(pa.table({"id": ids}), tmp_path / "t" / f"p{part}.parquet", row_group_size=500)
    spec = {
        "run_id": "limited",
        "sources": {"s": {"kind": "file", "format": "parquet", "path": str(tmp_path / "t")}},
        "batches": {"b": {"source": "s", "engine": "duckdb", "limit": 1000}},
        "checks": [
            {"id": "rows", "name": "rows", "batch": "b", "metric": {"kind": "row_count"}},
            {
                "id": "sum",
                "name": "sum",
                "batch": "b",
                "metric": {"kind": "aggregate", "column": "id", "function": "sum"},
            },
            {"id": "dups", "name": "dups", "batch": "b", "metric": {"kind": "duplicate_values", "column": "id"}},
            {  # DISTINCT: not folded into the aggregate pass, its own query
                "id": "distinct",
                "name": "distinct",
                "batch": "b",
                "metric": {"kind": "custom_sql", "sql": "SELECT SUM(DISTINCT id) FROM ${src_table}"},
            },
        ],
    }

    for _ in range(5):
        checks = dq_engine.run(spec, spark=lambda: pytest.fail("Spark must not start"))["checks"]

        assert checks["rows"]["statistic"] == 1000.0 and checks["dups"]["statistic"] == 0.0
        assert checks["distinct"]["statistic"] == checks["sum"]["statistic"]  # the same 1,000 ids


def test_a_query_duckdb_would_answer_otherwise_ends_error_saying_why_in_words(orders):
    document = _run(
        orders,
        [
            {"id": "spread", "metric": {"kind": "custom_sql", "sql": "SELECT stddev_samp(id) FROM ${src_table}"}},
            {"id": "count", "metric": {"kind": "row_count"}},
        ],
    )
    spread = document["checks"]["spread"]

    assert spread["status"] == "error"
    assert spread["message"].startswith("The query uses") and "as Spark does" in spread["message"], spread
    assert document["checks"]["count"]["statistic"] == 6.0
