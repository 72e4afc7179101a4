"""The scheduler CLI's exit codes, with the real worker (a worker killed mid-run: test_run_lifecycle_with_workers)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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
