"""Anomaly detection as a check's comparison, through the API: a row-count check over six weeks
of history (recorded as a worker records results), judged by a real run against PostgreSQL; the
stored range and evidence, the trend's bands, feedback and the check's false-alarm rate."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

import pytest

from executions.models import Result, Run, RunDatasource
from executions.recording import record_results
from rules.models import Check
from watching.alerting import alert_on_run

from .conftest import SCHEMA, TODAY, create_check, start_and_wait

ANOMALY = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "block",
    "comparison_type": "anomaly",
}
# Six weeks of daily counts around 40 (39, 40, 41 in turn); the real table holds 10 rows.
DAYS = 42
HISTORY = {TODAY - timedelta(days=DAYS - i): 40 + (i % 3) - 1 for i in range(DAYS)}
BACKFILL_DAY = TODAY - timedelta(days=10)


def earlier_run(check: Check, day: date, value: float, trigger: str = Run.Trigger.SCHEDULE) -> Run:
    """A finished run of `check` on `day` that measured `value`, recorded as a worker records the
    engine's result document (its own verdict included)."""
    version = check.current()
    run = Run.objects.create(
        status=Run.Status.RUNNING,
        trigger=trigger,
        biz_date=day,
        data_time=datetime.combine(day, time.min, tzinfo=UTC),
        parameters={"biz_date": day.isoformat()},
        batches={"definitions": {}, "assignments": {str(version.pk): {"batch": "b1", "target_batch": None}}},
        rule_set_hash=version.content_hash,
    )
    run.check_versions.set([version])
    RunDatasource.objects.create(run=run, datasource_id=check.params["src_datasource_id"])  # what it read
    record_results(run, {"checks": {str(version.pk): {"status": "ok", "statistic": value}}, "batches": {}})
    return run


