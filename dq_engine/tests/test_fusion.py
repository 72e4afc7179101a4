"""Fusion, counted in Spark work rather than seconds: jobs per job group and rows read from the source.

DolphinScheduler ran one Spark job per rule, each re-reading the table. Here N row-level checks on
one batch make one aggregate pass, so the source is read once whatever N is.
"""

from __future__ import annotations

import pytest

from dq_engine.tests.conftest import NOTE, check, make_spec, spark_work

pytestmark = pytest.mark.spark

ROW_LEVEL_CHECKS = [
    check("null", "null_or_empty", column="customer_email"),
    check("regexp", "regexp_mismatch", column="customer_email", pattern=r"@example\.com$"),
    check("enum", "not_in_list_or_null", column="status", values=["paid"]),
    check("length", "length_compare", column=NOTE, operator=">", length=3),
    check("range", "outside_range", column="amount", min=0, max=100),
    check("avg", "aggregate", column="amount", function="avg"),
]


def _single_batch_spec(parquet_sources, checks):
    return {
        "run_id": "fusion",
        "sources": {"orders": parquet_sources["orders"]},
        "batches": {"b": {"source": "orders"}},  # no filter: every scan reads all 8 rows
        "checks": checks,
    }


def _run_counted(spark, spec):
    import dq_engine

    document = dq_engine.run(spec, spark=spark)
    return document, spark_work(spark, document["plan"]["job_group"])


def test_n_row_level_checks_on_one_batch_read_the_source_once_in_one_aggregate_pass(spark, parquet_sources):
    fused, fused_work = _run_counted(spark, _single_batch_spec(parquet_sources, ROW_LEVEL_CHECKS))
    per_rule = [_run_counted(spark, _single_batch_spec(parquet_sources, [c])) for c in ROW_LEVEL_CHECKS]
    single_jobs = {work["jobs"] for _, work in per_rule}
    per_rule_work = {key: sum(work[key] for _, work in per_rule) for key in ("jobs", "input_records")}
    print(f"\nfused {len(ROW_LEVEL_CHECKS)} checks: {fused_work}; one run per check: {per_rule_work}")

    n = len(ROW_LEVEL_CHECKS)
    assert fused["plan"]["batches"]["b"] | {"cached": None} == {
        "aggregate_passes": 1,
        "isolation_passes": 0,
        "group_bys": 0,
        "joins": 0,
        "sql_queries": 0,
        "error_row_writes": 0,
        "cached": None,
        "fused_checks": n,
        "fused_sql_checks": 0,
    }
    assert fused_work["input_records"] == 8  # the 8 source rows, read once
    assert per_rule_work["input_records"] == n * 8  # re-read for every rule
    assert len(single_jobs) == 1 and fused_work["jobs"] == single_jobs.pop()  # N checks cost what 1 costs
    assert per_rule_work["jobs"] == n * fused_work["jobs"]
    assert fused["plan"]["spark_jobs"] == fused_work["jobs"]
    for spec_check in ROW_LEVEL_CHECKS:  # and the fused numbers are the per-rule numbers
        alone = next(doc for doc, _ in per_rule if spec_check["id"] in doc["checks"])
        assert fused["checks"][spec_check["id"]]["statistic"] == alone["checks"][spec_check["id"]]["statistic"]


def test_uniqueness_checks_share_one_group_by_per_column_and_accuracy_checks_one_join(spark, parquet_sources):
    import dq_engine

    mappings = [{"source": "customer_email", "operator": "=", "target": "email"}]
    checks = [
        check("dup_email_1", "duplicate_values", column="customer_email"),
        check("dup_email_2", "duplicate_values", column="CUSTOMER_EMAIL"),  # same column, Spark's case rules
        check("dup_status", "duplicate_values", column="status"),
        check("acc_1", "unmatched_rows", target="t", mappings=mappings),
        check("acc_2", "unmatched_rows", target="t", mappings=mappings),
    ]
    document = dq_engine.run(make_spec(parquet_sources, checks), spark=spark)

    stats = document["plan"]["batches"]["b"]
    assert (stats["group_bys"], stats["joins"], stats["aggregate_passes"]) == (2, 1, 1)
    assert [document["checks"][c]["statistic"] for c in ("dup_email_1", "dup_email_2", "dup_status")] == [2, 2, 1]
    assert document["checks"]["acc_1"]["statistic"] == document["checks"]["acc_2"]["statistic"] == 4  # NULL, '', b, b


def test_a_database_batch_read_by_several_passes_is_cached_for_the_run_and_released_after(spark, pg_sources):
    import dq_engine

    checks = [
        check("null", "null_or_empty", column="customer_email"),
        check("dup", "duplicate_values", column="status"),
        check("sql", "custom_sql", sql="SELECT max(order_id) FROM ${src_table}"),
    ]
    document = dq_engine.run(make_spec(pg_sources, checks), spark=spark)

    assert document["plan"]["batches"]["b"]["cached"] is True  # 2 passes: aggregate (with the SQL), group-by
    assert document["plan"]["batches"]["t"]["cached"] is False  # only its row count
    assert document["checks"]["sql"]["statistic"] == 7.0
    assert spark.sparkContext._jsc.getPersistentRDDs().isEmpty()
    assert not [t.name for t in spark.catalog.listTables() if t.name.startswith("dq_")]


