"""The spark-submit launcher: the engine as its own Spark application, secrets only in its environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from executions import launcher
from executions.jobs import PreparedJob

pytestmark = pytest.mark.django_db


def test_spark_submit_runs_the_engine_and_passes_the_password_only_through_the_environment(
    pg_datasource, settings, tmp_path, monkeypatch
):
    from conftest import PG, PROBE_PASSWORD

    spec = {
        "run_id": "submit-test",
        "sources": {
            "s": {
                "kind": "jdbc",
                "url": f"jdbc:postgresql://{PG['host']}:{PG['port']}/{PG['dbname']}",
                "driver": "org.postgresql.Driver",
                "table": "dq_test.orders",
                "user": pg_datasource.username,
                "password_secret": "DQ_SECRET_TEST",
            }
        },
        "batches": {"b": {"source": "s"}},
        "checks": [
            {
                "id": "1",
                "name": "emails present",
                "batch": "b",
                "metric": {"kind": "conditional_count", "predicate": "null_or_empty", "column": "customer_email"},
            }
        ],
    }
    written: list[str] = []
    original = Path.write_text

    def spy(self, text, *args, **kwargs):  # records what the launcher puts on disk
        written.append(text)
        return original(self, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", spy)
    settings.DQ_ENGINE_MODE, settings.DQ_SPARK_MASTER, settings.VAR_DIR = "spark_submit", "local[1]", tmp_path
    document = launcher.launch(PreparedJob(spec=spec, secrets={"DQ_SECRET_TEST": PROBE_PASSWORD}))
    assert document["checks"]["1"]["status"] == "ok", document
    assert document["checks"]["1"]["statistic"] == 2  # one NULL and one empty e-mail in dq_test.orders
    assert document["batches"]["b"]["rows"] == 3
    assert written and all(PROBE_PASSWORD not in text for text in written)
    assert json.loads(written[0])["sources"]["s"]["password_secret"] == "DQ_SECRET_TEST"
    assert not any((tmp_path / "jobs").iterdir())  # the spec file is removed afterwards


def test_a_stopped_spark_submit_run_raises_with_the_reason_and_leaves_no_process(settings, tmp_path):
    import os
    import time

    import pyarrow as pa
    import pyarrow.parquet as pq

    data = tmp_path / "numbers"
    data.mkdir()
    pq.write_table(pa.table({"n": pa.array(range(3000), pa.int64())}), data / "part-0.parquet")
    cross_join = "SELECT count(*) FROM ${src_table} a CROSS JOIN ${src_table} b CROSS JOIN ${src_table} c"
    spec = {
        "run_id": "submit-stop-test",
        "sources": {"s": {"kind": "file", "format": "parquet", "path": str(data), "options": {}}},
        "batches": {"b": {"source": "s"}},
        "checks": [{"id": "1", "name": "pairs", "batch": "b", "metric": {"kind": "custom_sql", "sql": cross_join}}],
    }
    settings.DQ_ENGINE_MODE, settings.DQ_SPARK_MASTER, settings.VAR_DIR = "spark_submit", "local[1]", tmp_path
    started = time.monotonic()
    stop_after = started + 25  # spark-submit is well into the cross join by then

    def should_stop():
        return "The run took longer than its time limit." if time.monotonic() > stop_after else None

    with pytest.raises(launcher.RunStopped, match="longer than its time limit"):
        launcher.launch(PreparedJob(spec=spec, secrets={}), should_stop)
    assert time.monotonic() - stop_after < launcher.WATCH_INTERVAL + launcher.KILL_GRACE + 5
    # Neither spark-submit, nor its JVM, nor a Python worker of it is left running.
    leftovers = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = (Path("/proc") / pid / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if str(tmp_path / "jobs") in cmdline:
            leftovers.append(cmdline.replace("\0", " ")[:200])
    assert leftovers == []