def incident_of(client, run_id: int, check_id: int) -> dict:
    """The check's incident once the run's alerts were handled (the alert task's work, done here:
    the test worker consumes the runs' queue; a second call for a run does nothing)."""
    alert_on_run(run_id)
    rows = client.get(f"/api/v1/incidents/?check={check_id}").json()
    rows = rows["results"] if isinstance(rows, dict) else rows
    assert len(rows) == 1, rows
    return rows[0]


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_row_count_drop_is_an_anomaly_with_its_range_and_evidence_and_feedback_teaches_the_detector(
    cast, api_as, warehouse, celery_worker_process
):
    client = api_as(cast.author)
    check_id = create_check(
        client, "orders per day", "table_count_check", src_datasource_id=warehouse.pk, src_table=f"{SCHEMA}.orders",
        **ANOMALY,
    )  # fmt: skip
    check = Check.objects.get(pk=check_id)
    assert {k: v for k, v in check.params.items() if k.startswith("anomaly_")} == {
        "anomaly_direction": "both",
        "anomaly_k_warn": 3.5,
        "anomaly_k_fail": 5,
        "anomaly_min_history": 14,
        "anomaly_min_change_pct": 2,
        "anomaly_seasonality": "auto",
    }
    history = {day: earlier_run(check, day, value) for day, value in HISTORY.items()}
    backfill = earlier_run(check, BACKFILL_DAY, 400, trigger=Run.Trigger.BACKFILL)
    # The first 14 days were still learning (unknown); every later day of 39–41 passed.
    statuses = [history[day].results.get().status for day in sorted(HISTORY)]
    assert statuses == ["unknown"] * 14 + ["pass"] * (DAYS - 14)

    run = start_and_wait(client, [check_id], biz_date=str(TODAY))
    result = run["results"][0]
    assert result["statistics_value"] == 10  # the ten rows of dq_e2e.orders
    evidence = result["comparison_source"]
    assert evidence["source"] == "anomaly" and evidence["algorithm_version"] == "anomaly-v1"
    assert evidence["verdict"] == "fail" and evidence["severity"] == "fail" and evidence["side"] == "below"
    warn_low, warn_high = evidence["warn_range"]
    fail_low, fail_high = evidence["fail_range"]
    # Every earlier value (39 to 41) lies in the range; 10 lies far below its fail bound.
    assert 10 < fail_low < warn_low <= 39 and 41 <= warn_high < fail_high
    assert evidence["expected_range"] == evidence["warn_range"]
    assert result["comparison_value"] == pytest.approx(evidence["centre"]) and 39 <= evidence["centre"] <= 41
    # Learned from the 42 earlier results by their ids, oldest first; the backfill left out.
    trained = [r.results.get().pk for _, r in sorted(history.items())]
    assert [e["result"] for e in evidence["training"]] == trained
    assert [(e["result"], e["reason"]) for e in evidence["excluded"]] == [(backfill.results.get().pk, "backfill")]
    assert evidence["learned"]["sentence"] == "learned from 42 of 43 earlier results: 1 backfill excluded"
    assert result["status"] == "fail" and result["blocks"] is True
    assert result["verdict"].startswith(f"10 is below the expected range [{warn_low:,.2f}, {warn_high:,.2f}]")
    assert result["verdict"].endswith("→ fail") and "anomaly detection anomaly-v1" in result["verdict"]

    # The trend draws, for that point, the bands it was judged against.
    point = client.get(f"/api/v1/checks/{check_id}/history/").json()[-1]
    assert point["result"] == result["id"]
    assert point["passing_band"] == {"low": warn_low, "high": warn_high, "passes": "inside"}
    assert point["fail_band"] == {"low": fail_low, "high": fail_high, "passes": "inside"}

    # Feedback: only those who may handle the check's incidents; a verdict it knows.
    incident = incident_of(client, run["id"], check_id)
    assert incident["status"] == "open"
    url = f"/api/v1/results/{result['id']}/feedback/"
    assert api_as(cast.outsider).post(url, {"verdict": "expected"}, format="json").status_code == 403
    bad = client.post(url, {"verdict": "fine"}, format="json")
    assert bad.status_code == 400 and "verdict" in bad.json()["fields"]
    answer = client.post(url, {"verdict": "expected"}, format="json")
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert body["feedback"]["verdict"] == "expected" and body["feedback"]["given_by"] == "author"
    assert body["incident_resolved"] == incident["id"]
    assert client.get(f"/api/v1/incidents/{incident['id']}/").json()["status"] == "resolved"
    # One anomaly judged, one marked expected: a false-alarm rate of 1.
    rate = {"check": check_id, "anomalies_judged": 1, "marked_expected": 1, "marked_incident": 0}
    assert body["check"] == {**rate, "false_alarm_rate": 1.0}
    assert client.get(f"/api/v1/checks/{check_id}/false-alarms/").json() == {**rate, "false_alarm_rate": 1.0}

    # The next run learns from the point marked expected.
    second = start_and_wait(client, [check_id], biz_date=str(TODAY))["results"][0]
    learned = second["comparison_source"]["training"]
    assert learned[-1]["result"] == result["id"] and learned[-1]["feedback"] == "expected"
    assert len(learned) == 43
    # Marked incident, a point stays out of what later runs learn.
    marked = client.post(f"/api/v1/results/{second['id']}/feedback/", {"verdict": "incident"}, format="json")
    assert marked.status_code == 200, marked.json()
    third = start_and_wait(client, [check_id], biz_date=str(TODAY))["results"][0]
    reasons = {e["result"]: e["reason"] for e in third["comparison_source"]["excluded"]}
    assert reasons[second["id"]] == "marked incident"
    assert Result.objects.get(pk=second["id"]).feedback.verdict == "incident"


