"""A real Celery worker (Redis broker, in-process Spark engine) sharing the test database file."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from conftest import PG, PG_PROBE_DATASOURCE, PROBE_USER, REDIS_URL

ROOT = Path(__file__).resolve().parents[2]


def _die_with_parent() -> None:
    """Linux: the worker gets SIGTERM if this test process dies (killed by a CI time limit, say),
    so no orphaned worker keeps consuming a queue afterwards."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


class Worker:
    """A real Celery process (a worker by default; `command` gives e.g. beat's arguments).
    DQ_TEST_WORKER_LOG_LEVEL=info shows each task's start and end in the log (`log_tail()`)."""

    def __init__(self, env: dict[str, str], log_path: Path, command: list[str] | None = None, name: str = ""):
        self.env, self.log_path = env, log_path
        self.command = command or [
            "worker",
            "-Q",
            # Runs' queue and, when given, the previews' (as every worker of make run consumes both).
            ",".join(q for q in (env["DQ_SPARK_QUEUE"], env.get("DQ_PREVIEW_QUEUE")) if q),
            "-c",
            "1",
            "-l",
            os.environ.get("DQ_TEST_WORKER_LOG_LEVEL", "warning"),
            "-n",
            f"{name or 'e2e'}-{os.getpid()}@%h",
            "--without-mingle",
            "--without-gossip",
        ]
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "dq_platform", *self.command],
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
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-80:])


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
    previous_preview_queue, settings.DQ_PREVIEW_QUEUE = settings.DQ_PREVIEW_QUEUE, f"preview-e2e-{os.getpid()}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "dq_platform.settings_test",
        "DATABASE_URL": f"sqlite:///{database}",
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_RESULT_BACKEND": REDIS_URL,
        "DQ_SPARK_MASTER": "local[2]",
        "DQ_SPARK_QUEUE": queue,
        "DQ_PREVIEW_QUEUE": settings.DQ_PREVIEW_QUEUE,
        # The worker's own limit on a preview: a first one starts its SparkSession, slow on a busy machine.
        "DQ_PREVIEW_TIMEOUT": "180",
        "DQ_ERROR_ROWS_LIMIT": "2",
        "DQ_ERROR_DATA_ROOT": str(tmp_path_factory.mktemp("error-data")),
        "PYSPARK_PYTHON": sys.executable,
    }
    worker = Worker(env, tmp_path_factory.mktemp("worker") / "worker.log")
    worker.start()
    yield worker
    worker.stop()
    settings.DQ_SPARK_QUEUE, settings.DQ_PREVIEW_QUEUE = previous_queue, previous_preview_queue


@pytest.fixture
def celery_processes(django_db_setup, tmp_path, settings):
    """`celery_processes.worker(broker, **env)` and `.beat(broker, **env)` start real Celery
    processes on `broker` ("redis" or "filesystem", in a folder of this test's own), sharing the
    test database, with `env` on top; this test's process sends its tasks to the same broker and
    queue. Every process is killed at the end."""
    processes = CeleryProcesses(tmp_path, settings)
    yield processes
    processes.stop_all()


