"""A run's verdict says what its results say: `passed` only when every result passed; a result that
could not decide (no expected value yet) leaves the run `unknown` — never "Passed"."""

from __future__ import annotations

import pytest

from executions.models import Run
from executions.recording import record_results

pytestmark = pytest.mark.django_db


@pytest.fixture
def make_check(cast, api_as, pg_datasource):
    def make(name: str, comparison_type: str) -> int:
        params = {
            "src_datasource_id": pg_datasource.pk,
            "src_table": "dq_test.orders",
            "src_field": "customer_email",
            "comparison_type": comparison_type,
        }
        if comparison_type == "fix_value":
            params["comparison_value"] = 0
        response = api_as(cast.author).post(
            "/api/v1/checks/", {"name": name, "template": "null_check", "params": params}, format="json"
        )
        assert response.status_code == 201, response.json()
        return response.json()["id"]

    return make


def _finish(api, checks: list[int], statistics: dict[int, float]) -> dict:
    """Start a run of the checks and record the engine's document: each check measured its
    statistic (null count); the verdicts are the platform's."""
    run_id = api.post("/api/v1/runs/", {"checks": checks}, format="json").json()["id"]
    Run.claim(run_id, 1)
    run = Run.objects.get(pk=run_id)
    outcomes = {
        str(version.pk): {"status": "ok", "statistic": statistics[version.parent_check_id]}
        for version in run.check_versions.all()
    }
    record_results(run, {"checks": outcomes, "batches": {}})
    return api.get(f"/api/v1/runs/{run_id}/").json()


def test_a_run_whose_only_result_is_unknown_is_unknown_not_passed(cast, api_as, make_check):
    # A daily average with no earlier results has no expected value: the result is unknown.
    fresh = make_check("first of its kind", "daily_avg")

    run = _finish(api_as(cast.author), [fresh], {fresh: 1.0})

    assert [r["status"] for r in run["results"]] == ["unknown"]
    assert run["status"] == "unknown"


def test_a_pass_beside_an_unknown_leaves_the_run_unknown(cast, api_as, make_check):
    held = make_check("no nulls", "fix_value")  # 0 nulls − 0 ≤ 0: pass
    fresh = make_check("no history", "daily_avg")

    run = _finish(api_as(cast.author), [held, fresh], {held: 0.0, fresh: 1.0})

    assert sorted(r["status"] for r in run["results"]) == ["pass", "unknown"]
    assert run["status"] == "unknown"


def test_a_failure_beside_an_unknown_makes_the_run_failed(cast, api_as, make_check):
    broken = make_check("one null", "fix_value")  # 1 null − 0 > 0: fail
    fresh = make_check("no history yet", "daily_avg")

    run = _finish(api_as(cast.author), [broken, fresh], {broken: 1.0, fresh: 1.0})

    assert sorted(r["status"] for r in run["results"]) == ["fail", "unknown"]
    assert run["status"] == "failed"


def test_a_run_whose_every_result_passed_is_passed(cast, api_as, make_check):
    held = make_check("still no nulls", "fix_value")

    run = _finish(api_as(cast.author), [held], {held: 0.0})

    assert run["status"] == "passed"


def test_the_runs_list_filters_by_the_unknown_verdict(cast, api_as, make_check):
    fresh = make_check("unknown one", "daily_avg")
    run = _finish(api_as(cast.author), [fresh], {fresh: 1.0})

    listed = api_as(cast.author).get("/api/v1/runs/", {"status": "unknown"}).json()["results"]

    assert [r["id"] for r in listed] == [run["id"]]
