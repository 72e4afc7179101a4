"""POST /api/v1/runs/{id}/cancel/ and /retry/: who may, in which states, and what they leave behind."""

from __future__ import annotations

import pytest

from executions.models import Run
from executions.recording import fail_run
from executions.tasks import execute_run

pytestmark = pytest.mark.django_db


def _end_in_error(run_id: int) -> None:
    """What a worker does when the engine fails: claim, then an `error` end."""
    assert Run.claim(run_id, 1, "test-worker")
    fail_run(Run.objects.get(pk=run_id), "The engine could not run the checks: boom")


def test_the_author_cancels_a_queued_run_and_its_task_then_does_nothing(cast, api_as, start_lake_run):
    run_id = start_lake_run()
    response = api_as(cast.author).post(f"/api/v1/runs/{run_id}/cancel/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "cancelled" and body["message"] == "Cancelled by author."
    assert body["finished_at"] and body["results"] == [] and body["blocking"] is False
    assert execute_run.run(run_id, 1) == "skipped"  # the queued message arrives later: nothing runs
    assert Run.objects.get(pk=run_id).status == "cancelled"


def test_a_running_run_cancelled_meanwhile_keeps_no_results_from_its_worker(cast, api_as, start_lake_run):
    run_id = start_lake_run()
    assert Run.claim(run_id, 1, "test-worker")
    assert api_as(cast.admin).post(f"/api/v1/runs/{run_id}/cancel/").json()["message"] == "Cancelled by admin."
    # The worker had not noticed yet and records its end: the cancel stands, no result is kept.
    fail_run(Run.objects.get(pk=run_id), "The engine could not run the checks: interrupted")
    run = Run.objects.get(pk=run_id)
    assert run.status == "cancelled" and run.message == "Cancelled by admin." and not run.results.exists()


def test_a_run_that_has_ended_cannot_be_cancelled(cast, api_as, start_lake_run):
    run_id = start_lake_run()
    _end_in_error(run_id)
    response = api_as(cast.author).post(f"/api/v1/runs/{run_id}/cancel/")
    assert response.status_code == 409
    assert response.json() == {
        "message": f"Run {run_id} has already ended (error); there is nothing to cancel.",
        "fields": {},
    }
    assert Run.objects.get(pk=run_id).status == "error"


@pytest.mark.parametrize("action", ["cancel", "retry"])
def test_only_the_author_and_admins_may_act_on_a_run_and_outsiders_do_not_see_it(
    cast, api_as, start_lake_run, lake, action, django_user_model
):
    run_id = start_lake_run()
    if action == "retry":
        _end_in_error(run_id)
    colleague = django_user_model.objects.create_user("colleague", password="colleague-pass-123")
    colleague.groups.add(cast.analysts)
    lake.allowed_groups.set([cast.analysts])  # the outsider may not read the data the run read
    refused = api_as(colleague).post(f"/api/v1/runs/{run_id}/{action}/")
    assert refused.status_code == 403
    assert refused.json()["message"] == f"Only the run's author or an administrator may {action} run {run_id}."
    assert api_as(cast.outsider).post(f"/api/v1/runs/{run_id}/{action}/").status_code == 404
    assert api_as(cast.author).post(f"/api/v1/runs/999999/{action}/").status_code == 404
    assert api_as(cast.author).post(f"/api/v1/runs/abc/{action}/").status_code == 404
    assert Run.objects.count() == 1 and Run.objects.get().status == ("queued" if action == "cancel" else "error")
    assert api_as(cast.admin).post(f"/api/v1/runs/{run_id}/{action}/").status_code in (200, 202)


def test_a_finished_run_is_retried_as_the_next_attempt_of_the_same_versions_and_batches(
    cast, api_as, start_lake_run, lake_check, django_capture_on_commit_callbacks
):
    client = api_as(cast.author)
    first = client.post("/api/v1/runs/", {"checks": [lake_check], "biz_date": "2026-11-02"}, format="json").json()
    _end_in_error(first["id"])
    # The check changes afterwards: a retry still runs what the first attempt ran.
    edited = client.patch(f"/api/v1/checks/{lake_check}/", {"params": {"threshold": 5}}, format="json")
    assert edited.status_code == 200 and edited.json()["current_version"] == 2
    with django_capture_on_commit_callbacks() as callbacks:
        response = client.post(f"/api/v1/runs/{first['id']}/retry/")
    assert response.status_code == 202
    retry = response.json()
    assert len(callbacks) == 1  # enqueued after commit
    assert retry["id"] != first["id"] and retry["status"] == "queued" and retry["results"] == []
    assert (retry["attempt"], retry["retry_of"], retry["trigger"]) == (2, first["id"], first["trigger"])
    assert retry["checks"] == [{"check": lake_check, "version": 1, "name": "status present"}]
    assert retry["batches"] == first["batches"] and retry["biz_date"] == "2026-11-02"
    assert retry["created_by"] == "author"


def test_a_run_is_retried_once_and_then_its_retry_is(cast, api_as, start_lake_run):
    client = api_as(cast.author)
    first = start_lake_run()
    _end_in_error(first)
    second = client.post(f"/api/v1/runs/{first}/retry/").json()["id"]
    again = client.post(f"/api/v1/runs/{first}/retry/")
    assert again.status_code == 409
    assert again.json()["message"] == (
        f"Run {first} was already retried as run {second} (attempt 2). Retry that one instead."
    )
    not_ended = client.post(f"/api/v1/runs/{second}/retry/")
    assert not_ended.status_code == 409
    assert not_ended.json()["message"] == f"Run {second} is still queued; only a run that has ended can be retried."
    Run.objects.get(pk=second).cancel(cast.author)
    third = client.post(f"/api/v1/runs/{second}/retry/")
    assert third.status_code == 202 and third.json()["attempt"] == 3 and third.json()["retry_of"] == second


def test_the_schema_documents_both_actions_and_their_refusals(cast, api_as):
    schema = api_as(cast.author).get("/api/schema/?format=json").json()
    for action, success in (("cancel", "200"), ("retry", "202")):
        operation = schema["paths"][f"/api/v1/runs/{{id}}/{action}/"]["post"]
        assert set(operation["responses"]) >= {success, "403", "404", "409"}
        assert "requestBody" not in operation
