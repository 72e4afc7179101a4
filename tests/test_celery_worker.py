"""A real Celery worker consumes the platform's queues over the Redis broker."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REDIS_URL

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def redis_worker(tmp_path):
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).flushdb()
    except redis.ConnectionError as exc:
        pytest.fail(f"Redis unreachable at {REDIS_URL} ({exc}); start it with scripts/services.sh.", pytrace=False)
    env = {
        **os.environ,
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_RESULT_BACKEND": REDIS_URL,
        "DQ_VAR_DIR": str(tmp_path),
    }
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "dq_platform",
            "worker",
            "-Q",
            "default,spark",
            "-c",
            "1",
            "--pool",
            "solo",
            "-l",
            "warning",
            "-n",
            "test@%h",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    yield env
    worker.terminate()
    worker.wait(timeout=30)


def test_a_task_sent_to_the_spark_queue_runs_on_a_worker_over_redis(redis_worker):
    code = (
        "import django; django.setup(); from dq_platform.celery import ping; "
        "print(ping.apply_async(queue='spark').get(timeout=60))"
    )
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=redis_worker, capture_output=True, text=True, timeout=90
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "pong"
    assert time.monotonic() - started < 90
