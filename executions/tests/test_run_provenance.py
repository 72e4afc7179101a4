"""A run's provenance names the engine that read each batch. Auto may choose pushdown for a
database table when the run starts, and the worker hand the batch to Spark once pushdown, seeing
the table's catalog, refuses one of its checks: the run then says spark, and why pushdown did not."""

from __future__ import annotations

import pytest

from executions.models import Run
from executions.recording import record_results

pytestmark = pytest.mark.django_db

REFUSAL = (
    "auto: spark, since pushdown cannot run a check of it (column customer_email has a case-insensitive collation)"
)


@pytest.fixture
def started_run(cast, api_as, pg_datasource) -> Run:
    params = {
        "src_datasource_id": pg_datasource.pk,
        "src_table": "dq_test.orders",
        "src_field": "customer_email",
        "comparison_type": "fix_value",
        "comparison_value": 0,
    }
    api = api_as(cast.author)
    check = api.post("/api/v1/checks/", {"name": "emails", "template": "null_check", "params": params}, format="json")
    run_id = api.post("/api/v1/runs/", {"checks": [check.json()["id"]]}, format="json").json()["id"]
    Run.claim(run_id, 1)
    return Run.objects.get(pk=run_id)


def test_a_batch_pushdown_handed_to_spark_shows_spark_and_why(cast, api_as, started_run):
    frozen = started_run.batches["definitions"]["b1"]
    assert frozen["engine"] == "pushdown"  # what auto chose when the run started
    version = started_run.check_versions.get()
    document = {  # what the worker's engines reported: Spark read b1, for the reason given
        "spark_application_id": "local-1764900000000",
        "batches": {"b1": {"rows": 3, "error": None, "engine": "spark", "engine_reason": REFUSAL}},
        "checks": {str(version.pk): {"status": "ok", "statistic": 1.0}},
        "plan": {"batches": {"b1": {"aggregate_passes": 1}}, "spark_jobs": 2},
    }

    record_results(started_run, document)
    run = api_as(cast.author).get(f"/api/v1/runs/{started_run.pk}/").json()

    assert run["spark_application_id"] == "local-1764900000000"
    batch = run["batches"]["b1"]
    assert (batch["engine"], batch["engine_chosen"], batch["engine_reason"]) == ("spark", "pushdown", REFUSAL)
    assert Run.objects.get(pk=started_run.pk).batches["definitions"]["b1"]["engine"] == "pushdown"  # frozen stays


def test_a_batch_read_by_the_engine_chosen_keeps_its_reason(cast, api_as, started_run):
    version = started_run.check_versions.get()
    chosen_reason = started_run.batches["definitions"]["b1"]["engine_reason"]
    document = {
        "spark_application_id": None,
        "batches": {"b1": {"rows": 3, "error": None, "engine": "pushdown"}},
        "checks": {str(version.pk): {"status": "ok", "statistic": 1.0}},
        "plan": {"batches": {}},
    }

    record_results(started_run, document)
    batch = api_as(cast.author).get(f"/api/v1/runs/{started_run.pk}/").json()["batches"]["b1"]

    assert (batch["engine"], batch["engine_reason"]) == ("pushdown", chosen_reason)
    assert "engine_chosen" not in batch
