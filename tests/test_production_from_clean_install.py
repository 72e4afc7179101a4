"""The production configuration, from a clean install.

A virtualenv with requirements.txt alone (tests/support/clean_venv.py) runs the platform as
production does: a fresh PostgreSQL metadata database, a Redis broker, gunicorn, a Celery worker
and Celery beat as separate processes, DQ_ENV=production (DEBUG off, real secrets). A check then
runs end to end through the API: a token, a Parquet datasource, a null check, POST /runs/, polled
until it finished, with the statistic the data holds; and an every-minute schedule fires a run
of its own (beat → broker → worker).
"""

from __future__ import annotations

import json
import os
import secrets
import time
import urllib.error
import urllib.request
from pathlib import Path

import psycopg
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cryptography.fernet import Fernet

from conftest import PG, REDIS_URL
from tests.support.clean_venv import clean_venv
from tests.support.processes import Server, free_port, run_checked, wait_for_http

pytestmark = pytest.mark.clean_install
ROOT = Path(__file__).resolve().parent.parent
ADMIN_PASSWORD = "Prod-smoke-admin-7!"


class Api:
    def __init__(self, base: str):
        self.base, self.token = base, None

    def call(self, method: str, path: str, body=None) -> tuple[int, dict, dict]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Token {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                raw = response.read()
                return response.status, dict(response.headers), json.loads(raw) if raw else {}
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            type_ = exc.headers.get("Content-Type", "")
            return exc.code, dict(exc.headers), json.loads(raw) if "json" in type_ else {"html": raw[:200]}


@pytest.fixture
def metadata_database():
    """A fresh database on the test PostgreSQL server, dropped afterwards."""
    name = f"dq_prod_smoke_{os.getpid()}"
    with psycopg.connect(**PG, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    yield name
    with psycopg.connect(**PG, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _production_env(venv: Path, database: str, var: Path, queue_tag: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("DQ_", "CELERY_", "DATABASE_URL", "SECRET_KEY"))}
    for name in ("DJANGO_SETTINGS_MODULE", "VIRTUAL_ENV", "PYTHONPATH", "PYSPARK_PYTHON", "DJANGO_ALLOW_ASYNC_UNSAFE"):
        keep.pop(name, None)
    password = PG["password"]
    return {
        **keep,
        "PATH": f"{venv / 'bin'}:{keep.get('PATH', '/usr/bin:/bin')}",
        "VIRTUAL_ENV": str(venv),
        "DJANGO_SETTINGS_MODULE": "dq_platform.settings",
        "DQ_ENV": "production",
        "SECRET_KEY": secrets.token_urlsafe(60),
        "DQ_FERNET_KEYS": Fernet.generate_key().decode(),
        "DATABASE_URL": f"postgres://{PG['user']}:{password}@{PG['host']}:{PG['port']}/{database}",
        "CELERY_BROKER_URL": REDIS_URL,
        # Queues of their own, so that no other test's worker on this Redis takes these tasks.
        "DQ_SPARK_QUEUE": f"prod-smoke-spark-{queue_tag}",
        "DQ_PREVIEW_QUEUE": f"prod-smoke-preview-{queue_tag}",
        "DQ_DEFAULT_QUEUE": f"prod-smoke-default-{queue_tag}",
        "DQ_SCHEDULE_TICK": "2",
        "DQ_VAR_DIR": str(var),
        "DQ_FILE_ROOTS": str(var / "files"),
        "DQ_ERROR_DATA_ROOT": str(var / "error-data"),
        "ALLOWED_HOSTS": "127.0.0.1",
        "PYSPARK_PYTHON": str(venv / "bin" / "python"),
        "DJANGO_SUPERUSER_PASSWORD": ADMIN_PASSWORD,
    }


def _parquet_orders(files: Path) -> None:
    (files / "orders").mkdir(parents=True)
    table = pa.table({"order_id": [1, 2, 3, 4], "status": ["paid", None, "void", None]})
    pq.write_table(table, files / "orders" / "part-00000.parquet")


def _wait_for_run(api: Api, run_id: int, servers: list[Server], timeout: float = 420) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, _, run = api.call("GET", f"/api/v1/runs/{run_id}/")
        assert status == 200, run
        if run["status"] not in ("queued", "running"):
            return run
        for server in servers:
            assert server.alive(), f"{server.name} died:\n{server.log_tail()}"
        time.sleep(2)
    logs = "\n".join(f"--- {s.name} ---\n{s.log_tail()}" for s in servers)
    raise AssertionError(f"run {run_id} did not finish in {timeout} s:\n{logs}")


def _servers(venv: Path, env: dict[str, str], port: int, logs: Path) -> list[Server]:
    celery = str(venv / "bin" / "celery")
    queues = f"{env['DQ_SPARK_QUEUE']},{env['DQ_PREVIEW_QUEUE']},{env['DQ_DEFAULT_QUEUE']}"
    worker = [celery, "-A", "dq_platform", "worker", "-Q", queues, "-c", "1", "-l", "warning"]
    worker += ["-n", f"prod-smoke-{os.getpid()}@%h", "--without-mingle", "--without-gossip"]
    web_env = {**env, "DQ_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "1"}
    return [
        Server("gunicorn", [str(venv / "bin" / "gunicorn"), "-c", "conf/gunicorn.conf.py"], web_env, ROOT, logs),
        Server("worker", worker, env, ROOT, logs),
        Server("beat", [celery, "-A", "dq_platform", "beat", "-l", "warning", "--pidfile="], env, ROOT, logs),
    ]


def _install(venv: Path, env: dict[str, str]) -> None:
    python = str(venv / "bin" / "python")
    run_checked([python, "manage.py", "migrate", "--noinput", "-v0"], env, ROOT)
    run_checked([python, "manage.py", "collectstatic", "--noinput", "-v0"], env, ROOT)
    superuser = ["createsuperuser", "--noinput", "--username", "admin", "--email", "admin@example.com"]
    run_checked([python, "manage.py", *superuser], env, ROOT)


def test_the_platform_runs_a_check_end_to_end_as_production_does_from_requirements_alone(tmp_path, metadata_database):
    venv = clean_venv()
    var = tmp_path / "var"
    _parquet_orders(var / "files")
    env = _production_env(venv, metadata_database, var, f"{os.getpid()}")
    _install(venv, env)
    port = free_port()
    servers = _servers(venv, env, port, tmp_path)
    for server in servers:
        server.start()
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for_http(f"{base}/healthz", servers[0])
        api = Api(base)

        # DEBUG is off: an unknown API path is the JSON 404, not a list of URL patterns.
        status, _, body = api.call("GET", "/api/v1/no-such-endpoint/")
        assert status == 404 and "message" in body
        status, headers, _ = api.call("GET", "/api/v1/checks/")
        assert status == 401 and headers.get("WWW-Authenticate") == "Token"
        with urllib.request.urlopen(f"{base}/static/admin/css/base.css", timeout=30) as css:
            assert css.status == 200  # WhiteNoise serves the collected static files

        status, _, body = api.call("POST", "/api/v1/auth/token/", {"username": "admin", "password": ADMIN_PASSWORD})
        assert status == 200, body
        api.token = body["token"]
        lake_body = {"name": "lake", "type": "file", "format": "parquet", "path": str(var / "files")}
        status, _, lake = api.call("POST", "/api/v1/datasources/", lake_body)
        assert status == 201, lake
        params = {
            "src_datasource_id": lake["id"],
            "src_table": "orders",
            "src_field": "status",
            "check_type": "statistics_minus_comparison",
            "operator": "le",
            "threshold": 0,
            "failure_strategy": "alert",
            "comparison_type": "fix_value",
            "comparison_value": 0,
        }
        check_body = {"name": "status present", "template": "null_check", "params": params}
        status, _, check = api.call("POST", "/api/v1/checks/", check_body)
        assert status == 201, check
        schedule_body = {"name": "every minute", "cron": "* * * * *", "checks": [check["id"]]}
        status, _, schedule = api.call("POST", "/api/v1/schedules/", schedule_body)
        assert status == 201, schedule
        status, _, run = api.call("POST", "/api/v1/runs/", {"checks": [check["id"]]})
        assert status == 202, run

        run = _wait_for_run(api, run["id"], servers)
        assert run["status"] == "failed", run
        (result,) = run["results"]
        assert (result["status"], result["statistics_value"], result["error_row_count"]) == ("fail", 2.0, 2)

        # Beat's tick reached the worker through the broker: the every-minute schedule made
        # before the manual run fired a run of its own, which the worker ran too.
        deadline = time.monotonic() + 240
        while True:
            status, _, runs = api.call("GET", "/api/v1/runs/?page_size=10")
            scheduled = [r for r in runs["results"] if r["trigger"] == "schedule"]
            if scheduled and scheduled[0]["status"] not in ("queued", "running"):
                break
            assert time.monotonic() < deadline, f"no scheduled run finished:\n{servers[2].log_tail()}"
            time.sleep(2)
        # The runs list counts results by status; the run's own page holds them.
        status, _, fired = api.call("GET", f"/api/v1/runs/{scheduled[0]['id']}/")
        assert fired["status"] == "failed" and fired["results"][0]["statistics_value"] == 2.0, fired
        for server in servers:
            assert server.alive(), f"{server.name} died:\n{server.log_tail()}"
        assert "ModuleNotFoundError" not in servers[1].log_tail(400)
    finally:
        for server in reversed(servers):
            server.stop()
