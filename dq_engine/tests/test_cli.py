"""`python -m dq_engine`: spec file in, result file out, secrets from the environment only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dq_engine.tests.conftest import check, make_spec

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "Cli-Secret-Pw-4417!"


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "dq_engine", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.mark.spark
def test_the_cli_writes_the_result_document_and_takes_the_password_from_the_environment(pg_sources, tmp_path):
    sources = {name: {**source, "password_secret": "DQ_TEST_CLI_PASSWORD"} for name, source in pg_sources.items()}
    spec = make_spec(
        sources,
        [
            check("nulls", "null_or_empty", column="customer_email"),
            check("count", "row_count"),
            check("broken", "null_or_empty", column="no_such_column"),
        ],
        run_id=77,
    )
    spec_file, out_file = tmp_path / "spec.json", tmp_path / "result.json"
    spec_file.write_text(json.dumps(spec))

    completed = _cli(
        "--spec", str(spec_file), "--out", str(out_file), "--master", "local[1]", env={"DQ_TEST_CLI_PASSWORD": PASSWORD}
    )

    assert completed.returncode == 0, completed.stderr[-2000:]
    document = json.loads(out_file.read_text())
    assert document["run_id"] == 77 and document["spark_application_id"].startswith("local-")
    assert document["batches"]["b"] == {"rows": 7, "error": None, "engine": "spark"}
    assert (document["checks"]["nulls"]["status"], document["checks"]["nulls"]["statistic"]) == ("ok", 2.0)
    assert (document["checks"]["count"]["status"], document["checks"]["count"]["statistic"]) == ("ok", 7.0)
    assert document["checks"]["broken"]["status"] == "error"  # and still exit 0: the document says so
    for text in (spec_file.read_text(), out_file.read_text(), completed.stdout, completed.stderr):
        assert PASSWORD not in text


def test_the_cli_exits_2_with_a_message_on_a_malformed_spec(tmp_path):
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps({"sources": {}, "batches": {"b": {"source": "nowhere"}}, "checks": []}))

    completed = _cli("--spec", str(spec_file), "--out", str(tmp_path / "out.json"))

    assert completed.returncode == 2
    assert "malformed spec" in completed.stderr and "unknown source 'nowhere'" in completed.stderr
    assert not (tmp_path / "out.json").exists()


def test_the_cli_exits_2_when_the_spec_is_not_json(tmp_path):
    spec_file = tmp_path / "spec.json"
    spec_file.write_text("{not json")

    completed = _cli("--spec", str(spec_file), "--out", str(tmp_path / "out.json"))

    assert completed.returncode == 2 and "not JSON" in completed.stderr
