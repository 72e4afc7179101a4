"""Which engine reads each batch of a run: auto by default, pinned by the run or a datasource, a
pin that cannot read answered 400 naming `engine`; the run shows each batch's engine and why, and a
run that needs no Spark runs without it."""

from __future__ import annotations

import pytest

from executions.models import Run

from .conftest import LAKE_VERDICT, create_check, wait_for_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def pg_check(cast, api_as, pg_datasource):
    params = {"src_datasource_id": pg_datasource.pk, "src_table": "dq_test.orders", "src_field": "customer_email"}
    return create_check(api_as(cast.author), "pg status", "null_check", **params, **LAKE_VERDICT)


@pytest.fixture
def regex_check(cast, api_as, lake):
    params = {"src_datasource_id": lake.pk, "src_table": "orders", "src_field": "status"}
    return create_check(
        api_as(cast.author), "java regex", "regexp_check", **params, regexp_pattern=r"^(?=p)[a-z]+$", **LAKE_VERDICT
    )


def _start(client, checks, **extra):
    return client.post("/api/v1/runs/", {"checks": checks, **extra}, format="json")


def test_auto_picks_duckdb_for_a_small_parquet_dataset_and_the_run_says_why(cast, api_as, lake_check):
    response = _start(api_as(cast.author), [lake_check])

    assert response.status_code == 202
    batch = response.json()["batches"]["b1"]
    assert batch["engine"] == "duckdb"
    assert (
        batch["engine_reason"].startswith("auto: local parquet files, ")
        and "DuckDB limit 2.0 GB" in batch["engine_reason"]
    )


def test_auto_sends_a_java_only_regex_to_spark_with_the_reason(cast, api_as, regex_check):
    batch = _start(api_as(cast.author), [regex_check]).json()["batches"]["b1"]

    assert batch["engine"] == "spark"
    assert "'^(?=p)[a-z]+$' needs Java's regex engine" in batch["engine_reason"]


def test_a_run_may_pin_an_engine_and_one_that_cannot_read_a_batch_is_a_400_naming_engine(
    cast, api_as, lake_check, pg_check, regex_check
):
    client = api_as(cast.author)

    pinned = _start(client, [lake_check], engine="spark")
    refused_db = _start(client, [lake_check, pg_check], engine="duckdb")
    refused_regex = _start(client, [regex_check], engine="duckdb")
    unknown = _start(client, [lake_check], engine="oracle")

    assert pinned.status_code == 202 and pinned.json()["batches"]["b1"]["engine_reason"] == "spark: chosen for this run"
    assert refused_db.status_code == 400 and list(refused_db.json()["fields"]) == ["engine"]
    assert refused_db.json()["fields"]["engine"] == [
        "Engine 'duckdb' cannot run warehouse-pg / dq_test.orders: DuckDB reads local files; this is a database table."
    ]
    assert (
        refused_regex.status_code == 400 and "needs Java's regex engine" in refused_regex.json()["fields"]["engine"][0]
    )
    assert unknown.status_code == 400 and "engine" in unknown.json()["fields"]
    assert Run.objects.count() == 1


def test_an_engine_named_for_a_run_that_cannot_run_a_check_is_a_400_naming_the_check_and_why(
    cast, api_as, lake_check, regex_check
):
    client = api_as(cast.author)

    refused = _start(client, [lake_check, regex_check], engine="duckdb")
    auto = _start(client, [lake_check, regex_check])

    assert refused.status_code == 400 and list(refused.json()["fields"]) == ["engine"]
    (message,) = refused.json()["fields"]["engine"]
    assert "Engine 'duckdb' cannot run" in message and "check 'java regex'" in message
    assert "'^(?=p)[a-z]+$' needs Java's regex engine" in message
    assert auto.status_code == 202
    batch = auto.json()["batches"]["b1"]  # both checks read lake / orders: one batch
    assert batch["engine"] == "spark"
    assert batch["engine_reason"].startswith("auto: check 'java regex'")
    assert Run.objects.count() == 1


def test_a_datasource_pins_its_engine_and_a_pin_that_cannot_read_it_is_refused_on_save(cast, api_as, lake, lake_check):
    admin = api_as(cast.admin)

    pinned = admin.patch(f"/api/v1/datasources/{lake.pk}/", {"options": {"engine": "spark"}}, format="json")
    run = _start(api_as(cast.author), [lake_check]).json()
    refused = admin.post(
        "/api/v1/datasources/",
        {
            "name": "pg",
            "type": "postgresql",
            "host": "127.0.0.1",
            "database": "x",
            "username": "u",
            "password": "p1",
            "options": {"engine": "duckdb"},
        },
        format="json",
    )
    unknown = admin.patch(f"/api/v1/datasources/{lake.pk}/", {"options": {"engine": "oracle"}}, format="json")

    assert pinned.status_code == 200
    assert run["batches"]["b1"]["engine"] == "spark"
    assert run["batches"]["b1"]["engine_reason"] == "spark: pinned by its datasource"
    assert refused.status_code == 400
    assert refused.json()["fields"]["options"] == [
        "The duckdb engine cannot read this datasource: DuckDB reads local files; this is a database table."
    ]
    assert (
        unknown.status_code == 400
        and "must be one of auto, spark, pushdown, duckdb" in unknown.json()["fields"]["options"][0]
    )


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_run_on_duckdb_finishes_without_spark_and_the_batch_reports_its_engine(
    cast, api_as, lake_check, celery_worker_process
):
    client = api_as(cast.author)
    run_id = _start(client, [lake_check]).json()["id"]

    run = wait_for_run(client, run_id)

    assert run["status"] == "failed"  # one NULL status: the block check fails, as on Spark
    assert run["results"][0]["statistics_value"] == 1.0 and run["results"][0]["error_row_count"] == 1
    assert run["spark_application_id"] == ""  # no Spark application was needed
    assert run["batches"]["b1"]["engine"] == "duckdb"
    rows = client.get(f"/api/v1/results/{run['results'][0]['id']}/error-rows/").json()
    assert rows["count"] == 1 and rows["rows"][0][rows["columns"].index("_dq_check")] == "status present"


def test_dq_run_pins_an_engine_and_names_the_batch_it_cannot_read(cast, pg_check, lake_check):
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="Engine 'duckdb' cannot run warehouse-pg / dq_test.orders"):
        call_command("dq_run", "--check", str(pg_check), "--engine", "duckdb", "--user", "author")
    call_command("dq_run", "--check", str(lake_check), "--engine", "spark", "--user", "author")

    assert Run.objects.get().batches["definitions"]["b1"]["engine"] == "spark"


def test_an_engine_pin_that_cannot_read_a_batch_is_refused_in_chinese_to_a_chinese_request(cast, api_as, regex_check):
    body = {"checks": [regex_check], "engine": "duckdb"}
    refused = api_as(cast.author).post("/api/v1/runs/", body, format="json", HTTP_ACCEPT_LANGUAGE="zh-Hans")

    assert refused.status_code == 400
    (why,) = refused.json()["fields"]["engine"]
    assert why.startswith("引擎 'duckdb' 无法运行 ")
    assert "检查项 'java regex'：正则表达式 '^(?=p)[a-z]+$' 需要 Java 的正则引擎（DuckDB 的 RE2 不支持环视" in why
    assert Run.objects.count() == 0
