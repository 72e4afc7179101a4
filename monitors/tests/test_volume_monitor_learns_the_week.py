"""A volume monitor judges each day's row count by anomaly detection learned from the table's own
weekly rhythm: a quiet Sunday is normal, the same drop on a Tuesday is an anomaly, and a day a
user marks "expected" becomes part of what later runs learn. Six weeks of history are recorded
as a worker records results; the judged days are real runs counting real PostgreSQL rows."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import psycopg
import pytest

from conftest import PG, PG_PROBE_DATASOURCE, PROBE_USER
from executions.tests.test_anomaly_end_to_end import earlier_run
from rules.models import Check

from .conftest import wait_for_run

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

SCHEMA = "dq_weekly"
TODAY = datetime.now(UTC).date()
SUNDAY = TODAY - timedelta(days=(TODAY.weekday() - 6) % 7 + 14)  # a Sunday at least two weeks ago
TUESDAY = SUNDAY + timedelta(days=2)
QUIET = 600  # rows on the judged Sunday and on the judged Tuesday


def usual_count(day: date) -> int:
    """Six weeks before the judged Sunday: ~1,000 orders on weekdays and Saturdays, ~600 on Sundays."""
    wobble = (day.toordinal() % 3) - 1
    return 600 + 5 * wobble if day.weekday() == 6 else 1000 + 10 * wobble


@pytest.fixture
def weekly_orders(shared_servers_lock, cast, pg_server, make_datasource):
    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        conn.execute(f"CREATE TABLE {SCHEMA}.orders (id integer, created_at timestamp)")
        rows = [
            (i, datetime.combine(day, datetime.min.time()) + timedelta(minutes=i))
            for day in (SUNDAY, TUESDAY)
            for i in range(QUIET)
        ]
        with conn.cursor() as cur:
            cur.executemany(f"INSERT INTO {SCHEMA}.orders VALUES (%s, %s)", rows)
        conn.execute(f"GRANT USAGE ON SCHEMA {SCHEMA} TO {PROBE_USER}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {PROBE_USER}")
        datasource = make_datasource(name="shop", allowed_groups=[cast.analysts], **PG_PROBE_DATASOURCE)
        datasource.owners.add(cast.author)
        yield datasource
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


def _judge(client, check_id: int, day: date) -> dict:
    response = client.post("/api/v1/runs/", {"checks": [check_id], "biz_date": day.isoformat()}, format="json")
    assert response.status_code == 202, response.json()
    return wait_for_run(client, response.json()["id"])["results"][0]


def test_a_quiet_sunday_passes_the_same_drop_on_a_tuesday_is_an_anomaly_and_expected_points_are_learned(
    cast, api_as, weekly_orders, celery_worker_process
):
    client = api_as(cast.author)
    body = {
        "datasource": weekly_orders.pk,
        "table": f"{SCHEMA}.orders",
        "kinds": ["volume"],
        "time_column": "created_at",
    }
    monitor = client.post("/api/v1/monitors/", body, format="json")
    assert monitor.status_code == 201, monitor.json()
    assert monitor.json()["volume_comparison"] == "anomaly"  # the default
    volume = Check.objects.get(pk=monitor.json()["checks"][0]["id"])
    history = [SUNDAY - timedelta(days=n) for n in range(42, 0, -1)]
    for day in history:
        earlier_run(volume, day, usual_count(day))

    sunday = _judge(client, volume.pk, SUNDAY)
    assert sunday["statistics_value"] == QUIET  # the rows created that Sunday
    assert sunday["status"] == "pass", sunday["verdict"]
    low, high = sunday["comparison_source"]["warn_range"]
    assert low < QUIET < high < 1000 - 10  # a Sunday's range: below every weekday seen

    tuesday = _judge(client, volume.pk, TUESDAY)
    assert tuesday["statistics_value"] == QUIET
    assert tuesday["status"] == "fail"
    evidence = tuesday["comparison_source"]
    assert evidence["source"] == "anomaly" and evidence["side"] == "below"
    assert 600 + 5 < evidence["warn_range"][0] and evidence["warn_range"][1] > 1000 + 10  # a weekday's range
    assert f"{QUIET} is below the expected range" in tuesday["verdict"]

    feedback = client.post(f"/api/v1/results/{tuesday['id']}/feedback/", {"verdict": "expected"}, format="json")
    assert feedback.status_code == 200, feedback.json()
    # The next Tuesday (no rows: an outage) learns from the Tuesday marked expected.
    again = _judge(client, volume.pk, TUESDAY + timedelta(days=7))
    learned = {point["result"]: point.get("feedback") for point in again["comparison_source"]["training"]}
    assert learned[tuesday["id"]] == "expected"
    assert learned[sunday["id"]] is None
    assert again["statistics_value"] == 0 and again["status"] == "fail"
