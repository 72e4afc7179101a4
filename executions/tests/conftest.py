"""A real Celery worker (Redis broker, in-process Spark engine) sharing the test database file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings

from conftest import REDIS_URL

ROOT = Path(__file__).resolve().parents[2]


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
