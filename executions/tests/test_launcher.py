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
