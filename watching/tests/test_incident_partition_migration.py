"""The migrations that tell partitions apart: existing results get the key of the partition their
run's batch read, and existing incidents the key of the result that opened them, so a later pass
of another partition no longer closes them."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from executions.models import Result
from watching.models import Incident

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
BEFORE = [("executions", "0004_result_details"), ("watching", "0001_schedules_channels_incidents")]


def _before():
    """Executions and watching before the migrations; the checks' own app as it is now (its models are made here)."""
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    return BEFORE + [node for node in leaves if node[0] == "rules"]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def _make_history(apps) -> dict[str, int]:
    """A check's whole-table failure (its incident resolved) and a failure of partition
    country=NO on business date 2026-11-30 with dt=2026-11-30 (its incident still open)."""
    template = apps.get_model("rules", "RuleTemplate").objects.get(key="null_check")
    check = apps.get_model("rules", "Check").objects.create(name="c", template=template, params={})
    version = apps.get_model("rules", "CheckVersion").objects.create(
        parent_check=check, number=1, name="c", template_key="null_check", template_version=1, params={},
        content_hash="h",
    )  # fmt: skip
    Run = apps.get_model("executions", "Run")
    Result = apps.get_model("executions", "Result")
    Incident = apps.get_model("watching", "Incident")
    common = {"biz_date": "2026-11-30", "data_time": "2026-11-30T00:00:00Z", "rule_set_hash": "h"}
    whole = Run.objects.create(batches={"definitions": {"b1": {"table": "orders"}}}, **common)
    part = Run.objects.create(
        batches={"definitions": {"b1": {"table": "orders", "partition": {"country": "NO", "dt": "2026-11-30"}}}},
        parameters={"batch_id": "7", "batch_attempt": "1"},
        **common,
    )
    verdict = {"check_type": "statistics_minus_comparison", "operator": "le", "threshold": 0,
               "failure_strategy": "alert", "identity": "i", "statistic_name": "s", "status": "fail"}  # fmt: skip
    results = {
        name: Result.objects.create(
            run=run, check_version=version, rule_check=check, batch="b1", data_time=common["data_time"], **verdict
        )
        for name, run in (("whole", whole), ("part", part))
    }
    resolved = Incident.objects.create(
        rule_check=check, outcome="fail", first_result=results["whole"], last_result=results["whole"],
        status="resolved",
    )  # fmt: skip
    opened = Incident.objects.create(
        rule_check=check, outcome="fail", first_result=results["part"], last_result=results["part"]
    )
    return {"whole": results["whole"].pk, "part": results["part"].pk, "resolved": resolved.pk, "open": opened.pk}


def test_existing_results_and_incidents_get_the_partition_they_speak_for():
    ids = _make_history(_migrate(_before()))
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    norway = '{"country":"NO","dt":"${biz_date}"}'
    assert Result.objects.get(pk=ids["whole"]).partition_key == ""
    assert Result.objects.get(pk=ids["part"]).partition_key == norway
    assert Incident.objects.get(pk=ids["resolved"]).partition_key == ""
    assert Incident.objects.get(pk=ids["open"]).partition_key == norway
