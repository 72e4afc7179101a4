"""The scheduler CLI's exit codes, and a worker killed mid-run, with the real worker."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from executions.models import Run
from executions.tasks import reap_stale_runs

from .conftest import SCHEMA, VERDICT
from .conftest import create_check as _check

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
ROOT = Path(__file__).resolve().parents[2]


def _dq_run(worker, *args: str) -> subprocess.CompletedProcess:
    env = {**worker.env}
    return subprocess.run(
        [sys.executable, "manage.py", "dq_run", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_cli_exits_0_1_or_2_and_prints_a_summary(cast, api_as, warehouse, celery_worker_process):
    client = api_as(cast.admin)
    src = {"src_datasource_id": warehouse.pk, "src_table": f"{SCHEMA}.orders"}
    passing = _check(
        client, "ten orders", "table_count_check", **src, **{**VERDICT, "operator": "eq", "comparison_value": 10}
    )
    blocking = _check(
        client,
        "emails present",
        "null_check",
        **src,
        src_field="customer_email",
        **{**VERDICT, "failure_strategy": "block"},
    )
    ok = _dq_run(celery_worker_process, "--check", str(passing), "--wait", "--user", "author")
    assert ok.returncode == 0, ok.stderr
    assert "ten orders" in ok.stdout and "PASS" in ok.stdout and "nothing blocks" in ok.stdout
    blocked = _dq_run(celery_worker_process, "--check", str(passing), "--check", str(blocking), "--wait")
    assert blocked.returncode == 1, blocked.stderr
    assert "FAIL" in blocked.stdout and "blocking" in blocked.stderr
    unknown = _dq_run(celery_worker_process, "--check", "99999", "--wait")
    assert unknown.returncode == 2 and "Unknown check id(s): 99999" in unknown.stderr


def test_a_killed_worker_leaves_its_run_error_not_running_forever(
    cast,
    api_as,
    warehouse,
    celery_worker_process,
    settings,
):
    client = api_as(cast.author)
    slow = _check(
        client,
        "slow cross join",
        "custom_sql",
        src_datasource_id=warehouse.pk,
        src_table=f"{SCHEMA}.big",
        statistics_name="pairs",
        statistics_execute_sql="SELECT count(*) AS n FROM ${src_table} a CROSS JOIN ${src_table} b "
        "CROSS JOIN ${src_table} c",
        **VERDICT,
    )
    run_id = client.post("/api/v1/runs/", {"checks": [slow]}, format="json").json()["id"]
    deadline = time.monotonic() + 120
    while Run.objects.get(pk=run_id).status != "running":
        assert time.monotonic() < deadline, "the worker never picked the run up"
        time.sleep(0.5)
    time.sleep(3)  # let Spark get going
    celery_worker_process.kill()
    try:
        assert Run.objects.get(pk=run_id).status == "running"
        settings.DQ_RUN_TIME_LIMIT, settings.DQ_REAPER_GRACE = 1, 0  # the limit has passed
        time.sleep(1.5)
        assert reap_stale_runs() == 1
        run = client.get(f"/api/v1/runs/{run_id}/").json()
        assert run["status"] == "error" and "stopped (killed or lost)" in run["message"]
        assert run["results"][0]["status"] == "error"
    finally:
        celery_worker_process.start()  # later tests get a worker again
    assert os.path.exists(django_settings.DATABASES["default"]["NAME"])
