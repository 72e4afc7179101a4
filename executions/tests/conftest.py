"""A real Celery worker (Redis broker, in-process Spark engine) sharing the test database file."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from conftest import PG, PROBE_PASSWORD, PROBE_USER, REDIS_URL

ROOT = Path(__file__).resolve().parents[2]


def _die_with_parent() -> None:
    """Linux: the worker gets SIGTERM if this test process dies (killed by a CI time limit, say),
    so no orphaned worker keeps consuming a queue afterwards."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


class Worker:
    def __init__(self, env: dict[str, str], log_path: Path):
        self.env, self.log_path = env, log_path
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "dq_platform",
                "worker",
                "-Q",
                self.env["DQ_SPARK_QUEUE"],
                "-c",
                "1",
                "-l",
                "warning",
                "-n",
                f"e2e-{os.getpid()}@%h",
                "--without-mingle",
                "--without-gossip",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )

    def kill(self) -> None:
        """SIGKILL the worker and everything it started (its pool child and the Spark JVM)."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    @property
    def alive(self) -> bool:
        return bool(self.process and self.process.poll() is None)

    def log_tail(self) -> str:
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-30:])


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, tmp_path_factory):
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except redis.ConnectionError as exc:
        pytest.fail(f"Redis unreachable at {REDIS_URL} ({exc}); start it with scripts/services.sh.", pytrace=False)
    database = settings.DATABASES["default"]["NAME"]
    # A queue of this test session's own, so another test run on the machine cannot take its runs.
    queue = f"spark-e2e-{os.getpid()}"
    previous_queue, settings.DQ_SPARK_QUEUE = settings.DQ_SPARK_QUEUE, queue
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "dq_platform.settings_test",
        "DATABASE_URL": f"sqlite:///{database}",
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_RESULT_BACKEND": REDIS_URL,
        "DQ_SPARK_MASTER": "local[2]",
        "DQ_SPARK_QUEUE": queue,
        "DQ_ERROR_ROWS_LIMIT": "2",
        "DQ_ERROR_DATA_ROOT": str(tmp_path_factory.mktemp("error-data")),
        "PYSPARK_PYTHON": sys.executable,
    }
    worker = Worker(env, tmp_path_factory.mktemp("worker") / "worker.log")
    worker.start()
    yield worker
    worker.stop()
    settings.DQ_SPARK_QUEUE = previous_queue


def wait_for_run(client, run_id: int, timeout: float = 240) -> dict:
    """Poll the run as the run page does, until it ends."""
    deadline = time.monotonic() + timeout
    while True:
        body = client.get(f"/api/v1/runs/{run_id}/").json()
        if body["status"] not in ("queued", "running"):
            return body
        if time.monotonic() > deadline:
            raise AssertionError(f"Run {run_id} still {body['status']} after {timeout} s")
        time.sleep(0.5)


# --- the end-to-end tables in PostgreSQL and their checks ------------------------------------------
SCHEMA = "dq_e2e"
TODAY = date.today()
# order_id, customer_email, status, amount; created_at is TODAY-10+i days for row i.
ROWS = [
    (1, "a@x.io", "paid", 10),
    (2, None, "paid", 20),
    (3, "", "void", -5),
    (4, "b@x.io", "bogus", 30),
    (5, "c@x.io", None, 40),
    (5, "d@x.io", "paid", 50),
    (6, "e@x.io", "paid", 60),
    (6, "f@x.io", "shipped", 70),
    (6, "g@x.io", "paid", 80),
    (7, "not-an-email", "paid", 90),
]
VERDICT = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "fix_value",
    "comparison_value": 0,
}


@pytest.fixture(scope="module")
def e2e_tables(shared_servers_lock):
    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        conn.execute(
            f"CREATE TABLE {SCHEMA}.orders (order_id int, customer_email text, status text, "
            "amount numeric(10,2), created_at timestamp)"
        )
        with conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {SCHEMA}.orders VALUES (%s, %s, %s, %s, %s)",
                [(*row, TODAY - timedelta(days=10 - i)) for i, row in enumerate(ROWS)],
            )
        conn.execute(f"CREATE TABLE {SCHEMA}.big AS SELECT g AS id FROM generate_series(1, 3000) g")
        conn.execute(f"GRANT USAGE ON SCHEMA {SCHEMA} TO {PROBE_USER}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {PROBE_USER}")
        yield
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


@pytest.fixture
def warehouse(pg_server, e2e_tables, make_datasource):
    return make_datasource(
        name="warehouse",
        type="postgresql",
        host=PG["host"],
        port=PG["port"],
        database=PG["dbname"],
        username=PROBE_USER,
        password=PROBE_PASSWORD,
    )


def create_check(client, name, template, **params):
    response = client.post("/api/v1/checks/", {"name": name, "template": template, "params": params}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def start_and_wait(client, checks, **extra):
    response = client.post("/api/v1/runs/", {"checks": checks, **extra}, format="json")
    assert response.status_code == 202, response.json()
    assert response.json()["status"] == "queued"
    return wait_for_run(client, response.json()["id"])
