"""Run and wait as workflow schedulers use it, against the live server and a real Celery worker:
a DolphinScheduler HTTP task (one request, judged by status code or body marker) and a Shell
task (clients/dq_client.py in a subprocess, judged by exit code), on real PostgreSQL tables."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
import requests

from conftest import PG, PG_PROBE_DATASOURCE, PROBE_USER

from .conftest import create_check

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "dq_client.py"
SCHEMA = "dq_wait"
NO_NULLS = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "comparison_type": "fix_value",
    "comparison_value": 0,
}


@pytest.fixture
def tables(shared_servers_lock):
    """`customers` with emails missing on purpose, `products` complete, `doomed` (dropped by a test
    after its check was made)."""
    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        conn.execute(f"CREATE TABLE {SCHEMA}.customers (id int, email text)")
        conn.execute(
            f"INSERT INTO {SCHEMA}.customers VALUES (1, 'a@x.io'), (2, NULL), (3, 'c@x.io'), (4, NULL), (5, NULL)"
        )
        conn.execute(f"CREATE TABLE {SCHEMA}.products (id int, name text)")
        conn.execute(f"INSERT INTO {SCHEMA}.products VALUES (1, 'tea'), (2, 'rice')")
        conn.execute(f"CREATE TABLE {SCHEMA}.doomed (id int, name text)")
        conn.execute(f"GRANT USAGE ON SCHEMA {SCHEMA} TO {PROBE_USER}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {PROBE_USER}")
        yield conn
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


@pytest.fixture
def shop(pg_server, tables, make_datasource):
    return make_datasource(name="shop", **PG_PROBE_DATASOURCE)


@pytest.fixture
def checks(cast, api_as, shop, tables) -> dict[str, int]:
    client = api_as(cast.author)

    def null_check(name, table, field, strategy):
        return create_check(
            client, name, "null_check", src_datasource_id=shop.pk, src_table=f"{SCHEMA}.{table}",
            src_field=field, failure_strategy=strategy, **NO_NULLS,
        )  # fmt: skip

    return {
        "names present": null_check("names present", "products", "name", "block"),
        "emails present": null_check("emails present", "customers", "email", "block"),
        "emails present (alert)": null_check("emails present (alert)", "customers", "email", "alert"),
        "doomed names": null_check("doomed names", "doomed", "name", "alert"),
    }


def token_for(base: str, username: str = "author", password: str = "author-pass-123") -> str:
    response = requests.post(
        f"{base}/api/v1/auth/token/", json={"username": username, "password": password}, timeout=30
    )
    assert response.status_code == 200, response.text
    return response.json()["token"]


def run_and_wait(live_server, token: str, checks: list[int], wait: int) -> requests.Response:
    """One request, as a DolphinScheduler HTTP task sends it (socket timeout above the wait)."""
    return requests.post(
        f"{live_server.url}/api/v1/runs/?wait={wait}",
        json={"checks": checks},
        headers={"Authorization": f"Token {token}"},
        timeout=wait + 60,
    )


def null_emails(conn) -> int:
    return conn.execute(f"SELECT count(*) FROM {SCHEMA}.customers WHERE email IS NULL").fetchone()[0]


def test_a_dolphinscheduler_http_task_gets_200_and_the_passed_marker_for_a_passing_run(
    live_server, checks, celery_worker_process
):
    token = token_for(live_server.url)

    answer = run_and_wait(live_server, token, [checks["names present"]], wait=240)

    assert answer.status_code == 200, answer.text  # STATUS_CODE_DEFAULT
    assert "DQ_VERDICT=PASSED" in answer.text  # BODY_CONTAINS
    body = answer.json()
    assert (body["status"], body["verdict"], body["blocking"]) == ("passed", "passed", False)
    assert [(r["name"], r["status"], r["statistic"]) for r in body["results"]] == [("names present", "pass", 0)]
    assert body["url"] == f"{live_server.url}/api/v1/runs/{body['run']}/"


def test_a_failing_block_check_answers_409_and_the_blocked_marker_with_the_null_count(
    live_server, checks, tables, celery_worker_process
):
    token = token_for(live_server.url)

    answer = run_and_wait(live_server, token, [checks["names present"], checks["emails present"]], wait=240)

    assert answer.status_code == 409, answer.text
    assert "DQ_VERDICT=BLOCKED" in answer.text and "DQ_VERDICT=PASSED" not in answer.text
    body = answer.json()
    assert (body["status"], body["verdict"], body["blocking"]) == ("failed", "blocked", True)
    results = {r["name"]: r for r in body["results"]}
    assert results["emails present"]["status"] == "fail" and results["emails present"]["blocks"] is True
    assert results["emails present"]["statistic"] == null_emails(tables) == 3
    assert results["names present"]["status"] == "pass"
    assert "emails present" in body["message"]


def test_a_failing_alert_check_keeps_the_task_successful_and_counts_as_an_alert(
    live_server, checks, tables, celery_worker_process
):
    token = token_for(live_server.url)

    answer = run_and_wait(live_server, token, [checks["emails present (alert)"]], wait=240)

    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["status"], body["verdict"], body["marker"], body["alerts"]) == (
        "failed",
        "passed",
        "DQ_VERDICT=PASSED",
        1,
    )
    assert body["results"][0]["statistic"] == null_emails(tables)


def test_a_check_whose_table_was_dropped_answers_424_and_the_error_marker_beside_its_healthy_sibling(
    live_server, checks, tables, celery_worker_process
):
    tables.execute(f"DROP TABLE {SCHEMA}.doomed")
    token = token_for(live_server.url)

    answer = run_and_wait(live_server, token, [checks["names present"], checks["doomed names"]], wait=240)

    assert answer.status_code == 424, answer.text
    assert "DQ_VERDICT=ERROR" in answer.text
    body = answer.json()
    assert (body["status"], body["verdict"]) == ("error", "error")
    results = {r["name"]: r for r in body["results"]}
    assert results["names present"]["status"] == "pass" and results["names present"]["statistic"] == 0
    assert results["doomed names"]["status"] == "error" and "doomed" in results["doomed names"]["message"]
    assert "Traceback" not in answer.text


def test_a_wait_too_short_answers_408_and_the_timeout_marker_and_the_run_finishes_where_it_says_to_poll(
    live_server, checks, celery_worker_process
):
    token = token_for(live_server.url)

    answer = run_and_wait(live_server, token, [checks["names present"]], wait=0)

    assert answer.status_code == 408, answer.text
    body = answer.json()
    assert (body["verdict"], body["marker"]) == ("timeout", "DQ_VERDICT=TIMEOUT")
    assert body["status"] in ("queued", "running") and body["results"] == []
    assert body["poll"].startswith(f"{live_server.url}/api/v1/runs/{body['run']}/verdict/?wait=")
    later = requests.get(
        body["poll"].split("?")[0] + "?wait=240", headers={"Authorization": f"Token {token}"}, timeout=300
    )
    assert later.status_code == 200, later.text
    assert (later.json()["run"], later.json()["status"], later.json()["marker"]) == (
        body["run"],
        "passed",
        "DQ_VERDICT=PASSED",
    )


def test_a_wait_over_the_maximum_is_a_400_naming_wait_and_starts_nothing(live_server, checks, settings):
    settings.DQ_RUN_WAIT_MAX = 60
    token = token_for(live_server.url)
    from executions.models import Run

    answer = run_and_wait(live_server, token, [checks["names present"]], wait=61)

    assert answer.status_code == 400, answer.text
    assert "60" in answer.json()["fields"]["wait"][0]
    assert Run.objects.count() == 0


def test_a_waiting_request_beyond_the_slots_is_refused_with_429_and_starts_nothing(live_server, checks, settings):
    from executions import waiting
    from executions.models import Run

    settings.DQ_RUN_WAIT_SLOTS = 1
    waiting.slots = waiting._Slots()  # made again for the one slot
    assert waiting.slots.take()  # another request is waiting
    try:
        answer = run_and_wait(live_server, token_for(live_server.url), [checks["names present"]], wait=5)
    finally:
        waiting.slots.give_back()
        waiting.slots = waiting._Slots()

    assert answer.status_code == 429, answer.text
    assert answer.headers["Retry-After"].isdigit() and answer.json()["marker"] == "DQ_VERDICT=BUSY"
    assert Run.objects.count() == 0


# --- a DolphinScheduler Shell task: the standalone client, standard library only -----------------


def dq_client(live_server, token: str, *args: str) -> subprocess.CompletedProcess:
    # -I -S: no site-packages at all, as on a scheduler's worker without this platform installed.
    return subprocess.run(
        [sys.executable, "-I", "-S", str(CLIENT), *args],
        env={"DQ_URL": live_server.url, "DQ_TOKEN": token, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_standalone_client_exits_0_1_or_2_as_a_shell_task_reads_it(
    live_server, checks, tables, celery_worker_process
):
    token = token_for(live_server.url)

    ok = dq_client(live_server, token, "run", "--check", str(checks["names present"]), "--wait", "--timeout", "240")
    blocked = dq_client(
        live_server, token, "run", "--check", str(checks["emails present"]), "--wait", "--timeout", "240"
    )
    tables.execute(f"DROP TABLE {SCHEMA}.doomed")
    broken = dq_client(live_server, token, "run", "--check", str(checks["names present"]),
                       "--check", str(checks["doomed names"]), "--wait", "--timeout", "240")  # fmt: skip
    too_short = dq_client(
        live_server, token, "run", "--check", str(checks["names present"]), "--wait", "--timeout", "0"
    )
    no_token = dq_client(live_server, "", "run", "--check", str(checks["names present"]), "--wait")

    assert ok.returncode == 0, ok.stderr
    assert "names present  PASS  0" in ok.stdout and "nothing blocks" in ok.stdout
    assert blocked.returncode == 1, blocked.stderr
    assert f"emails present  FAIL  {null_emails(tables)}" in blocked.stdout and "blocking" in blocked.stderr
    assert broken.returncode == 2, broken.stderr
    assert "names present  PASS" in broken.stdout and "doomed names  ERROR" in broken.stdout
    assert too_short.returncode == 2 and "did not finish within 0 s" in too_short.stderr
    assert no_token.returncode == 2 and "DQ_TOKEN" in no_token.stderr


def test_the_client_and_dq_run_give_the_same_exit_code_for_the_same_checks(live_server, checks, celery_worker_process):
    token = token_for(live_server.url)
    for name, expected in (("names present", 0), ("emails present", 1)):
        client = dq_client(live_server, token, "run", "--check", str(checks[name]), "--wait", "--timeout", "240")
        command = subprocess.run(
            [sys.executable, "manage.py", "dq_run", "--check", str(checks[name]), "--wait", "--user", "author"],
            cwd=ROOT, env=celery_worker_process.env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert (client.returncode, command.returncode) == (expected, expected), (client.stderr, command.stderr)
