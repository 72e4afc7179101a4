"""Tables in the real PostgreSQL test server for the gates tests, partitioned by `dt`."""

from __future__ import annotations

import time

import psycopg
import pytest

from conftest import PG, PROBE_PASSWORD, PROBE_USER
from executions.tests.conftest import celery_worker_process  # noqa: F401 — the real worker fixture

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
def shop(pg_server, gate_tables, make_datasource):
    return make_datasource(
        name="shop",
        type="postgresql",
        host=PG["host"],
        port=PG["port"],
        database=PG["dbname"],
        username=PROBE_USER,
        password=PROBE_PASSWORD,
    )


def create_check(client, name, template, **params) -> int:
    response = client.post("/api/v1/checks/", {"name": name, "template": template, "params": params}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


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
