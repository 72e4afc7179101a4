"""Error rows: the offending rows of each check, as Parquet that pyarrow (the web app) reads back."""

from __future__ import annotations

import pytest

from dq_engine.rowchecks import expand
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


# Every metric with error rows, on the planted rows of conftest.ORDERS (batch: rows 1..7), with the
# order ids it must select. A predicate or metric kind added to the vocabulary needs a case here.
EMAIL_PATTERN = r"^[\w.+-]+@[\w-]+\.[\w.]+$"  # the automaton answers it (dq_rlike)
ROW_LEVEL_CASES = [
    (check("null", "null_or_empty", error_rows=True, column="customer_email"), {2, 3}),
    (check("regexp", "regexp_mismatch", error_rows=True, column="customer_email", pattern=EMAIL_PATTERN), {3, 4, 7}),
    (check("regexp_rlike", "regexp_mismatch", error_rows=True, column=NOTE, pattern="é|ë"), {1, 5, 6, 7}),
    (check("enum", "not_in_list_or_null", error_rows=True, column="status", values=["paid", "void"]), {5, 6, 7}),
    (check("length", "length_compare", error_rows=True, column=NOTE, operator=">", length=5), {2, 6}),
    (
        check(
            "fresh",
            "time_between",
            error_rows=True,
            column="created_at",
            begin="2026-11-01 00:00:00",
            end="2026-11-03 12:00:00",
            format=None,
        ),
        {1, 2, 3},
    ),
    (check("range", "outside_range", error_rows=True, column="amount", min=0, max=100), {2, 4}),
    (
        check(
            "rules",
            "row_rules",
            error_rows=True,
            rules=expand("checks:\n  - amount >= 0\n  - status in (paid, void)\n"),
        ),
        {2, 5, 6},
    ),
    (check("dups", "duplicate_values", error_rows=True, column="customer_email"), {1, 4, 5, 7}),
    (
        check(
            "unmatched",
            "unmatched_rows",
            target="t",
            error_rows=True,
            mappings=[{"source": "customer_email", "operator": "=", "target": "email"}],
        ),
        {2, 3, 4, 7},
    ),
]
LIMIT = 3


def test_every_predicate_and_metric_with_error_rows_has_a_case_here():
    from dq_engine.vocabulary import METRIC_KINDS, PREDICATES

    specs = [spec_check["metric"] for spec_check, _ in ROW_LEVEL_CASES]
    assert {m["predicate"] for m in specs if m["kind"] == "conditional_count"} == set(PREDICATES)
    assert {m["kind"] for m in specs} == {key for key, kind in METRIC_KINDS.items() if kind.error_rows}


@pytest.fixture(params=["parquet", "postgresql", "mariadb"])
def any_sources(request):
    fixture = {"parquet": "parquet_sources", "postgresql": "pg_sources", "mariadb": "mariadb_sources"}
    return request.getfixturevalue(fixture[request.param])


def test_every_row_level_metric_stores_its_error_rows_up_to_the_limit_on_every_source_kind(
    spark, any_sources, tmp_path
):
    """On PostgreSQL and MariaDB (batches cached for the run), error rows were counted
    but none stored: Spark could not ship the regexp automaton to the cached scan's tasks."""
    import dq_engine
    from dq_engine.spark.jvm import FUNCTIONS_JAR, ensure_functions

    assert FUNCTIONS_JAR.is_file() and ensure_functions(spark), "build the JVM functions: scripts/build-jvm.sh"
    root = tmp_path / "error-data"
    spec = make_spec(any_sources, [c for c, _ in ROW_LEVEL_CASES], error_rows={"root": str(root), "limit": LIMIT})

    document = dq_engine.run(spec, spark=spark)

    problems = []
    for spec_check, offending in ROW_LEVEL_CASES:
        outcome = document["checks"][spec_check["id"]]
        stored = _read(outcome["error_rows_path"]).to_pylist() if outcome["error_rows_path"] else []
        ids = {row["order_id"] for row in stored}
        expected_stored = min(len(offending), LIMIT)
        if (
            outcome["status"] != "ok"
            or outcome["error_row_count"] != len(offending)
            or outcome["error_rows_written"] != expected_stored
            or len(stored) != expected_stored
            or not ids <= offending
            or (len(offending) <= LIMIT and ids != offending)
        ):
            problems.append(f"{spec_check['id']}: offending {sorted(offending)}, stored {sorted(ids)}, got {outcome}")
    assert not problems, "\n".join(problems)
    assert document["plan"]["batches"]["b"]["cached"] == (any_sources["orders"]["kind"] == "jdbc")
