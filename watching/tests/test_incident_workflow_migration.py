"""The migration that makes incidents a workflow: existing incidents take the severity their latest
failure gives (blocking fail critical, blocking error high, alerting fail medium, alerting error
low) and a history of what their columns say: opened, then acknowledged, then resolved."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from watching.models import Incident

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
BEFORE = [("watching", "0003_incident_list_order")]


def _before():
    """Watching before the migration; the checks' own app as it is now (its models are made here)."""
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    return BEFORE + [node for node in leaves if node[0] == "rules"]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def _incidents_before(apps) -> dict[str, int]:
    user = apps.get_model("auth", "User").objects.create(username="handler")
    template = apps.get_model("rules", "RuleTemplate").objects.get(key="null_check")
    Incident = apps.get_model("watching", "Incident")
    Run = apps.get_model("executions", "Run")
    Result = apps.get_model("executions", "Result")
    run = Run.objects.create(biz_date="2026-11-30", data_time="2026-11-30T00:00:00Z", rule_set_hash="h")
    opened_at = timezone.now() - timedelta(days=2)
    made = {}
    for name, blocking, outcome in (
        ("blocking fail", True, "fail"),
        ("blocking error", True, "error"),
        ("alerting fail", False, "fail"),
        ("alerting error", False, "error"),
    ):
        check = apps.get_model("rules", "Check").objects.create(name=name, template=template, params={})
        version = apps.get_model("rules", "CheckVersion").objects.create(
            parent_check=check, number=1, name=name, template_key="null_check", template_version=1, params={},
            content_hash=name,
        )  # fmt: skip
        result = Result.objects.create(
            run=run, check_version=version, rule_check=check, batch="b1", data_time=run.data_time, status=outcome,
            check_type="statistics_minus_comparison", operator="le", threshold=0, identity=name, statistic_name="s",
            failure_strategy="block" if blocking else "alert",
        )  # fmt: skip
        made[name] = Incident.objects.create(
            rule_check=check, outcome=outcome, blocking=blocking, first_result=result, last_result=result,
            opened_at=opened_at,
        )  # fmt: skip
    handled = made["alerting fail"]
    handled.status, handled.acknowledged_by, handled.acknowledged_at = "resolved", user, opened_at + timedelta(hours=1)
    handled.resolved_by, handled.resolved_at = user, opened_at + timedelta(hours=3)
    handled.resolution_note = "reloaded"
    handled.save()
    return {name: incident.pk for name, incident in made.items()}


def test_existing_incidents_get_a_severity_and_the_history_their_columns_tell():
    ids = _incidents_before(_migrate(_before()))
    _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    severity = {name: Incident.objects.get(pk=pk).severity for name, pk in ids.items()}
    assert severity == {
        "blocking fail": "critical",
        "blocking error": "high",
        "alerting fail": "medium",
        "alerting error": "low",
    }
    handled = Incident.objects.get(pk=ids["alerting fail"])
    history = [(c.actor and c.actor.username, c.from_value, c.to_value, c.note, c.at) for c in handled.changes.all()]
    assert history == [
        (None, "", "open", "", handled.opened_at),
        ("handler", "open", "acknowledged", "", handled.acknowledged_at),
        ("handler", "acknowledged", "resolved", "reloaded", handled.resolved_at),
    ]
    untouched = Incident.objects.get(pk=ids["blocking fail"])
    assert [(c.to_value, c.at) for c in untouched.changes.all()] == [("open", untouched.opened_at)]
