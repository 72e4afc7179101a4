"""POST /api/v1/runs/ validation, idempotency and claiming (no worker needed; the reaper: test_reaper.py)."""

from __future__ import annotations

import pytest

from executions.models import Run
from executions.tasks import execute_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def check_id(cast, api_as, valid_params):
    response = api_as(cast.author).post(
        "/api/v1/checks/",
        {"name": "emails", "template": "null_check", "params": valid_params["null_check"]},
        format="json",
    )
    return response.json()["id"]


@pytest.fixture
def valid_params(pg_datasource):
    return {
        "null_check": {
            "src_datasource_id": pg_datasource.pk,
            "src_table": "dq_test.orders",
            "src_field": "customer_email",
            "check_type": "statistics_minus_comparison",
            "operator": "le",
            "threshold": 0,
            "failure_strategy": "block",
            "comparison_type": "fix_value",
            "comparison_value": 0,
        }
    }


def test_a_run_request_answers_202_and_freezes_batch_and_versions(
    cast, api_as, check_id, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks() as callbacks:
        response = api_as(cast.author).post(
            "/api/v1/runs/", {"checks": [check_id], "biz_date": "2026-11-02"}, format="json"
        )
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "queued" and body["attempt"] == 1 and len(callbacks) == 1  # enqueued after commit
    assert body["biz_date"] == "2026-11-02" and body["parameters"] == {"biz_date": "2026-11-02"}
    assert body["batches"]["b1"]["table"] == "dq_test.orders" and body["batches"]["b1"]["scan_mode"] == "full"
    assert body["checks"] == [{"check": check_id, "version": 1, "name": "emails"}]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"checks": []}, "checks"),
        ({"checks": [999]}, "checks"),
        ({"checks": ["x"]}, "checks"),
        ({"biz_date": "2026-11-31"}, "biz_date"),
        ({"trigger": "backfill"}, "biz_date"),
        ({"trigger": "cron"}, "trigger"),
    ],
)
def test_a_bad_run_request_answers_400_naming_the_field(cast, api_as, check_id, body, field):
    payload = {"checks": [check_id], **body}
    response = api_as(cast.author).post("/api/v1/runs/", payload, format="json")
    assert response.status_code == 400 and field in response.json()["fields"]
    assert not Run.objects.exists()


def test_the_same_idempotency_key_returns_the_first_run(cast, api_as, check_id):
    client = api_as(cast.author)
    first = client.post("/api/v1/runs/", {"checks": [check_id], "idempotency_key": "nightly-2026-11-30"}, format="json")
    again = client.post("/api/v1/runs/", {"checks": [check_id], "idempotency_key": "nightly-2026-11-30"}, format="json")
    assert (first.status_code, again.status_code) == (202, 200)
    assert first.json()["id"] == again.json()["id"] and Run.objects.count() == 1


def test_an_outsider_can_neither_run_nor_see_checks_on_a_restricted_datasource(cast, api_as, check_id, pg_datasource):
    run = api_as(cast.author).post("/api/v1/runs/", {"checks": [check_id]}, format="json").json()
    pg_datasource.allowed_groups.set([cast.analysts])
    outsider = api_as(cast.outsider)
    assert outsider.post("/api/v1/runs/", {"checks": [check_id]}, format="json").status_code == 400
    assert outsider.get("/api/v1/runs/").json()["results"] == []
    assert outsider.get(f"/api/v1/runs/{run['id']}/").status_code == 404


def test_a_second_delivery_of_the_same_task_does_nothing(cast, api_as, check_id):
    run_id = api_as(cast.author).post("/api/v1/runs/", {"checks": [check_id]}, format="json").json()["id"]
    assert Run.claim(run_id, 1) is True  # the first delivery claimed it
    assert execute_run.run(run_id, 1) == "skipped"
    assert Run.objects.get(pk=run_id).status == "running"
    assert execute_run.run(run_id, 2) == "skipped"  # a stale attempt number


def test_error_rows_paging_is_validated(cast, api_as, check_id):
    from executions.models import Result

    run_id = api_as(cast.author).post("/api/v1/runs/", {"checks": [check_id]}, format="json").json()["id"]
    Run.claim(run_id, 1)
    from executions.recording import fail_run

    fail_run(Run.objects.get(pk=run_id), "stopped")
    result = Result.objects.get(run_id=run_id)
    client = api_as(cast.author)
    assert client.get(f"/api/v1/results/{result.pk}/error-rows/?page_size=100000").status_code == 400
    empty = client.get(f"/api/v1/results/{result.pk}/error-rows/").json()
    assert empty["count"] == 0 and empty["rows"] == []


def test_a_note_the_engine_adds_to_a_computed_statistic_reaches_the_result(cast, api_as, check_id):
    """A statistic computed while its error rows could not be stored is still the result's value;
    the engine's note says why the rows are missing, instead of a silent empty "Bad rows"."""
    from executions.recording import record_results

    run_id = api_as(cast.author).post("/api/v1/runs/", {"checks": [check_id]}, format="json").json()["id"]
    Run.claim(run_id, 1)
    run = Run.objects.get(pk=run_id)
    note = "Error rows could not be written to /var/dq/run-1/7: disk full"
    outcome = {"status": "ok", "statistic": 2.0, "error_row_count": 2, "error_rows_written": None, "message": note}
    record_results(run, {"checks": {str(run.check_versions.get().pk): outcome}, "batches": {}})

    result = api_as(cast.author).get(f"/api/v1/runs/{run_id}/").json()["results"][0]
    assert (result["status"], result["statistics_value"], result["error_row_count"]) == ("fail", 2.0, 2)
    assert result["message"] == note


def test_a_run_of_a_thousand_checks_freezes_the_current_version_of_each(cast, lake_check):
    """More checks than SQLite would take in one condition (1,000), half of them edited once since."""
    from executions.starting import start_run
    from rules.models import Check, CheckVersion

    model = Check.objects.get(pk=lake_check)
    first = model.current()
    copies = Check.objects.bulk_create(
        Check(name=f"copy {i:04d}", template=model.template, params=model.params, current_version=1 + i % 2)
        for i in range(1100)
    )
    CheckVersion.objects.bulk_create(
        CheckVersion(
            parent_check=check,
            number=number,
            name=f"{check.name} v{number}",
            template_key=first.template_key,
            template_version=first.template_version,
            definition=first.definition,
            params=first.params,
            content_hash=f"{check.pk}-{number}",
        )
        for check in copies
        for number in (1, 2)
    )

    run, created = start_run(copies, cast.author)

    frozen = run.check_versions.order_by("parent_check_id").values_list("parent_check_id", "number", "name")
    assert created and list(frozen) == [(c.pk, c.current_version, f"{c.name} v{c.current_version}") for c in copies]
    assert len(run.batches["assignments"]) == 1100
