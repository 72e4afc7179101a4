"""Runs through the API with a real Celery worker on Redis and Spark, against real PostgreSQL."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest

from conftest import PROBE_PASSWORD

from .conftest import SCHEMA, TODAY, VERDICT
from .conftest import create_check as _check
from .conftest import start_and_wait as _run

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def test_a_run_of_several_templates_ends_with_the_right_numbers_and_verdicts(
    cast, api_as, warehouse, celery_worker_process
):
    client = api_as(cast.author)
    src = {"src_datasource_id": warehouse.pk, "src_table": f"{SCHEMA}.orders"}
    ids = {
        "nulls": _check(
            client,
            "emails present",
            "null_check",
            **src,
            src_field="customer_email",
            **{**VERDICT, "failure_strategy": "block"},
        ),
        "unique": _check(client, "ids unique", "uniqueness_check", **src, src_field="order_id", **VERDICT),
        "enum": _check(
            client,
            "statuses known",
            "enumeration_check",
            **src,
            src_field="status",
            enum_list=["paid", "shipped", "void"],
            **VERDICT,
        ),
        "count": _check(
            client,
            "positive rows",
            "table_count_check",
            **src,
            src_filter="amount > 0",
            **{**VERDICT, "operator": "eq", "comparison_value": 9},
        ),
        "range": _check(
            client,
            "amounts not negative",
            "value_range_check",
            **src,
            src_field="amount",
            min_value=0,
            **{
                **VERDICT,
                "check_type": "statistics_comparison_percentage",
                "threshold": 20,
                "comparison_type": "src_table_total_rows",
            },
        ),
        "custom": _check(
            client,
            "big orders",
            "custom_sql",
            **src,
            statistics_name="big_orders",
            statistics_execute_sql="SELECT count(*) AS big FROM ${src_table} WHERE amount > 50",
            **{**VERDICT, "operator": "eq", "comparison_value": 4},
        ),
        "regexp": _check(
            client,
            "emails well formed",
            "regexp_check",
            **src,
            src_field="customer_email",
            regexp_pattern="^[^@]+@[^@]+$",
            **VERDICT,
        ),
    }
    run = _run(client, list(ids.values()))
    by_check = {r["check"]: r for r in run["results"]}
    expected = {  # name: (statistic, comparison, status)
        "nulls": (2, 0, "fail"),
        "unique": (2, 0, "fail"),
        "enum": (2, 0, "fail"),
        "count": (9, 9, "pass"),
        "range": (1, 10, "pass"),
        "custom": (4, 4, "pass"),
        "regexp": (2, 0, "fail"),
    }
    for key, (statistic, comparison, status) in expected.items():
        result = by_check[ids[key]]
        assert (result["statistics_value"], result["comparison_value"], result["status"]) == (
            statistic,
            comparison,
            status,
        ), (key, result)
    assert run["status"] == "failed" and run["blocking"] is True  # the failing null check has strategy `block`
    assert by_check[ids["nulls"]]["verdict"] == "Pass when actual − expected ≤ 0: 2 − 0 = 2 > 0 → fail"
    assert by_check[ids["range"]]["comparison_source"] == {
        "type": "src_table_total_rows",
        "source": "data",
        "batch": "b1",
    }
    assert run["batches"]["b1"]["table"] == f"{SCHEMA}.orders"
    # auto: a PostgreSQL table is computed by PostgreSQL itself, so no Spark application was started
    assert run["batches"]["b1"]["engine"] == "pushdown" and run["spark_application_id"] == ""

    # The bad rows page through the API: 2 null e-mails, shown one per page.
    nulls = by_check[ids["nulls"]]
    assert nulls["error_row_count"] == 2 and nulls["has_error_rows"]
    first = client.get(f"/api/v1/results/{nulls['id']}/error-rows/?page=1&page_size=1").json()
    second = client.get(f"/api/v1/results/{nulls['id']}/error-rows/?page=2&page_size=1").json()
    assert first["count"] == 2 and "customer_email" in first["columns"]
    email = first["columns"].index("customer_email")
    assert sorted([first["rows"][0][email] or "", second["rows"][0][email] or ""]) == ["", ""]
    # Uniqueness: 5 rows carry the 2 duplicated ids; the store keeps DQ_ERROR_ROWS_LIMIT=2 of them.
    unique = by_check[ids["unique"]]
    assert unique["error_row_count"] == 5 and unique["error_rows_written"] == 2
    download = client.get(f"/api/v1/results/{unique['id']}/error-rows.csv")
    assert download.status_code == 200 and download["Content-Type"].startswith("text/csv")
    table = list(csv.reader(io.StringIO(b"".join(download.streaming_content).decode())))
    assert "order_id" in table[0] and len(table) == 3
    assert {row[table[0].index("order_id")] for row in table[1:]} <= {"5", "6"}


def test_a_history_comparison_uses_earlier_runs_and_lists_them(cast, api_as, warehouse, celery_worker_process):
    client = api_as(cast.author)
    check = _check(
        client,
        "orders before the business date",
        "table_count_check",
        src_datasource_id=warehouse.pk,
        src_table=f"{SCHEMA}.orders",
        src_filter="created_at < '${biz_date}'",
        **{
            **VERDICT,
            "comparison_type": "last_30_day_avg",
            "check_type": "statistics_minus_comparison",
            "operator": "le",
            "threshold": 10,
        },
    )
    first = _run(client, [check], biz_date=str(TODAY - timedelta(days=6)))
    second = _run(client, [check], biz_date=str(TODAY - timedelta(days=4)))
    third = _run(client, [check], biz_date=str(TODAY))
    assert first["results"][0]["statistics_value"] == 4 and first["results"][0]["status"] == "unknown"
    assert second["results"][0]["comparison_value"] == 4
    result = third["results"][0]
    assert (result["statistics_value"], result["comparison_value"]) == (10, 5)
    assert result["comparison_source"]["baseline_runs"] == [first["id"], second["id"]]
    assert result["status"] == "pass"  # 10 − 5 = 5 ≤ 10
    history = client.get(f"/api/v1/checks/{check}/history/").json()
    assert [p["statistics_value"] for p in history] == [4, 6, 10]


def test_a_run_whose_datasource_is_unreachable_ends_error_not_fail(
    cast, api_as, warehouse, celery_worker_process, closed_port
):
    client = api_as(cast.author)
    check = _check(
        client,
        "emails present",
        "null_check",
        src_datasource_id=warehouse.pk,
        src_table=f"{SCHEMA}.orders",
        src_field="customer_email",
        **{**VERDICT, "failure_strategy": "block"},
    )
    warehouse.port = closed_port
    warehouse.save()
    run = _run(client, [check])
    assert run["status"] == "error" and run["results"][0]["status"] == "error"
    assert run["results"][0]["message"] and PROBE_PASSWORD not in str(run)
    assert run["blocking"] is True  # a `block` check that cannot be evaluated fails closed
