"""Spark at scale, shown: a real standalone Spark cluster on 127.0.0.1 (a master and one worker,
started from the installed pyspark's `spark-class`), a real Celery worker in `spark_submit` mode
sending each run to it, and checks on Parquet, PostgreSQL and MariaDB sources in ONE run through
the API. The JDBC drivers and the engine's own jar must reach the cluster's executors (they once
reached only the driver: ClassNotFoundException org.postgresql.Driver on every database check).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import MYSQL_TEST_DB

from .conftest import SCHEMA, VERDICT, _die_with_parent, create_check, wait_for_run

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _spark_class() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "bin" / "spark-class"


@pytest.fixture
def spark_cluster(tmp_path):
    """`spark://127.0.0.1:<port>` of a standalone master with one worker (1 core, 1 GiB)."""
    master_port, master_ui, worker_ui = _free_port(), _free_port(), _free_port()
    env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_LOG_DIR": str(tmp_path), "SPARK_NO_DAEMONIZE": "1"}
    url = f"spark://127.0.0.1:{master_port}"
    commands = [
        ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(master_port)],
        ["org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1", "--cores", "1", "--memory", "1g"],
    ]
    uis = [master_ui, worker_ui]
    processes = []
    for name, command, ui in zip(("master", "worker"), commands, uis, strict=True):
        log = (tmp_path / f"spark-{name}.log").open("ab")
        processes.append(
            subprocess.Popen(
                [str(_spark_class()), *command, "--webui-port", str(ui)],
                env={**env, "SPARK_WORKER_DIR": str(tmp_path / "work")},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        )
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{master_ui}/json/", timeout=5) as response:
                    if json.load(response).get("aliveworkers", 0) >= 1:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, (tmp_path / "spark-worker.log").read_text(errors="replace")[-3000:]
            time.sleep(1)
        yield url
    finally:
        for process in reversed(processes):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)


def test_checks_on_parquet_postgresql_and_mariadb_run_on_a_standalone_cluster(
    cast, api_as, lake, warehouse, mysql_datasource, file_roots, tmp_path, spark_cluster, celery_processes
):
    worker = celery_processes.worker(
        "redis",
        DQ_ENGINE_MODE="spark_submit",
        DQ_SPARK_MASTER=spark_cluster,
        DQ_FILE_ROOTS=str(file_roots),
        DQ_ERROR_DATA_ROOT=str(tmp_path / "error-data"),
    )
    client = api_as(cast.admin)
    pg = {"src_datasource_id": warehouse.pk, "src_table": f"{SCHEMA}.orders"}
    maria = {"src_datasource_id": mysql_datasource.pk, "src_table": f"{MYSQL_TEST_DB}.orders"}
    parquet = {"src_datasource_id": lake.pk, "src_table": "orders"}
    checks = {
        "parquet status present": (
            create_check(client, "p1", "null_check", **parquet, src_field="status", **VERDICT),
            1,
        ),
        "parquet rows": (create_check(client, "p2", "table_count_check", **parquet, **VERDICT), 3),
        "pg emails present": (create_check(client, "g1", "null_check", **pg, src_field="customer_email", **VERDICT), 2),
        # The regex runs in the engine's JVM functions (its jar), on the executors.
        "pg emails shaped": (
            create_check(
                client, "g2", "regexp_check", **pg, src_field="customer_email", regexp_pattern=r"@x\.io$", **VERDICT
            ),
            2,
        ),
        "pg unique ids": (create_check(client, "g3", "uniqueness_check", **pg, src_field="order_id", **VERDICT), 2),
        "maria emails present": (
            create_check(client, "m1", "null_check", **maria, src_field="customer_email", **VERDICT),
            2,
        ),
        "maria rows": (create_check(client, "m2", "table_count_check", **maria, **VERDICT), 3),
    }
    ids = {check_id: name for name, (check_id, _) in checks.items()}

    # Pinned: under auto, these small tables are read by DuckDB and pushed down, and no Spark runs.
    response = client.post("/api/v1/runs/", {"checks": list(ids), "engine": "spark"}, format="json")
    assert response.status_code == 202, response.json()
    run = wait_for_run(client, response.json()["id"], timeout=480)

    assert run["status"] in ("passed", "failed"), (run, worker.log_tail())
    assert (run.get("spark_application_id") or "").startswith("app-"), run  # a cluster's application, not local-
    got = {ids[r["check"]]: (r["status"], r["statistics_value"], r["message"]) for r in run["results"]}
    for name, (_, statistic) in checks.items():
        status, value, message = got[name]
        assert status in ("pass", "fail") and value == statistic, (name, status, value, message)
