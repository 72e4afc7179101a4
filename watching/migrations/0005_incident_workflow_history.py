"""Existing incidents take the severity their latest failure gives (watching.models.severity_of)
and a history of what their columns say: opened, then acknowledged, then resolved."""

from django.db import migrations


def severity_and_history_of_existing_incidents(apps, schema_editor):
    Incident = apps.get_model("watching", "Incident")
    IncidentChange = apps.get_model("watching", "IncidentChange")
    for blocking, outcome, severity in (
        (True, "fail", "critical"),
        (True, "error", "high"),
        (False, "fail", "medium"),
        (False, "error", "low"),
    ):
        Incident.objects.filter(blocking=blocking, outcome=outcome).update(severity=severity)
    changes = []
    for incident in Incident.objects.order_by("pk").iterator():
        changes.append(IncidentChange(incident=incident, at=incident.opened_at, field="status", to_value="open"))
        if incident.acknowledged_at:
            changes.append(
                IncidentChange(
                    incident=incident,
                    at=incident.acknowledged_at,
                    actor_id=incident.acknowledged_by_id,
                    field="status",
                    from_value="open",
                    to_value="acknowledged",
                )
            )
        if incident.status == "resolved":
            changes.append(
                IncidentChange(
                    incident=incident,
                    at=incident.resolved_at or incident.last_seen_at,
                    actor_id=incident.resolved_by_id,
                    field="status",
                    from_value="acknowledged" if incident.acknowledged_at else "open",
                    to_value="resolved",
                    note=incident.resolution_note,
                )
            )
        if len(changes) >= 1000:
            IncidentChange.objects.bulk_create(changes)
            changes = []
    IncidentChange.objects.bulk_create(changes)


class Migration(migrations.Migration):
    dependencies = [
        ("watching", "0004_incident_workflow"),
    ]

    operations = [
        migrations.RunPython(severity_and_history_of_existing_incidents, migrations.RunPython.noop),
    ]
