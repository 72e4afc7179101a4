"""Monitors run like any check, on a real Celery worker against real PostgreSQL and files: their
statistics against truths worked out in Python from the fixtures, schema changes named column by
column, and a failing monitor opening an incident."""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

import pytest

from watching.alerting import alert_on_run
from watching.firing import fire
from watching.models import Schedule

from .conftest import ROWS, SCHEMA, YESTERDAY, alter, wait_for_run

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def _switch_on(client, **body) -> dict:
    response = client.post("/api/v1/monitors/", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def _run(client, checks: list[int], **extra) -> tuple[dict, datetime, datetime]:
    before = datetime.now(UTC)
    response = client.post("/api/v1/runs/", {"checks": checks, **extra}, format="json")
    assert response.status_code == 202, response.json()
    run = wait_for_run(client, response.json()["id"])
    return run, before, datetime.now(UTC)


def _results(run: dict) -> dict[int, dict]:
    return {r["check"]: r for r in run["results"]}


def _hours_since(moment: datetime, before: datetime, after: datetime) -> tuple[float, float]:
    """The age of `moment` (UTC, no zone) in hours, as seen at any time between before and after."""
    moment = moment.replace(tzinfo=UTC)
    return (before - moment).total_seconds() / 3600, (after - moment).total_seconds() / 3600


def test_a_postgresql_table_monitor_measures_volume_and_freshness_and_names_each_changed_column(
    cast, api_as, warehouse, celery_worker_process
):
    client = api_as(cast.author)
    monitor = _switch_on(client, datasource=warehouse.pk, table=f"{SCHEMA}.orders", time_column="created_at")
    ids = {c["kind"]: c["id"] for c in monitor["checks"]}

    run, before, after = _run(client, list(ids.values()), biz_date=YESTERDAY.isoformat())

    results = _results(run)
    volume, freshness, schema = results[ids["volume"]], results[ids["freshness"]], results[ids["schema"]]
    assert volume["statistics_value"] == sum(1 for row in ROWS if row[3].date() == YESTERDAY)
    assert volume["status"] == "unknown"  # the dynamic range is still learning
    low, high = _hours_since(max(row[3] for row in ROWS), before, after)
    assert low - 1e-6 <= freshness["statistics_value"] <= high + 1e-6
    assert freshness["status"] == "pass"  # about 5 hours, at most 24
    assert (schema["statistics_value"], schema["status"]) == (0, "pass")
    assert schema["message"].startswith("First schema seen (5 columns)")

    alter(
        f"ALTER TABLE {SCHEMA}.orders ADD COLUMN note text",
        f"ALTER TABLE {SCHEMA}.orders DROP COLUMN legacy",
        f"ALTER TABLE {SCHEMA}.orders ALTER COLUMN amount TYPE bigint",
    )
    changed_run = _run(client, [ids["schema"]])[0]
    alert_on_run(changed_run["id"])  # what the alerting task does on the default queue
    changed = _results(changed_run)[ids["schema"]]

    assert (changed["statistics_value"], changed["status"]) == (3, "fail")
    details = changed["details"]
    assert details["added"] == [{"name": "note", "type": "text"}]
    assert details["removed"] == [{"name": "legacy", "type": "integer"}]
    assert details["retyped"] == [{"name": "amount", "from": "integer", "to": "bigint"}]
    assert changed["message"] == "Added: note (text). Removed: legacy (integer). Retyped: amount integer → bigint."
    incidents = client.get("/api/v1/incidents/", {"check": ids["schema"]}).json()["results"]
    assert [(i["status"], i["outcome"]) for i in incidents] == [("open", "fail")]

    unchanged_run = _run(client, [ids["schema"]])[0]
    alert_on_run(unchanged_run["id"])
    unchanged = _results(unchanged_run)[ids["schema"]]

    assert (unchanged["statistics_value"], unchanged["status"]) == (0, "pass")
    assert unchanged["details"]["baseline"]["result"] == changed["id"]
    incidents = client.get("/api/v1/incidents/", {"check": ids["schema"]}).json()["results"]
    assert [i["status"] for i in incidents] == ["resolved"]


def test_file_monitors_count_rows_and_read_freshness_from_a_time_column_or_the_files_modification_time(
    cast, api_as, make_datasource, file_roots, celery_worker_process
):
    import pyarrow as pa
    import pyarrow.parquet as pq

    now = datetime.now(UTC).replace(microsecond=0, tzinfo=None)
    happened = [now - timedelta(hours=h) for h in (50, 7, 30, 2)]  # the newest two hours ago
    (file_roots / "lake" / "events").mkdir(parents=True)
    pq.write_table(
        pa.table({"id": [1, 2, 3, 4], "happened_at": pa.array(happened, pa.timestamp("us"))}),
        file_roots / "lake" / "events" / "part-0.parquet",
    )
    (file_roots / "drop").mkdir()
    visits = file_roots / "drop" / "visits.csv"
    visits.write_text("visit_id,page\n1,home\n2,cart\n3,home\n4,pay\n5,home\n")
    modified = now - timedelta(hours=3)
    os.utime(visits, (time.time(), modified.replace(tzinfo=UTC).timestamp()))
    lake = make_datasource(name="lake", type="file", format="parquet", path=str(file_roots / "lake"))
    drop = make_datasource(name="drop", type="file", format="csv", path=str(file_roots / "drop"))
    lake.owners.add(cast.author)
    drop.owners.add(cast.author)
    client = api_as(cast.author)
    events = _switch_on(client, datasource=lake.pk, table="events", time_column="happened_at", volume_by_date=False)
    csv = _switch_on(client, datasource=drop.pk, table="visits", kinds=["volume", "freshness"], freshness_max_age=2)
    ids = {(m["datasource"], c["kind"]): c["id"] for m in (events, csv) for c in m["checks"]}
    assert next(c for c in csv["checks"] if c["kind"] == "freshness")["template"] == "file_freshness_check"

    run, before, after = _run(client, list(ids.values()))

    results = _results(run)
    assert results[ids[(lake.pk, "volume")]]["statistics_value"] == len(happened)
    low, high = _hours_since(max(happened), before, after)
    assert low - 1e-6 <= results[ids[(lake.pk, "freshness")]]["statistics_value"] <= high + 1e-6
    assert results[ids[(lake.pk, "schema")]]["status"] == "pass"
    assert results[ids[(drop.pk, "volume")]]["statistics_value"] == len(visits.read_text().splitlines()) - 1
    file_age = results[ids[(drop.pk, "freshness")]]
    low, high = _hours_since(modified, before, after)
    assert low - 1e-6 <= file_age["statistics_value"] <= high + 1e-6
    assert file_age["status"] == "fail"  # three hours old, at most two allowed
    assert file_age["verdict"]


def test_the_monitors_schedule_fires_a_run_that_the_worker_records(cast, api_as, warehouse, celery_worker_process):
    client = api_as(cast.author)
    monitor = _switch_on(client, datasource=warehouse.pk, table=f"{SCHEMA}.orders", kinds=["volume", "schema"])
    schedule = Schedule.objects.get(pk=monitor["schedule_id"])
    slot = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)

    run = fire(schedule, slot)

    body = wait_for_run(client, run.pk)
    # A volume monitor has no history on its first run: that result cannot decide, nor then the run.
    assert body["trigger"] == "schedule" and body["status"] in ("passed", "failed", "unknown")
    counted = next(r for r in body["results"] if r["template"] == "table_count_check")
    assert counted["statistics_value"] == len(ROWS)  # no time column: every row
