"""The gate and runs as a scheduler's workers see them, over HTTP only (they have no access to the
platform's database): the standalone client agrees with `dq_gate`, and the Airflow operator and
sensor (clients/airflow_dq.py) run in real Airflow, in a virtualenv of their own, against the live
server, on batches a real Celery worker validated."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from executions.models import Run

from .conftest import NULL_CHECK, SCHEMA, create_check, register, wait_for_outcome
from .test_batches_end_to_end import dq_gate

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
ORDERS = f"{SCHEMA}.orders"
PAYMENTS = f"{SCHEMA}.payments"


def token_for(base: str) -> str:
    response = requests.post(
        f"{base}/api/v1/auth/token/", json={"username": "author", "password": "author-pass-123"}, timeout=30
    )
    assert response.status_code == 200, response.text
    return response.json()["token"]


@pytest.fixture
def batches(cast, api_as, shop, celery_worker_process) -> dict[str, dict]:
    """orders of 2026-11-28 (every email present: published) and of 2026-11-29 (one missing:
    quarantined), validated by a `block` null check bound to the table."""
    client = api_as(cast.author)
    create_check(client, "emails present", "null_check", src_datasource_id=shop.pk, src_table=ORDERS,
                 failure_strategy="block", **NULL_CHECK)  # fmt: skip
    found = {}
    for dt in ("2026-11-28", "2026-11-29"):
        body = register(client, shop, ORDERS, partition={"dt": dt}, biz_date=dt)
        found[dt] = wait_for_outcome(client, body["id"])
    assert (found["2026-11-28"]["state"], found["2026-11-29"]["state"]) == ("published", "quarantined")
    return found


def client_gate(live_server, token: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-I", "-S", str(CLIENTS / "dq_client.py"), "gate", *args],
        env={"DQ_URL": live_server.url, "DQ_TOKEN": token, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_clients_gate_and_dq_gate_agree_on_a_consumable_a_held_and_an_unregistered_batch(
    live_server, batches, celery_worker_process
):
    token = token_for(live_server.url)
    for dt, code, state in (
        ("2026-11-28", 0, "published"),
        ("2026-11-29", 1, "quarantined"),
        ("2026-12-01", 2, "no batch"),
    ):
        where = ("--datasource", "shop", "--table", ORDERS, "--partition", f"dt={dt}")
        over_http = client_gate(live_server, token, *where)
        command = dq_gate(celery_worker_process, *where)
        assert (over_http.returncode, command.returncode) == (code, code), (over_http.stderr, command.stderr)
        # The same line, word for word: one gate answers both.
        assert (over_http.stdout + over_http.stderr).strip().endswith((command.stdout + command.stderr).strip()[-60:])
        assert f"{state}:" in over_http.stdout + over_http.stderr


# --- Airflow ----------------------------------------------------------------------------------

DAG_FILE = """
import datetime, json
from airflow.sdk import DAG
from airflow_dq import DataQualityGateSensor, DataQualityRunOperator

with DAG("dq_workflow", schedule=None, start_date=datetime.datetime(2026, 1, 1), default_args={"retries": 0}) as dag:
    DataQualityRunOperator(task_id="run_passing", checks=[%(passing)d])
    DataQualityRunOperator(task_id="run_blocking", checks=[%(blocking)d])
    gate = dict(datasource="shop", table="%(table)s", poke_interval=1, timeout=60)
    DataQualityGateSensor(task_id="gate_published", partition={"dt": "2026-11-28"}, **gate)
    DataQualityGateSensor(task_id="gate_quarantined", partition={"dt": "2026-11-29"}, **gate)
    DataQualityGateSensor(task_id="gate_quarantined_soft", partition={"dt": "2026-11-29"}, soft_fail=True, **gate)

if __name__ == "__main__":
    run = dag.test()
    states = {ti.task_id: str(getattr(ti.state, "value", ti.state)) for ti in run.get_task_instances()}
    print("TASK STATES " + json.dumps(states, sort_keys=True))
"""


@pytest.fixture(scope="session")
def airflow_python() -> str:
    """Airflow's own virtualenv, made by scripts/airflow-venv.sh when missing (about a minute)."""
    made = subprocess.run(
        [str(ROOT / "scripts" / "airflow-venv.sh")], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert made.returncode == 0, made.stderr[-3000:]
    return made.stdout.strip().splitlines()[-1]


def test_the_airflow_operator_fails_on_a_blocking_run_and_the_sensor_waits_for_a_consumable_batch(
    live_server, cast, api_as, shop, batches, airflow_python, tmp_path
):
    client = api_as(cast.author)
    common = {**NULL_CHECK, "src_datasource_id": shop.pk, "src_table": PAYMENTS}
    passing = create_check(client, "payments of the 28th have emails", "null_check", failure_strategy="block",
                           src_filter="dt = '2026-11-28'", **common)  # fmt: skip
    blocking = create_check(client, "payments have emails", "null_check", failure_strategy="block", **common)
    dags = tmp_path / "dags"
    dags.mkdir()
    (dags / "dq_workflow.py").write_text(DAG_FILE % {"passing": passing, "blocking": blocking, "table": ORDERS})
    env = {
        "PATH": f"{Path(airflow_python).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "AIRFLOW_HOME": str(tmp_path / "airflow"),
        "AIRFLOW__CORE__DAGS_FOLDER": str(dags),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "PYTHONPATH": str(CLIENTS),
        "DQ_URL": live_server.url,
        "DQ_TOKEN": token_for(live_server.url),
    }
    migrate = subprocess.run([airflow_python, "-m", "airflow", "db", "migrate"], env=env, capture_output=True,
                             text=True, timeout=300)  # fmt: skip
    assert migrate.returncode == 0, migrate.stderr[-3000:]

    tested = subprocess.run([airflow_python, str(dags / "dq_workflow.py")], env=env, capture_output=True, text=True,
                            timeout=600)  # fmt: skip

    lines = [line for line in tested.stdout.splitlines() if line.startswith("TASK STATES ")]
    assert lines, (tested.stdout[-3000:], tested.stderr[-3000:])
    assert json.loads(lines[-1].removeprefix("TASK STATES ")) == {
        "gate_published": "success",
        "gate_quarantined": "failed",
        "gate_quarantined_soft": "skipped",
        "run_blocking": "failed",
        "run_passing": "success",
    }
    # The operator's runs are the platform's own, with the verdicts the tasks acted on.
    runs = {tuple(r.check_versions.values_list("parent_check_id", flat=True)): r for r in Run.objects.all()}
    assert (runs[(passing,)].status, runs[(passing,)].blocking) == ("passed", False)
    assert (runs[(blocking,)].status, runs[(blocking,)].blocking) == ("failed", True)
