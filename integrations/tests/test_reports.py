"""Runs executed on PostgreSQL data report every result to Dagster and one OpenLineage event per
run, to real HTTP receivers in this process; the numbers are held to plain SQL on the same table."""

from __future__ import annotations

import logging

import psycopg
import pytest

from conftest import PG
from executions.models import Result, Run
from integrations.models import Delivery

from .conftest import DAGSTER_TOKEN, LINEAGE_KEY, SCHEMA, plain_sql
from .lineage_check import round_trip

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

NULL_EMAILS = f"SELECT count(*) FROM {SCHEMA}.orders WHERE email IS NULL"
ALL_ORDERS = f"SELECT count(*) FROM {SCHEMA}.orders"


@pytest.fixture
def two_checks(make_check):
    """A `block` null check on the e-mails (it fails: some are NULL) and an `alert` row count
    expecting the table's real size (it passes)."""
    rows = plain_sql(ALL_ORDERS)
    return {
        "emails": make_check("emails present", "null_check", "block", src_field="email"),
        "count": make_check(
            "order count", "table_count_check", "alert", operator="eq", comparison_value=rows, threshold=0
        ),
    }


def _by_check(requests: list) -> dict[str, dict]:
    return {r["json"]["check_name"]: r for r in requests}


def test_a_run_with_a_passing_and_a_failing_check_reports_both_results_to_dagster(
    two_checks, make_integration, receiver, run_checks, settings
):
    settings.DQ_PUBLIC_URL = "https://dq.example.com"
    make_integration("dagster", secret=DAGSTER_TOKEN)

    run_id = run_checks(list(two_checks.values()))

    nulls, rows = plain_sql(NULL_EMAILS), plain_sql(ALL_ORDERS)
    assert nulls == 2 and rows == 5  # the table as inserted; the checks must find the same
    reports = _by_check(receiver.accepted)
    assert set(reports) == {"emails_present", "order_count"} and len(receiver.requests) == 2
    emails, count = reports["emails_present"], reports["order_count"]
    assert {emails["path"], count["path"]} == {f"/dagster/prod/report_asset_check/warehouse/{SCHEMA}/orders"}
    assert (emails["json"]["passed"], emails["json"]["severity"]) == (False, "ERROR")
    assert (count["json"]["passed"], count["json"]["severity"]) == (True, "WARN")
    assert emails["json"]["metadata"]["statistic"] == nulls and emails["json"]["metadata"]["expected_value"] == 0
    assert count["json"]["metadata"]["statistic"] == rows and count["json"]["metadata"]["expected_value"] == rows
    result = Result.objects.get(run_id=run_id, rule_check_id=two_checks["emails"])
    assert emails["json"]["metadata"]["verdict"] == result.verdict and "fail" in result.verdict
    assert emails["json"]["metadata"]["run_id"] == run_id
    assert emails["json"]["metadata"]["result_url"] == f"https://dq.example.com/api/v1/results/{result.pk}/"
    assert emails["headers"]["Dagster-Cloud-Api-Token"] == DAGSTER_TOKEN
    assert Run.objects.get(pk=run_id).status == Run.Status.FAILED
    assert sorted(Delivery.objects.filter(run_id=run_id).values_list("status", "attempt")) == [("sent", 1)] * 2


def test_an_asset_key_set_for_a_check_replaces_the_one_derived_from_its_table(
    two_checks, make_integration, receiver, run_checks
):
    make_integration("dagster", asset_keys={str(two_checks["emails"]): "crm/customers"})

    run_checks(list(two_checks.values()))

    paths = {r["json"]["check_name"]: r["path"] for r in receiver.accepted}
    assert paths == {
        "emails_present": "/dagster/prod/report_asset_check/crm/customers",
        "order_count": f"/dagster/prod/report_asset_check/warehouse/{SCHEMA}/orders",
    }
    assert "Dagster-Cloud-Api-Token" not in receiver.accepted[0]["headers"]  # no token configured, none sent


