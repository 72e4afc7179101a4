"""Tables in the real PostgreSQL test server for the gates tests, partitioned by `dt`."""

from __future__ import annotations

import os
import sys
import time

import psycopg
import pytest
from django.conf import settings

from conftest import PG, PG_PROBE_DATASOURCE, PROBE_USER, REDIS_URL
from executions.tests.conftest import Worker, create_check  # noqa: F401 - the gates tests import it from here

SCHEMA = "dq_gates"
# dt, order_id, customer_email: 2026-11-29 has a missing email (a failing null check), so has 11-30.
ORDERS = [
    ("2026-11-28", 1, "a@x.io"),
    ("2026-11-29", 2, "b@x.io"),
    ("2026-11-29", 3, None),
    ("2026-11-29", 4, "d@x.io"),
    ("2026-11-30", 5, None),
]
NULL_CHECK = {
    "src_field": "customer_email",
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "comparison_type": "fix_value",
    "comparison_value": 0,
}


@pytest.fixture(scope="package")
def celery_worker_process(django_db_setup, tmp_path_factory):
    """A real Celery worker (Redis, in-process Spark) on a queue of its own, sharing the test
    database file; it lives only as long as the gates tests, like the browser tests' worker."""
    queue = f"spark-gates-{os.getpid()}"
    previous_queue, settings.DQ_SPARK_QUEUE = settings.DQ_SPARK_QUEUE, queue
    previous_preview_queue, settings.DQ_PREVIEW_QUEUE = settings.DQ_PREVIEW_QUEUE, f"preview-gates-{os.getpid()}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "dq_platform.settings_test",
        "DATABASE_URL": f"sqlite:///{settings.DATABASES['default']['NAME']}",
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_RESULT_BACKEND": REDIS_URL,
        "DQ_SPARK_MASTER": "local[2]",
        "DQ_SPARK_QUEUE": queue,
        "DQ_PREVIEW_QUEUE": settings.DQ_PREVIEW_QUEUE,
        "DQ_ERROR_DATA_ROOT": str(tmp_path_factory.mktemp("gates-error-data")),
        "PYSPARK_PYTHON": sys.executable,
    }
    worker = Worker(env, tmp_path_factory.mktemp("gates-worker") / "worker.log")
    worker.start()
    yield worker
    worker.stop()
    settings.DQ_SPARK_QUEUE, settings.DQ_PREVIEW_QUEUE = previous_queue, previous_preview_queue


@pytest.fixture
def gate_tables(shared_servers_lock):
    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        for table in ("orders", "payments"):
            conn.execute(f"CREATE TABLE {SCHEMA}.{table} (dt text, order_id int, customer_email text)")
            with conn.cursor() as cur:
                cur.executemany(f"INSERT INTO {SCHEMA}.{table} VALUES (%s, %s, %s)", ORDERS)
        conn.execute(f"GRANT USAGE ON SCHEMA {SCHEMA} TO {PROBE_USER}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {PROBE_USER}")
        yield conn
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


@pytest.fixture
def shop(pg_server, gate_tables, make_datasource, cast):
    """An open datasource (everyone may use it) whose owners are the analysts (the author): they
    release and re-validate its batches."""
    datasource = make_datasource(name="shop", **PG_PROBE_DATASOURCE)
    datasource.owner_groups.set([cast.analysts])
    return datasource


def register(client, datasource, table, **fields) -> dict:
    response = client.post("/api/v1/batches/", {"datasource": datasource.pk, "table": table, **fields}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def wait_for_outcome(client, batch_id: int, timeout: float = 240) -> dict:
    """Poll the batch page's API until validation has an outcome."""
    deadline = time.monotonic() + timeout
    while True:
        body = client.get(f"/api/v1/batches/{batch_id}/").json()
        if body["state"] in ("published", "quarantined", "awaiting_approval"):
            return body
        if time.monotonic() > deadline:
            raise AssertionError(f"Batch {batch_id} still {body['state']} after {timeout} s")
        time.sleep(0.5)
