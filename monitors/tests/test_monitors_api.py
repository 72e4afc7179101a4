"""Switching table monitors on and off through the API: the checks and schedule they are made of,
validation against the live catalog, who sees and who switches them, and the default schedule firing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from executions.models import Run
from monitors.models import Monitor
from rules.models import Check
from watching.firing import fire_due_schedules
from watching.models import Schedule

from .conftest import SCHEMA

pytestmark = pytest.mark.django_db

URL = "/api/v1/monitors/"


def _switch_on(client, **body):
    return client.post(URL, body, format="json")


def test_switching_on_a_table_makes_one_check_per_kind_and_an_hourly_schedule(cast, api_as, warehouse):
    response = _switch_on(
        api_as(cast.author), datasource=warehouse.pk, table=f"{SCHEMA}.orders", time_column="created_at"
    )

    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["kinds"] == ["volume", "freshness", "schema"]
    assert (body["table"], body["time_column"], body["volume_by_date"]) == (f"{SCHEMA}.orders", "created_at", True)
    assert (body["schedule"], body["timezone"], body["enabled"]) == ("0 * * * *", "UTC", True)
    assert body["schedule_description"] and len(body["next_runs"]) == 3
    assert body["volume_comparison"] == "anomaly"
    assert (body["freshness_max_age"], body["freshness_unit"]) == (24.0, "hours")
    by_kind = {c["kind"]: c for c in body["checks"]}
    assert {k: c["template"] for k, c in by_kind.items()} == {
        "volume": "table_count_check",
        "freshness": "freshness_check",
        "schema": "schema_change_check",
    }
    volume = Check.objects.get(pk=by_kind["volume"]["id"])
    assert volume.params["src_filter"] == "CAST(`created_at` AS DATE) = CAST('${biz_date}' AS DATE)"
    assert volume.params["comparison_type"] == "anomaly"
    freshness = Check.objects.get(pk=by_kind["freshness"]["id"])
    assert (freshness.params["src_field"], freshness.params["comparison_value"]) == ("created_at", 24)
    assert freshness.owner == cast.author and freshness.current_version == 1
    schedule = Schedule.objects.get(pk=body["schedule_id"])
    assert set(schedule.checks.values_list("pk", flat=True)) == {c["id"] for c in body["checks"]}
    assert schedule.owner == cast.author and schedule.enabled


def test_a_whole_datasource_is_every_table_and_freshness_is_left_out_where_the_time_column_is_missing(
    cast, api_as, warehouse
):
    response = _switch_on(api_as(cast.author), datasource=warehouse.pk, time_column="created_at")

    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["table"] is None
    tables = {(c["table"], c["kind"]) for c in body["checks"] if c["table"].startswith(f"{SCHEMA}.")}
    assert tables == {
        (f"{SCHEMA}.orders", "volume"),
        (f"{SCHEMA}.orders", "freshness"),
        (f"{SCHEMA}.orders", "schema"),
        (f"{SCHEMA}.empty_one", "volume"),
        (f"{SCHEMA}.empty_one", "schema"),
    }
    assert {"table": f"{SCHEMA}.empty_one", "kind": "freshness", "reason": "no time column"} in body["skipped"]
    listed = api_as(cast.author).get(URL, {"datasource": warehouse.pk, "table": f"{SCHEMA}.empty_one"}).json()
    assert [m["id"] for m in listed["results"]] == [body["id"]]


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"table": f"{SCHEMA}.nope"}, "table", "does not exist"),
        ({"table": f"{SCHEMA}.orders", "time_column": "label"}, "time_column", "not dates or timestamps"),
        ({"table": f"{SCHEMA}.orders", "time_column": "nope"}, "time_column", "has no column"),
        ({"table": f"{SCHEMA}.orders", "kinds": ["freshness"]}, "time_column", "needs its time column"),
        ({"table": f"{SCHEMA}.orders", "kinds": ["speed"]}, "kinds", "speed"),
        ({"table": f"{SCHEMA}.orders", "kinds": []}, "kinds", ""),
        ({"table": f"{SCHEMA}.orders", "schedule": "61 * * * *"}, "schedule", ""),
        ({"table": f"{SCHEMA}.orders", "timezone": "Mars/Olympus"}, "timezone", ""),
        ({"table": f"{SCHEMA}.orders", "volume_comparison": "fix_value"}, "volume_comparison", "history"),
        ({"table": f"{SCHEMA}.orders", "volume_by_date": True}, "volume_by_date", "time_column"),
        ({"table": f"{SCHEMA}.orders", "freshness_unit": "days"}, "freshness_unit", ""),
    ],
)
def test_a_monitor_that_does_not_fit_the_live_catalog_is_a_400_naming_the_field(
    cast, api_as, warehouse, body, field, words
):
    response = _switch_on(api_as(cast.author), datasource=warehouse.pk, **body)

    assert response.status_code == 400, response.json()
    assert set(response.json()["fields"]) == {field}
    assert words in " ".join(response.json()["fields"][field])
    assert not Monitor.objects.exists() and not Check.objects.exists() and not Schedule.objects.exists()


def test_an_outsider_neither_sees_nor_switches_monitors_and_a_reader_sees_but_may_not_switch(
    cast, api_as, warehouse, reader
):
    body = _switch_on(
        api_as(cast.author), datasource=warehouse.pk, table=f"{SCHEMA}.orders", time_column="created_at"
    ).json()
    detail = f"{URL}{body['id']}/"
    outsider = api_as(cast.outsider)

    assert outsider.get(URL).json()["count"] == 0
    assert outsider.get(detail).status_code == 404
    assert outsider.patch(detail, {"enabled": False}, format="json").status_code == 404
    assert outsider.delete(detail).status_code == 404
    refused = _switch_on(outsider, datasource=warehouse.pk, table=f"{SCHEMA}.orders")
    assert refused.status_code == 400 and set(refused.json()["fields"]) == {"datasource"}

    analyst = api_as(reader)
    seen = analyst.get(detail).json()
    assert seen["id"] == body["id"] and seen["may_change"] is False
    assert analyst.patch(detail, {"enabled": False}, format="json").status_code == 403
    assert analyst.delete(detail).status_code == 403
    assert _switch_on(analyst, datasource=warehouse.pk, table=f"{SCHEMA}.orders").status_code == 403
    assert Schedule.objects.get(pk=body["schedule_id"]).enabled
    assert api_as(cast.author).get(detail).json()["may_change"] is True


def test_switching_off_pauses_the_schedule_and_delete_hides_the_monitor_and_its_checks(cast, api_as, warehouse):
    client = api_as(cast.author)
    body = _switch_on(client, datasource=warehouse.pk, table=f"{SCHEMA}.orders", time_column="created_at").json()
    detail = f"{URL}{body['id']}/"

    off = client.patch(detail, {"enabled": False}, format="json")
    assert off.status_code == 200 and off.json()["enabled"] is False and off.json()["next_runs"] == []
    assert not Schedule.objects.get(pk=body["schedule_id"]).enabled
    moved = client.patch(detail, {"enabled": True, "schedule": "30 6 * * *"}, format="json").json()
    assert (moved["enabled"], moved["schedule"]) == (True, "30 6 * * *")

    Schedule.objects.filter(pk=moved["schedule_id"]).delete()  # through the schedules API, say
    assert client.get(detail).json()["enabled"] is False
    again = client.patch(detail, {"enabled": True}, format="json").json()
    assert again["enabled"] is True and again["schedule"] == "0 * * * *"
    assert set(Schedule.objects.get(pk=again["schedule_id"]).checks.values_list("pk", flat=True)) == {
        c["id"] for c in body["checks"]
    }

    assert client.delete(detail).status_code == 204
    assert client.get(detail).status_code == 404
    assert not Schedule.objects.filter(pk=again["schedule_id"]).exists()
    assert not Schedule.objects.filter(pk=body["schedule_id"]).exists()
    assert not Check.objects.alive().filter(pk__in=[c["id"] for c in body["checks"]]).exists()


def test_the_default_schedule_fires_a_run_of_the_monitors_checks_at_the_top_of_the_hour(cast, api_as, warehouse):
    body = _switch_on(
        api_as(cast.author), datasource=warehouse.pk, table=f"{SCHEMA}.orders", time_column="created_at"
    ).json()
    schedule = Schedule.objects.get(pk=body["schedule_id"])
    Schedule.objects.filter(pk=schedule.pk).update(armed_at=schedule.armed_at - timedelta(hours=2))
    slot = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)

    (run,) = fire_due_schedules(now=slot + timedelta(seconds=5))

    assert run.trigger == Run.Trigger.SCHEDULE and run.created_by == cast.author
    assert run.biz_date == slot.date() - timedelta(days=1)
    assert set(run.check_versions.values_list("parent_check_id", flat=True)) == {c["id"] for c in body["checks"]}


def test_a_batch_registered_for_a_monitored_table_is_validated_by_the_monitors_checks_too(cast, api_as, warehouse):
    client = api_as(cast.author)
    monitor = _switch_on(client, datasource=warehouse.pk, table=f"{SCHEMA}.orders", time_column="created_at").json()

    response = client.post(
        "/api/v1/batches/",
        {"datasource": warehouse.pk, "table": f"{SCHEMA}.orders", "partition": {"label": "x"}},
        format="json",
    )

    assert response.status_code == 201, response.json()
    checked = {v["check"] for v in response.json()["attempts"][0]["check_versions"]}
    assert checked == {c["id"] for c in monitor["checks"]}
    run = Run.objects.get(pk=response.json()["attempts"][0]["run"])
    assert sorted(d["filter"] for d in run.batches["definitions"].values()) == [
        "CAST(`created_at` AS DATE) = CAST('" + run.biz_date.isoformat() + "' AS DATE) AND `label` = 'x'",
        "`label` = 'x'",
    ]


def test_a_volume_monitor_judged_by_anomaly_detection_gets_the_detectors_knobs(cast, api_as, warehouse):
    response = _switch_on(
        api_as(cast.author),
        datasource=warehouse.pk,
        table=f"{SCHEMA}.orders",
        time_column="created_at",
        volume_comparison="anomaly",
    )
    assert response.status_code == 201, response.json()
    volume = next(c for c in response.json()["checks"] if c["kind"] == "volume")
    params = Check.objects.get(pk=volume["id"]).params
    assert params["comparison_type"] == "anomaly"
    assert {k: v for k, v in params.items() if k.startswith("anomaly_")} == {
        "anomaly_direction": "both",
        "anomaly_k_warn": 3.5,
        "anomaly_k_fail": 5,
        "anomaly_min_history": 14,
        "anomaly_min_change_pct": 2,
        "anomaly_seasonality": "auto",
    }
