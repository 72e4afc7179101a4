"""One real run (Celery worker on Redis, Spark, PostgreSQL) on a restricted datasource, then the
check moves to an open one: the run, its results and its error rows stay with the group."""

from __future__ import annotations

import pytest

from conftest import PG, PROBE_PASSWORD, PROBE_USER
from executions.models import Run

from .conftest import SCHEMA, VERDICT
from .conftest import create_check as _check
from .conftest import start_and_wait as _run

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def test_a_real_run_of_a_restricted_datasource_stays_hidden_from_outsiders_after_its_check_moves(
    cast, api_as, warehouse, make_datasource, celery_worker_process
):
    restricted = make_datasource(
        name="warehouse-restricted",
        type="postgresql",
        host=PG["host"],
        port=PG["port"],
        database=PG["dbname"],
        username=PROBE_USER,
        password=PROBE_PASSWORD,
        allowed_groups=[cast.analysts],
    )
    member, outsider = api_as(cast.author), api_as(cast.outsider)
    check = _check(
        member,
        "emails present",
        "null_check",
        src_datasource_id=restricted.pk,
        src_table=f"{SCHEMA}.orders",
        src_field="customer_email",
        **VERDICT,
    )
    run = _run(member, [check])
    assert run["status"] == "failed", run
    result = run["results"][0]["id"]
    assert member.get(f"/api/v1/results/{result}/error-rows/").json()["count"] == 2
    assert list(Run.objects.get(pk=run["id"]).datasources.all()) == [restricted]

    moved = member.patch(f"/api/v1/checks/{check}/", {"params": {"src_datasource_id": warehouse.pk}}, format="json")
    assert moved.status_code == 200, moved.json()

    assert outsider.get(f"/api/v1/checks/{check}/").status_code == 200  # it reads the open one now
    for path in (f"runs/{run['id']}/", f"results/{result}/", f"results/{result}/error-rows/"):
        assert outsider.get(f"/api/v1/{path}").status_code == 404, path
    assert outsider.get(f"/api/v1/results/{result}/error-rows.csv").status_code == 404
    assert outsider.get(f"/api/v1/checks/{check}/history/").json() == []
    assert [v["number"] for v in outsider.get(f"/api/v1/checks/{check}/versions/").json()] == [2]
    assert [v["number"] for v in member.get(f"/api/v1/checks/{check}/versions/").json()] == [1, 2]