@pytest.mark.django_db
def test_between_the_warn_and_fail_bands_a_block_check_warns_and_does_not_block(cast, api_as, warehouse):
    check = Check.objects.get(
        pk=create_check(
            api_as(cast.author), "orders per day", "table_count_check", src_datasource_id=warehouse.pk,
            src_table=f"{SCHEMA}.orders", **ANOMALY,
        )
    )  # fmt: skip
    for day, value in HISTORY.items():
        earlier_run(check, day, value)
    # The bands as the detector drew them for a normal day; then a day halfway between them.
    probe = earlier_run(check, TODAY, 40).results.get().comparison_source
    (warn_low, _), (fail_low, _) = probe["warn_range"], probe["fail_range"]
    result = earlier_run(check, TODAY + timedelta(days=1), (warn_low + fail_low) / 2).results.get()
    assert result.status == "fail" and result.comparison_source["severity"] == "warn"
    assert result.failure_strategy == "alert" and not result.blocks  # the check itself blocks
    assert result.verdict.endswith("→ warn (an alert; it never blocks)")
    assert check.params["failure_strategy"] == "block"


@pytest.mark.django_db
def test_feedback_the_detector_cannot_take_is_a_400_naming_the_verdict(cast, api_as, warehouse):
    client = api_as(cast.author)
    check = Check.objects.get(
        pk=create_check(
            client, "orders per day", "table_count_check", src_datasource_id=warehouse.pk,
            src_table=f"{SCHEMA}.orders", **ANOMALY,
        )
    )  # fmt: skip
    runs = [earlier_run(check, day, value) for day, value in HISTORY.items()]
    learning, passed = runs[0].results.get(), runs[-1].results.get()
    assert (learning.status, passed.status) == ("unknown", "pass")

    def refused(result: Result, verdict: str) -> list[str]:
        answer = client.post(f"/api/v1/results/{result.pk}/feedback/", {"verdict": verdict}, format="json")
        assert answer.status_code == 400, answer.json()
        return answer.json()["fields"]["verdict"]

    assert refused(passed, "expected") == [
        "Only an anomaly can be a false alarm; this result passed. Say 'incident' if it missed one."
    ]
    assert refused(learning, "incident") == ["Anomaly detection did not judge this result (it was still learning)."]
    # A pass the detector should have flagged can be marked incident: it stays out of training.
    assert (
        client.post(f"/api/v1/results/{passed.pk}/feedback/", {"verdict": "incident"}, format="json").status_code == 200
    )
    later = earlier_run(check, TODAY, 40).results.get().comparison_source
    assert {e["result"]: e["reason"] for e in later["excluded"]}[passed.pk] == "marked incident"
    state = client.get(f"/api/v1/results/{passed.pk}/feedback/").json()
    assert state["feedback"]["verdict"] == "incident" and state["may_give_feedback"] is True
    assert state["check"]["marked_incident"] == 1 and state["check"]["false_alarm_rate"] is None


@pytest.mark.django_db
def test_a_fail_band_narrower_than_the_warn_band_is_refused_field_by_field(cast, api_as, warehouse):
    response = api_as(cast.author).post(
        "/api/v1/checks/",
        {
            "name": "orders per day",
            "template": "table_count_check",
            "params": {
                "src_datasource_id": warehouse.pk, "src_table": f"{SCHEMA}.orders", **ANOMALY,
                "anomaly_k_warn": 4, "anomaly_k_fail": 3, "anomaly_direction": "sideways",
            },
        },
        format="json",
    )  # fmt: skip
    assert response.status_code == 400
    fields = response.json()["fields"]["params"]
    assert set(fields) == {"anomaly_direction"}  # one field at a time: choices first
    response = api_as(cast.author).post(
        "/api/v1/checks/",
        {
            "name": "orders per day",
            "template": "table_count_check",
            "params": {
                "src_datasource_id": warehouse.pk, "src_table": f"{SCHEMA}.orders", **ANOMALY,
                "anomaly_k_warn": 4, "anomaly_k_fail": 3,
            },
        },
        format="json",
    )  # fmt: skip
    assert response.status_code == 400
    assert response.json()["fields"]["params"] == {"anomaly_k_fail": ["At least the warn band's k, at most 100."]}
