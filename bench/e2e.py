"""End to end: `POST /api/v1/runs/` → finished, for 14 mixed checks on a 20,000-row file source, on a
warm worker of the embedded default (SQLite, the filesystem broker, one Celery worker), with
engine selection on `auto` (DuckDB for this source). Prints `e2e_seconds=<median of 5>`.

It starts its own web server and worker on a throw-away var directory (nothing of `make run` is
touched), generates the data with bench/generate.py, creates the checks through the API, runs
them once to warm the worker up, then times 5 runs (each polled every 20 ms, as a client would)
and stops both servers by their process ids.

Run: `make bench-e2e`, or `.venv/bin/python -m bench.e2e [--rows 20000] [--runs 5] [--engine auto]`.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench import generate as gen

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
PASSWORD = "bench-e2e-pass-1"
VERDICT = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "fix_value",
    "comparison_value": 0,
}


def checks(
    datasource: int, orders: str = "orders", customers: str = "customers"
) -> list[tuple[str, str, dict[str, Any]]]:
    """14 checks of 10 templates over orders (and customers for accuracy): (name, template, params)."""
    src = {"src_datasource_id": datasource, "src_table": orders}
    return [
        ("emails present", "null_check", {**src, "src_field": "customer_email"}),
        ("ids present", "null_check", {**src, "src_field": "order_id"}),
        (
            "emails well formed",
            "regexp_check",
            {**src, "src_field": "customer_email", "regexp_pattern": gen.EMAIL_PATTERN},
        ),
        ("statuses known", "enumeration_check", {**src, "src_field": "status", "enum_list": list(gen.STATUSES)}),
        ("currencies known", "enumeration_check", {**src, "src_field": "currency", "enum_list": list(gen.CURRENCIES)}),
        (
            "country codes",
            "field_length_check",
            {**src, "src_field": "country_code", "logic_operator": "<>", "field_length": 2},
        ),
        (
            "amounts in range",
            "value_range_check",
            {**src, "src_field": "amount", "min_value": gen.AMOUNT_MIN, "max_value": gen.AMOUNT_MAX},
        ),
        (
            "quantities in range",
            "value_range_check",
            {**src, "src_field": "quantity", "min_value": gen.QUANTITY_MIN, "max_value": gen.QUANTITY_MAX},
        ),
        (
            "created in window",
            "timeliness_check",
            {**src, "src_field": "created_at", "begin_time": gen.WINDOW_BEGIN, "deadline": gen.WINDOW_END},
        ),
        ("order ids unique", "uniqueness_check", {**src, "src_field": "order_id"}),
        (
            "customers known",
            "multi_table_accuracy",
            {
                **src,
                "target_datasource_id": datasource,
                "target_table": customers,
                "mapping_columns": [{"src_field": "customer_id", "operator": "=", "target_field": "customer_id"}],
            },
        ),
        ("rows", "table_count_check", src),
        ("average amount", "column_aggregate_check", {**src, "src_field": "amount", "aggregate": "avg"}),
        (
            "distinct countries",
            "custom_sql",
            {
                **src,
                "statistics_name": "countries",
                "statistics_execute_sql": "SELECT COUNT(DISTINCT country_code) FROM ${src_table}",
            },
        ),
    ]


class Api:
    def __init__(self, url: str):
        self.url, self.token = url, None

    def call(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, method=method, data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"{method} {path}: {exc.code} {exc.read()[:500]!r}") from None

    def run(self, check_ids: list[int], engine: str, poll: float = 0.02) -> tuple[float, dict[str, Any]]:
        started = time.perf_counter()
        run = self.call("POST", "/api/v1/runs/", {"checks": check_ids, "engine": engine})
        while run["status"] in ("queued", "running"):
            time.sleep(poll)
            run = self.call("GET", f"/api/v1/runs/{run['id']}/")
        return time.perf_counter() - started, run


def _seconds_between(first: str, second: str) -> float:
    from datetime import datetime

    return (datetime.fromisoformat(second) - datetime.fromisoformat(first)).total_seconds()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="POST /runs/ → finished on a warm embedded worker.")
    parser.add_argument("--rows", type=int, default=int(os.environ.get("BENCH_E2E_ROWS", "20000")))
    parser.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_E2E_RUNS", "5")))
    parser.add_argument("--engine", default=os.environ.get("BENCH_E2E_ENGINE", "auto"))
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="dq-bench-e2e-"))
    data = work / "files"
    dataset = gen.generate(args.rows, data / "gen")
    tables = data / "shop"
    tables.mkdir(parents=True)
    os.symlink(dataset.orders, tables / "orders")
    os.symlink(dataset.customers, tables / "customers")
    port = free_port()
    env = {**os.environ, "DQ_VAR_DIR": str(work / "var"), "DQ_FILE_ROOTS": str(data), "PYTHONPATH": str(ROOT)}
    env.pop("DJANGO_SETTINGS_MODULE", None)  # the embedded default's settings
    manage = [PY, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], env=env, check=True, cwd=ROOT)
    create_user = (
        "from django.contrib.auth import get_user_model; "
        f"get_user_model().objects.create_superuser('bench', 'bench@example.org', {PASSWORD!r})"
    )
    subprocess.run([*manage, "shell", "-c", create_user], env=env, check=True, cwd=ROOT)
    servers = [
        subprocess.Popen(
            [
                PY,
                "-m",
                "celery",
                "-q",
                "-A",
                "dq_platform",
                "worker",
                "-n",
                "bench-e2e@localhost",
                "-Q",
                "default,spark",
                "-c",
                "1",
                "-l",
                "warning",
            ],
            env=env,
            cwd=ROOT,
            start_new_session=True,
        ),
        subprocess.Popen(
            [*manage, "runserver", f"127.0.0.1:{port}", "--noreload"],
            env=env,
            cwd=ROOT,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
        ),
    ]
    try:
        api = Api(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 120
        while True:
            try:
                api.token = api.call("POST", "/api/v1/auth/token/", {"username": "bench", "password": PASSWORD})[
                    "token"
                ]
                break
            except (OSError, RuntimeError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        source = api.call(
            "POST", "/api/v1/datasources/", {"name": "shop", "type": "file", "format": "parquet", "path": str(tables)}
        )
        ids = [
            api.call("POST", "/api/v1/checks/", {"name": name, "template": template, "params": {**params, **VERDICT}})[
                "id"
            ]
            for name, template, params in checks(source["id"])
        ]
        warm, run = api.run(ids, args.engine)  # the worker's first run: imports, connections
        engines = sorted({batch.get("engine", "?") for batch in run["batches"].values()})
        errors = [r["message"] for r in run["results"] if r["status"] == "error"]
        if errors:
            raise AssertionError(f"The warm-up run has errors: {errors}")
        print(f"warm-up run: {warm:.2f} s; engines {', '.join(engines)}; {len(run['results'])} results")
        timings = []
        for index in range(args.runs):
            seconds, run = api.run(ids, args.engine)
            timings.append(seconds)
            queued = _seconds_between(run["created_at"], run["started_at"])
            print(
                f"  run {index + 1}/{args.runs}: {seconds:.3f} s ({run['status']}; queued {queued:.3f} s, "
                f"running {run['duration_seconds']:.3f} s)"
            )
        print(
            f"rows={args.rows:,} checks={len(ids)} engine={args.engine} ({', '.join(engines)}) load={os.getloadavg()[0]:.2f}"
        )
        print(f"e2e_seconds={statistics.median(timings):.2f}")
    finally:
        for server in servers:
            try:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(timeout=30)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(server.pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
