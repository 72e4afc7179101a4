"""Error rows: the offending rows of each check, as Parquet that pyarrow (the web app) reads back."""

from __future__ import annotations

import pytest

from dq_engine.tests.conftest import NOTE, ORDER_COLUMNS, check, make_spec

pytestmark = pytest.mark.spark


def _read(path: str):
    import pyarrow.dataset as ds

    return ds.dataset(path, format="parquet", ignore_prefixes=[".", "_"]).to_table()


def test_it_writes_at_most_limit_offending_rows_per_check_and_reports_the_exact_count(spark, parquet_sources, tmp_path):
    import dq_engine

    mappings = [{"source": "customer_email", "operator": "=", "target": "email"}]
    checks = [
        check("nulls", "null_or_empty", error_rows=True, column="customer_email"),  # rows 2, 3
        check("emails", "regexp_mismatch", error_rows=True, column="customer_email", pattern=r"\.com$"),  # 3, 4, 7
        check(
            "fresh",
            "time_between",
            error_rows=True,
            column="created_at",
            begin="2026-11-01 00:00:00",
            end="2026-11-03 12:00:00",
            format=None,
        ),  # rows inside the window: 1, 2, 3
        check("dups", "duplicate_values", error_rows=True, column="customer_email"),  # rows 1, 5, 4, 7
        check("unmatched", "unmatched_rows", target="t", error_rows=True, mappings=mappings),  # rows 2 (NULL), 3, 4, 7
        check("clean", "null_or_empty", error_rows=True, column="order_id"),  # none
        check("not_asked", "null_or_empty", column=NOTE),  # 2 rows, but no error rows wanted
    ]
    root = tmp_path / "error-data" / "run-7"
    document = dq_engine.run(
        make_spec(parquet_sources, checks, error_rows={"root": str(root), "limit": 2}), spark=spark
    )
    outcomes = document["checks"]

    expected = {
        "nulls": (2, {2, 3}),
        "emails": (3, {3, 4, 7}),
        "fresh": (3, {1, 2, 3}),
        "dups": (4, {1, 4, 5, 7}),
        "unmatched": (4, {2, 3, 4, 7}),
    }
    for check_id, (count, offending_ids) in expected.items():
        outcome = outcomes[check_id]
        assert outcome["error_row_count"] == count, check_id  # exact, not capped
        assert outcome["error_rows_written"] == 2 and outcome["error_rows_path"] == str(root / check_id)
        table = _read(outcome["error_rows_path"])
        assert table.column_names == [*ORDER_COLUMNS, "_dq_check"]
        rows = table.to_pylist()
        assert len(rows) == 2 and {row["order_id"] for row in rows} <= offending_ids, check_id
        assert {row["_dq_check"] for row in rows} == {f"check {check_id}"}
    assert {row["order_id"] for row in _read(str(root / "nulls")).to_pylist()} == {2, 3}  # all of them fit
    assert (outcomes["clean"]["error_row_count"], outcomes["clean"]["error_rows_written"]) == (0, 0)
    assert outcomes["clean"]["error_rows_path"] is None and not (root / "clean").exists()
    assert outcomes["not_asked"]["error_row_count"] == 2 and outcomes["not_asked"]["error_rows_written"] is None
    assert document["plan"]["batches"]["b"]["error_row_writes"] == 5


def test_interval_columns_are_written_as_text_that_pyarrow_reads(spark, tmp_path):
    from dq_engine.spark.error_rows import write_error_rows

    rows = spark.sql(
        "SELECT 1 AS id, INTERVAL '3' DAY AS wait, named_struct('gap', INTERVAL '2' MONTH) AS nested, "
        "CAST(12.50 AS DECIMAL(10, 2)) AS amount, TIMESTAMP_NTZ'2026-11-30 10:00:00' AS seen"
    )
    write_error_rows(rows, str(tmp_path / "x"), "interval check", limit=10)
    table = _read(str(tmp_path / "x"))

    row = table.to_pylist()[0]
    assert table.column_names == ["id", "wait", "nested", "amount", "seen", "_dq_check"]
    assert isinstance(row["wait"], str) and "3" in row["wait"] and isinstance(row["nested"], str)
    assert str(row["amount"]) == "12.50" and row["seen"].year == 2026 and row["_dq_check"] == "interval check"