def test_a_dagster_receiver_that_fails_twice_is_retried_and_gets_exactly_one_report_per_result(
    two_checks, make_integration, receiver, run_checks
):
    receiver.fail_first = 2
    make_integration("dagster")

    run_id = run_checks(list(two_checks.values()))

    assert len(receiver.requests) == 4 and [r["status"] for r in receiver.requests].count(500) == 2
    accepted = [r["json"]["check_name"] for r in receiver.accepted]
    assert sorted(accepted) == ["emails_present", "order_count"]  # each result once, none twice
    deliveries = Delivery.objects.filter(run_id=run_id)
    assert {d.status for d in deliveries} == {"sent"}
    assert sum(d.attempt for d in deliveries) == 4
    retried = max(deliveries, key=lambda d: d.attempt)
    assert [a["ok"] for a in retried.attempts] == [False] * (retried.attempt - 1) + [True]
    assert "HTTP 500" in retried.attempts[0]["error"]


def test_a_backfill_is_told_to_openlineage_but_not_reported_as_the_asset_checks_state(
    two_checks, make_integration, receiver, run_checks
):
    make_integration("dagster")
    make_integration("openlineage")

    run_id = run_checks(list(two_checks.values()), trigger="backfill", biz_date="2026-01-31")

    (request,) = receiver.requests
    assert request["json"]["eventType"] == "COMPLETE" and "report_asset_check" not in request["path"]
    assert list(Delivery.objects.filter(run_id=run_id).values_list("kind", flat=True)) == ["openlineage"]


def test_an_integration_of_another_datasource_gets_no_report(
    two_checks, make_integration, make_datasource, receiver, run_checks
):
    from conftest import PG_PROBE_DATASOURCE

    elsewhere = make_datasource(name="elsewhere", **PG_PROBE_DATASOURCE)
    make_integration("dagster", datasources=[elsewhere.pk])

    run_id = run_checks(list(two_checks.values()))

    assert receiver.requests == [] and not Delivery.objects.filter(run_id=run_id).exists()


def test_an_openlineage_receiver_gets_one_event_whose_assertions_and_metrics_match_the_data(
    two_checks, make_check, make_integration, receiver, run_checks, settings
):
    from openlineage.client.naming.dataset import Postgres

    settings.DQ_PUBLIC_URL = "https://dq.example.com"
    statuses = make_check("statuses present", "null_check", "alert", src_field="status")
    make_integration("openlineage", secret=LINEAGE_KEY, namespace="shop")

    run_id = run_checks([*two_checks.values(), statuses])

    (request,) = receiver.requests
    event = request["json"]
    assert request["path"] == "/dagster/prod" and request["headers"]["Authorization"] == f"Bearer {LINEAGE_KEY}"
    assert event["eventType"] == "COMPLETE" and event["job"] == {
        "namespace": "shop",
        "name": "data_quality_run",
        "facets": {},
    }
    assert round_trip(event) == event  # openlineage-python reads it as a RunEvent and writes it back alike
    (dataset,) = event["inputs"]
    naming = Postgres(host=PG["host"], port=str(PG["port"]), database=PG["dbname"], schema=SCHEMA, table="orders")
    assert (dataset["namespace"], dataset["name"]) == (naming.get_namespace(), naming.get_name())
    assertions = dataset["inputFacets"]["dataQualityAssertions"]["assertions"]
    verdicts = {r.check_version.name: r.status == "pass" for r in Result.objects.filter(run_id=run_id)}
    assert {a["name"]: a["success"] for a in assertions} == verdicts
    assert verdicts == {"emails present": False, "order count": True, "statuses present": True}
    assert {a["name"]: (a["assertion"], a.get("column"), a["severity"]) for a in assertions} == {
        "emails present": ("null_check", "email", "error"),
        "order count": ("table_count_check", None, "warn"),
        "statuses present": ("null_check", "status", "warn"),
    }
    nulls, rows = plain_sql(NULL_EMAILS), plain_sql(ALL_ORDERS)
    emails = next(a for a in assertions if a["name"] == "emails present")
    assert (emails["actual"], emails["expected"]) == (str(nulls), "0")
    metrics = dataset["inputFacets"]["dataQualityMetrics"]
    assert metrics["rowCount"] == rows
    assert metrics["columnMetrics"] == {
        "email": {"nullCount": nulls},
        "status": {"nullCount": plain_sql(f"SELECT count(*) FROM {SCHEMA}.orders WHERE status IS NULL")},
    }
    for facet in (metrics, dataset["inputFacets"]["dataQualityAssertions"]):
        assert facet["_producer"] == "https://dq.example.com"


