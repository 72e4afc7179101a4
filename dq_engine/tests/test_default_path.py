"""What users meet on the default path (engine `auto`): a database run holding a check across two
batches of one datasource beside ordinary checks, and a batch whose filter keeps no rows.

Every expected value is worked out by hand from conftest.ORDERS / CUSTOMERS (rows 1..7 of
orders; the active customers a@example.com, c@example.com and NULL).
"""

from __future__ import annotations

import pytest

from dq_engine.rowchecks import expand
from dq_engine.tests.conftest import check as a_check
from dq_engine.tests.conftest import make_spec

EMAIL = "customer_email"
ACCURACY = [{"source": EMAIL, "operator": "=", "target": "email"}]


def _no_spark():
    pytest.fail("Spark must not start")


def _as_auto_chose(spec: dict, engine: str) -> dict:
    """The batches as a run started with `auto` hands them to the engine (executions/jobs.py):
    pushdown chosen without the table's catalog keeps Spark as its fallback."""
    for batch in spec["batches"].values():
        batch["engine"] = engine
        if engine == "pushdown":
            batch["fallback"] = "spark"
    return spec


ACROSS_BATCHES = [
    a_check("accuracy", "unmatched_rows", target="t", mappings=ACCURACY),
    a_check(
        "compare",
        "value_comparison",
        target="t",
        sql="SELECT count(*) FROM ${src_table}",
        comparison_sql="SELECT count(*) FROM ${target_table}",
    ),
    a_check("count", "row_count"),
    a_check("nulls", "null_or_empty", column=EMAIL),
    a_check("dups", "duplicate_values", column=EMAIL),
]


@pytest.mark.parametrize("store", ["pg_sources", "mariadb_sources"])
def test_a_database_run_with_a_check_across_two_batches_reports_every_check(request, store):
    import dq_engine

    spec = _as_auto_chose(make_spec(request.getfixturevalue(store), ACROSS_BATCHES), "pushdown")

    document = dq_engine.run(spec, spark=_no_spark)
    checks = document["checks"]

    got = {name: (outcome["status"], outcome["statistic"]) for name, outcome in checks.items()}
    assert got == {
        "accuracy": ("ok", 4.0),  # NULL (2), '' (3), b@example (4, 7): no active customer has them
        "compare": ("ok", 7.0),
        "count": ("ok", 7.0),
        "nulls": ("ok", 2.0),  # NULL (2), '' (3)
        "dups": ("ok", 2.0),  # a@example.com, b@example
    }
    assert checks["compare"]["comparison"] == 3.0  # three active customers
    assert {b["engine"] for b in document["batches"].values()} == {"pushdown"}


@pytest.mark.parametrize("store", ["pg_sources", "mariadb_sources"])
def test_pushdown_asked_about_the_target_batch_of_an_accuracy_check_does_not_refuse_it(request, store):
    from dq_engine.pushdown.engine import PushdownEngine
    from dq_engine.spec import JobSpec

    spec = JobSpec.from_dict(_as_auto_chose(make_spec(request.getfixturevalue(store), ACROSS_BATCHES), "pushdown"))

    assert PushdownEngine().reason_cannot_run(spec, "t") is None
    assert PushdownEngine().reason_cannot_run(spec, "b") is None


NO_ROWS = "order_id > 100"
EMPTY_BATCH_CHECKS = [
    a_check("count", "row_count"),
    a_check("nulls", "null_or_empty", column=EMAIL),
    a_check("pattern", "regexp_mismatch", column=EMAIL, pattern=r"\.com$"),
    a_check("range", "outside_range", column="amount", min=0, max=100),
    a_check("listed", "not_in_list_or_null", column="status", values=["paid"]),
    a_check("dups", "duplicate_values", column=EMAIL),
    a_check("accuracy", "unmatched_rows", target="t", mappings=ACCURACY),
    a_check("sql", "custom_sql", sql="SELECT count(*) FROM ${src_table} WHERE amount > 50"),
    a_check("sql_count_if", "custom_sql", sql="SELECT count_if(amount > 50) FROM ${src_table}"),
    {
        **a_check("rules", "row_rules"),
        "metric": {"kind": "row_rules", "rules": expand("checks:\n  - amount >= 0\n  - status in ('paid')\n")},
    },
]
# Over no rows every count is 0; an average has no value (ok, NULL, saying so).
EMPTY_BATCH_EXPECTED = {name["id"]: ("ok", 0.0) for name in EMPTY_BATCH_CHECKS}


def _empty_batch_run(spec: dict, spark) -> dict:
    import dq_engine

    spec["batches"]["b"]["filter"] = NO_ROWS
    spec["checks"].append(a_check("avg", "aggregate", column="amount", function="avg"))
    return dq_engine.run(spec, spark=spark)


def _assert_zero_rows_answered(document: dict) -> None:
    checks = document["checks"]
    got = {name: (outcome["status"], outcome["statistic"]) for name, outcome in checks.items() if name != "avg"}
    assert got == EMPTY_BATCH_EXPECTED, {n: o["message"] for n, o in checks.items() if o["status"] != "ok"}
    assert (checks["avg"]["status"], checks["avg"]["statistic"]) == ("ok", None)
    assert "NULL" in checks["avg"]["message"]
    assert document["batches"]["b"]["rows"] == 0 and document["batches"]["b"]["error"] is None


def test_a_duckdb_batch_whose_filter_keeps_no_rows_answers_zero(parquet_sources):
    spec = _as_auto_chose(make_spec(parquet_sources, list(EMPTY_BATCH_CHECKS)), "duckdb")

    _assert_zero_rows_answered(_empty_batch_run(spec, _no_spark))


def test_an_empty_parquet_file_on_duckdb_answers_zero(parquet_sources, tmp_path):
    import pyarrow.parquet as pq

    orders = pq.read_table(parquet_sources["orders"]["path"])
    pq.write_table(orders.slice(0, 0), tmp_path / "empty.parquet")
    sources = {**parquet_sources, "orders": {**parquet_sources["orders"], "path": str(tmp_path / "empty.parquet")}}
    spec = _as_auto_chose(make_spec(sources, list(EMPTY_BATCH_CHECKS)), "duckdb")

    _assert_zero_rows_answered(_empty_batch_run(spec, _no_spark))


@pytest.mark.parametrize("store", ["pg_sources", "mariadb_sources"])
def test_a_pushed_down_batch_whose_filter_keeps_no_rows_answers_zero(request, store):
    spec = _as_auto_chose(make_spec(request.getfixturevalue(store), list(EMPTY_BATCH_CHECKS)), "pushdown")

    _assert_zero_rows_answered(_empty_batch_run(spec, _no_spark))


@pytest.mark.spark
def test_a_spark_batch_whose_filter_keeps_no_rows_answers_zero(parquet_sources, spark):
    spec = _as_auto_chose(make_spec(parquet_sources, list(EMPTY_BATCH_CHECKS)), "spark")

    _assert_zero_rows_answered(_empty_batch_run(spec, spark))
