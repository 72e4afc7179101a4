"""GET /api/v1/runs/: each row of the list is the run as its own page (GET …/{id}/) shows it,
results counted by status instead of listed, whoever asks and in whatever time zone."""

from __future__ import annotations

from collections import Counter

import pytest

from executions.models import Run
from executions.recording import fail_run, record_results
from executions.tests.conftest import LAKE_VERDICT, create_check

pytestmark = pytest.mark.django_db


@pytest.fixture
def runs_of_every_kind(cast, api_as, lake, lake_check):
    """Runs in every state a list row can show: passed and failed results, an error end, its
    retry (queued), a cancelled run, and one whose author was removed."""
    author, admin = api_as(cast.author), api_as(cast.admin)
    params = {"src_datasource_id": lake.pk, "src_table": "orders", "src_field": "order_id", **LAKE_VERDICT}
    ids_check = create_check(author, "ids present", "null_check", **params)

    def start(client, checks: list[int]) -> int:
        response = client.post("/api/v1/runs/", {"checks": checks}, format="json")
        assert response.status_code == 202, response.json()
        return response.json()["id"]

    recorded = start(author, [lake_check, ids_check])
    run = Run.objects.get(pk=recorded)
    Run.claim(recorded, 1, "worker-a")
    outcomes = {
        str(v.pk): {"status": "ok", "statistic": float(v.parent_check_id == lake_check)}
        for v in run.check_versions.all()
    }
    record_results(run, {"checks": outcomes, "batches": {}})

    errored = start(author, [lake_check])
    Run.claim(errored, 1, "worker-b")
    fail_run(Run.objects.get(pk=errored), "The engine could not run the checks: boom")
    assert admin.post(f"/api/v1/runs/{errored}/retry/").status_code == 202

    cancelled = start(admin, [ids_check, lake_check])
    assert admin.post(f"/api/v1/runs/{cancelled}/cancel/").status_code == 200

    orphaned = start(admin, [ids_check])
    Run.objects.filter(pk=orphaned).update(created_by=None)
    return lake_check


def _as_its_own_page_shows_it(client, run_id: int) -> dict:
    """The run's page without its results, and the results counted by status. The list orders a
    run's checks by id (its page, by name)."""
    page = client.get(f"/api/v1/runs/{run_id}/").json()
    counts = Counter(result["status"] for result in page.pop("results"))
    page["checks"].sort(key=lambda c: (c["check"], c["version"]))
    return {**page, "result_counts": dict(counts)}


@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
@pytest.mark.parametrize("who", ["author", "admin"])
def test_every_row_of_the_runs_list_is_the_run_as_its_own_page_shows_it(
    cast, api_as, runs_of_every_kind, settings, zone, who
):
    settings.TIME_ZONE = zone
    client = api_as(getattr(cast, who))
    rows = client.get("/api/v1/runs/").json()["results"]

    assert len(rows) == Run.objects.count() == 5
    assert [row["id"] for row in rows] == list(Run.objects.order_by("-created_at", "-id").values_list("pk", flat=True))
    for row in rows:
        expected = _as_its_own_page_shows_it(client, row["id"])
        assert list(row) == list(expected), "the same fields in the same order"
        assert row == expected
    assert {row["status"] for row in rows} == {"failed", "error", "queued", "cancelled"}
    assert any(row["created_by"] is None for row in rows) and any(row["retry_of"] for row in rows)
    assert any(row["result_counts"] == {"pass": 1, "fail": 1} for row in rows)


def test_the_runs_of_one_check_are_listed_once_each_newest_first(cast, api_as, runs_of_every_kind):
    lake_check = runs_of_every_kind
    client = api_as(cast.admin)
    body = client.get("/api/v1/runs/", {"check": lake_check, "page_size": 2}).json()
    ran_it = Run.objects.filter(check_versions__parent_check_id=lake_check).order_by("-created_at", "-id")

    assert body["count"] == ran_it.count() == 4
    assert [row["id"] for row in body["results"]] == list(ran_it.values_list("pk", flat=True)[:2])