class CeleryProcesses:
    def __init__(self, tmp_path: Path, settings):
        self.tmp_path, self.settings = tmp_path, settings
        self.queue = f"spark-{tmp_path.name[-20:]}-{os.getpid()}"
        self.preview_queue = f"preview-{tmp_path.name[-20:]}-{os.getpid()}"
        self.started: list[Worker] = []
        self.broker_dir = tmp_path / "celery-broker"
        settings.DQ_SPARK_QUEUE, settings.DQ_PREVIEW_QUEUE = self.queue, self.preview_queue

    def env(self, broker: str, **overrides) -> dict[str, str]:
        url = REDIS_URL if broker == "redis" else "filesystem://"
        return {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "dq_platform.settings_test",
            "DATABASE_URL": f"sqlite:///{settings.DATABASES['default']['NAME']}",
            "CELERY_BROKER_URL": url,
            "CELERY_RESULT_BACKEND": REDIS_URL,
            "DQ_CELERY_BROKER_DIR": str(self.broker_dir),
            "DQ_SPARK_MASTER": "local[2]",
            "DQ_SPARK_QUEUE": self.queue,
            "DQ_PREVIEW_QUEUE": self.preview_queue,
            "PYSPARK_PYTHON": sys.executable,
            **{k: str(v) for k, v in overrides.items()},
        }

    def worker(self, broker: str, name: str = "worker", **env) -> Worker:
        return self._start(Worker(self.env(broker, **env), self.tmp_path / f"{name}.log", name=name))

    def beat(self, broker: str, **env) -> Worker:
        command = ["beat", "-l", "info", "-s", str(self.tmp_path / "beat-schedule")]
        return self._start(Worker(self.env(broker, **env), self.tmp_path / "beat.log", command=command))

    def _start(self, process: Worker) -> Worker:
        process.start()
        self.started.append(process)
        return process

    def stop_all(self) -> None:
        for process in self.started:
            process.kill()


@contextmanager
def tasks_sent_to(broker: str, broker_dir: Path):
    """This test process sends its tasks to `broker` for the block (the Celery app is configured
    once at start, for Redis in the tests)."""
    from dq_platform.celery import app

    def switch(url, options, transport=None):
        previous = app.conf.broker_url, app.conf.broker_transport_options, app.conf.broker_transport
        # broker_write_url falls back to broker_url only when unset; senders use it.
        app.conf.broker_url, app.conf.broker_write_url, app.conf.broker_transport_options = url, url, options
        app.conf.broker_transport = transport  # as settings choose it for the URL (dq_platform/broker.py)
        app._pool = None  # connections are pooled per app: make new ones to the new broker
        app.amqp._producer_pool = None
        return previous

    if broker == "redis":
        previous = switch(REDIS_URL, {})
    else:
        for folder in ("queue", "processed", "control"):
            (broker_dir / folder).mkdir(parents=True, exist_ok=True)
        options = {
            "data_folder_in": str(broker_dir / "queue"),
            "data_folder_out": str(broker_dir / "queue"),
            "processed_folder": str(broker_dir / "processed"),
            "control_folder": str(broker_dir / "control"),
            "store_processed": False,
            "polling_interval": 0.1,
        }
        previous = switch("filesystem://", options, "dq_platform.broker:Transport")
    try:
        yield
    finally:
        switch(*previous)


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
        **PG_PROBE_DATASOURCE,
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


# --- a small Parquet dataset and a check on it (no shared database server needed) -----------------
LAKE_VERDICT = {**VERDICT, "failure_strategy": "block"}


@pytest.fixture
def lake(make_datasource, parquet_dir):
    return make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))


@pytest.fixture
def lake_check(cast, api_as, lake):
    """A `block` null check on the lake's `orders` (one NULL status: it fails), by the author."""
    params = {"src_datasource_id": lake.pk, "src_table": "orders", "src_field": "status", **LAKE_VERDICT}
    return create_check(api_as(cast.author), "status present", "null_check", **params)


@pytest.fixture
def start_lake_run(cast, api_as, lake_check):
    """`start_lake_run(user=author)` → the id of a new queued run of `lake_check`."""

    def start(user=None) -> int:
        response = api_as(user or cast.author).post("/api/v1/runs/", {"checks": [lake_check]}, format="json")
        assert response.status_code == 202, response.json()
        return response.json()["id"]

    return start


def preview_and_wait(client, body: dict, timeout: float = 60) -> tuple[int, dict]:
    """POST a row checks' preview and poll its job like the browser does: (POST status, final state)."""
    posted = client.post("/api/v1/row-checks/preview/", body, format="json")
    if posted.status_code != 202:
        return posted.status_code, posted.json()
    url = posted.json()["url"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = client.get(url).json()
        if state["status"] in ("done", "error"):
            return posted.status_code, state
        time.sleep(0.2)
    raise AssertionError(f"preview {url} did not end in {timeout} s (last state {state})")