def test_a_file_batch_is_never_cached_each_pass_rereads_its_columns(spark, parquet_sources):
    import dq_engine

    checks = [
        check("null", "null_or_empty", column="customer_email"),
        check("dup", "duplicate_values", column="status"),
        check("sql", "custom_sql", sql="SELECT max(order_id) FROM ${src_table}"),
    ]
    document = dq_engine.run(make_spec(parquet_sources, checks), spark=spark)

    assert document["plan"]["batches"]["b"]["cached"] is False
    assert [document["checks"][c]["statistic"] for c in ("null", "dup", "sql")] == [2.0, 1.0, 7.0]
    assert spark.sparkContext._jsc.getPersistentRDDs().isEmpty()


def test_uniqueness_and_null_safe_accuracy_on_one_column_share_one_group_by(spark, parquet_sources):
    import dq_engine

    checks = [
        check("dup", "duplicate_values", column="customer_email"),
        check(
            "acc",
            "unmatched_rows",
            target="t",
            mappings=[{"source": "customer_email", "operator": "<=>", "target": "email"}],
        ),
    ]
    document = dq_engine.run(make_spec(parquet_sources, checks), spark=spark)

    stats = document["plan"]["batches"]["b"]
    assert (stats["group_bys"], stats["joins"]) == (1, 1)
    assert document["checks"]["dup"]["statistic"] == 2  # a@example.com, b@example
    assert document["checks"]["acc"]["statistic"] == 3  # '', b, b: NULL matches the target's NULL


def test_a_plain_aggregate_custom_sql_statistic_is_computed_in_the_aggregate_pass(spark, parquet_sources):
    checks = [
        check("null", "null_or_empty", column="customer_email"),
        check(
            "paid_big", "custom_sql", sql="SELECT COUNT(*) FROM ${src_table} t WHERE t.status = 'paid' AND amount > 10"
        ),
        check("mean", "custom_sql", sql="SELECT sum(amount) / count(*) AS mean FROM ${src_table}"),
        check("kinds", "custom_sql", sql="SELECT COUNT(DISTINCT status) FROM ${src_table}"),  # runs as written
    ]
    document, work = _run_counted(spark, _single_batch_spec(parquet_sources, checks))

    stats = document["plan"]["batches"]["b"]
    assert (stats["aggregate_passes"], stats["fused_sql_checks"], stats["sql_queries"]) == (1, 2, 1)
    assert work["input_records"] == 2 * 8  # the aggregate pass and the DISTINCT query; not a third read
    # The values are those of the queries as written (run here by hand on the same rows).
    frame = spark.read.parquet(parquet_sources["orders"]["path"])
    frame.createOrReplaceTempView("fusion_orders")
    by_hand = spark.sql(
        "SELECT (SELECT COUNT(*) FROM fusion_orders WHERE status = 'paid' AND amount > 10), "
        "(SELECT sum(amount) / count(*) FROM fusion_orders), (SELECT COUNT(DISTINCT status) FROM fusion_orders)"
    ).collect()[0]
    spark.catalog.dropTempView("fusion_orders")
    statistics = [document["checks"][c]["statistic"] for c in ("paid_big", "mean", "kinds")]
    assert statistics == [float(by_hand[0]), pytest.approx(float(by_hand[1])), float(by_hand[2])]
    assert statistics[0] == 3  # 10.50, 120.00, 99.99 (rows 1, 4, 8)
    assert all(document["checks"][c]["status"] == "ok" for c in ("null", "paid_big", "mean", "kinds"))


def test_a_folded_statistic_that_fails_runs_as_written_and_reports_its_own_error(spark, parquet_sources):
    checks = [
        check("null", "null_or_empty", column="customer_email"),
        check("unknown", "custom_sql", sql="SELECT COUNT(*) FROM ${src_table} WHERE no_such_column = 1"),
        check("by_zero", "custom_sql", sql="SELECT sum(order_id) / 0 FROM ${src_table}"),  # fails only at run time
        check("fine", "custom_sql", sql="SELECT max(order_id) FROM ${src_table}"),
    ]
    document, _ = _run_counted(spark, _single_batch_spec(parquet_sources, checks))

    outcome = document["checks"]
    assert outcome["unknown"]["status"] == "error" and "no_such_column" in outcome["unknown"]["message"]
    assert outcome["by_zero"]["status"] == "error" and "DIVIDE_BY_ZERO" in outcome["by_zero"]["message"]
    assert (outcome["null"]["statistic"], outcome["fine"]["statistic"]) == (2.0, 8.0)
    assert outcome["null"]["status"] == outcome["fine"]["status"] == "ok"