def test_a_run_that_errored_emits_a_fail_event(make_check, make_integration, receiver, run_checks, two_checks):
    gone = make_check("shipments counted", "table_count_check", "block", table="shipments", comparison_value=1)
    make_integration("openlineage")
    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"DROP TABLE {SCHEMA}.shipments")  # the table the check reads is gone when it runs
    try:
        run_id = run_checks([gone, two_checks["count"]])
    finally:
        with psycopg.connect(**PG, autocommit=True) as conn:
            conn.execute(f"CREATE TABLE IF NOT EXISTS {SCHEMA}.shipments (shipment_id int)")

    assert Run.objects.get(pk=run_id).status == Run.Status.ERROR
    (request,) = receiver.requests
    event = request["json"]
    assert round_trip(event) == event
    assert event["eventType"] == "FAIL" and event["run"]["facets"]["errorMessage"]["message"]
    successes = {
        (dataset["name"].rsplit(".", 1)[-1], a["name"]): a["success"]
        for dataset in event["inputs"]
        for a in dataset["inputFacets"]["dataQualityAssertions"]["assertions"]
    }
    assert successes == {("shipments", "shipments counted"): False, ("orders", "order count"): True}


def test_secrets_never_appear_in_api_responses_reports_or_logs(
    api_as, cast, two_checks, make_integration, receiver, run_checks, caplog
):
    caplog.set_level(logging.DEBUG)
    receiver.fail_first, receiver.echo_headers = 100, True  # a receiver that answers with the token it got
    created = make_integration("dagster", secret=DAGSTER_TOKEN)
    assert created["has_secret"] is True and "secret" not in created

    run_id = run_checks([two_checks["emails"]])

    admin = api_as(cast.admin)
    tested = admin.post(f"/api/v1/integrations/{created['id']}/test/").json()
    assert tested["ok"] is False and "HTTP 500" in tested["message"]
    answers = [
        admin.get("/api/v1/integrations/").content,
        admin.get(f"/api/v1/integrations/{created['id']}/").content,
        admin.get(f"/api/v1/integration-deliveries/?run={run_id}").content,
        str(tested).encode(),
    ]
    assert all(DAGSTER_TOKEN.encode() not in answer for answer in answers)
    assert any(DAGSTER_TOKEN in str(r["headers"]) for r in receiver.requests)  # it was sent, and echoed back
    assert DAGSTER_TOKEN not in caplog.text and "failed (attempt 4 of 4)" in caplog.text
    (delivery,) = Delivery.objects.filter(run_id=run_id)
    assert delivery.status == "failed" and DAGSTER_TOKEN not in str(delivery.attempts) + delivery.error
    from integrations.models import Integration

    assert DAGSTER_TOKEN not in Integration.objects.get(pk=created["id"]).secret_ciphertext  # encrypted at rest


def test_a_reader_without_rights_sees_no_integration_and_no_report(
    api_as, cast, two_checks, make_integration, warehouse, receiver, run_checks
):
    scoped = make_integration("dagster", datasources=[warehouse.pk])
    everything = make_integration("openlineage")
    run_id = run_checks(list(two_checks.values()))
    assert Delivery.objects.filter(run_id=run_id).count() == 3

    outsider, author = api_as(cast.outsider), api_as(cast.author)
    assert outsider.get("/api/v1/integrations/").json()["results"] == []
    assert outsider.get(f"/api/v1/integrations/{scoped['id']}/").status_code == 404
    assert outsider.get(f"/api/v1/integration-deliveries/?run={run_id}").json()["results"] == []
    # The author reads the warehouse: the integration limited to it and its reports, not the
    # integration of every datasource (it reports on data the author may not read).
    assert [i["id"] for i in author.get("/api/v1/integrations/").json()["results"]] == [scoped["id"]]
    seen = author.get(f"/api/v1/integration-deliveries/?run={run_id}").json()["results"]
    assert sorted(d["integration"] for d in seen) == [scoped["id"]] * 2 and everything["id"] not in {
        d["integration"] for d in seen
    }
    assert author.patch(f"/api/v1/integrations/{scoped['id']}/", {"enabled": False}, format="json").status_code == 403
