"""Real receivers in the test process (a Dagster-like and an OpenLineage-like HTTP server on
127.0.0.1), a small `orders` table in the PostgreSQL test database, and runs executed by the
platform's own task on it (pushdown: SQL in PostgreSQL, no Spark), whose reports are delivered
through eager Celery tasks."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

import psycopg
import pytest

from conftest import PG, PG_PROBE_DATASOURCE, PROBE_USER
from tests.support.receiver import serving

SCHEMA = "dq_integrations"
# order_id, email, status: two NULL e-mails, no empty one (a null check counts '' too).
ORDERS = [
    (1, "a@example.com", "paid"),
    (2, None, "paid"),
    (3, "c@example.com", "void"),
    (4, None, "paid"),
    (5, "e@example.com", "shipped"),
]
VERDICT = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "comparison_type": "fix_value",
    "comparison_value": 0,
}
DAGSTER_TOKEN = "dagster-Token-5521-secret"
LINEAGE_KEY = "lineage-Key-9034-secret"


def plain_sql(query: str):
    """One value from the test database, read as its owner: the truth the reports are held to."""
    with psycopg.connect(**PG, autocommit=True) as conn:
        return conn.execute(query).fetchone()[0]


@pytest.fixture(scope="module")
def orders_table(pg_server):
    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        conn.execute(f"CREATE TABLE {SCHEMA}.orders (order_id int, email text, status text)")
        with conn.cursor() as cur:
            cur.executemany(f"INSERT INTO {SCHEMA}.orders VALUES (%s, %s, %s)", ORDERS)
        conn.execute(f"CREATE TABLE {SCHEMA}.shipments (shipment_id int)")
        conn.execute(f"GRANT USAGE ON SCHEMA {SCHEMA} TO {PROBE_USER}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {PROBE_USER}")
        yield
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


@pytest.fixture
def warehouse(orders_table, make_datasource, cast):
    """The PostgreSQL test database, readable by the analysts only (the author, not the outsider)."""
    return make_datasource(name="warehouse", allowed_groups=[cast.analysts], **PG_PROBE_DATASOURCE)


@pytest.fixture
def make_check(api_as, cast, warehouse):
    """`make_check(name, template, failure_strategy, **params)` → the id of a check on orders."""

    def make(name: str, template: str, failure_strategy: str, table: str = "orders", **params) -> int:
        body = {
            "src_datasource_id": warehouse.pk,
            "src_table": f"{SCHEMA}.{table}",
            **VERDICT,
            "failure_strategy": failure_strategy,
            **params,
        }
        response = api_as(cast.author).post(
            "/api/v1/checks/", {"name": name, "template": template, "params": body}, format="json"
        )
        assert response.status_code == 201, response.json()
        return response.json()["id"]

    return make


@pytest.fixture
def eager_celery():
    from dq_platform.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield app
    app.conf.task_always_eager = before


@pytest.fixture
def run_checks(api_as, cast, eager_celery):
    """`run_checks([ids])` → the run's id, once the platform executed it on PostgreSQL (pushdown)
    and delivered every report: the run's task and the reports' tasks run eagerly, each when its
    transaction commits, as a worker would take them (the tests are transactional: the run's
    watcher thread reads the run through a connection of its own)."""

    def run(check_ids: list[int], **extra) -> int:
        body = {"checks": check_ids, "engine": "pushdown", **extra}
        response = api_as(cast.author).post("/api/v1/runs/", body, format="json")
        assert response.status_code == 202, response.json()
        return response.json()["id"]

    return run


# --- a real HTTP receiver --------------------------------------------------------------------------
@dataclass
class Receiver:
    url: str = ""
    requests: list = field(default_factory=list)
    fail_first: int = 0  # answer HTTP 500 to this many requests before accepting
    echo_headers: bool = False  # put the request's headers into a failing answer's body

    @property
    def accepted(self) -> list:
        return [r for r in self.requests if r["status"] < 300]

    def wait_for(self, count: int, timeout: float = 10) -> list:
        deadline = time.monotonic() + timeout
        while len(self.requests) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.requests


@pytest.fixture
def receiver(settings):
    """An HTTP server on 127.0.0.1 recording each POST (path, headers, JSON body, the status it
    answered); integrations may reach it only because the allow-list names it."""
    settings.DQ_ALERT_ALLOWED_HOSTS = ["127.0.0.1"]
    settings.DQ_NOTIFY_ATTEMPTS = 4
    box = Receiver()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 — the name http.server calls
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with lock:
                status = 500 if len([r for r in box.requests if r["status"] >= 500]) < box.fail_first else 200
                box.requests.append(
                    {
                        "path": self.path,
                        "headers": dict(self.headers),
                        "json": json.loads(body or b"{}"),
                        "status": status,
                    }
                )
            answer = json.dumps(dict(self.headers)).encode() if status >= 300 and box.echo_headers else b"{}"
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args):  # keep the test output clean
            pass

    with serving(Handler) as port:
        box.url = f"http://127.0.0.1:{port}/dagster/prod"
        yield box


@pytest.fixture
def make_integration(api_as, cast, receiver):
    """`make_integration(kind, **fields)` → the API's answer for a new integration (as the admin)
    whose URL is the receiver's."""

    def make(kind: str, **fields) -> dict:
        body = {"name": f"{kind} {len(receiver.requests)}-{time.monotonic_ns()}", "kind": kind, "url": receiver.url}
        response = api_as(cast.admin).post("/api/v1/integrations/", {**body, **fields}, format="json")
        assert response.status_code == 201, response.json()
        return response.json()

    return make
