"""Incidents per check and partition. An existing incident takes the partition of the result that
opened it (whole table for most), so a later pass of another partition no longer closes it."""

from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def scope_from_first_result(apps, schema_editor):
    Incident = apps.get_model("watching", "Incident")
    Result = apps.get_model("executions", "Result")
    opened_by = Result.objects.filter(pk=OuterRef("first_result_id")).values("partition_key")[:1]
    Incident.objects.update(partition_key=Subquery(opened_by))


class Migration(migrations.Migration):
    dependencies = [
        ("executions", "0005_result_partition_key"),
        ("watching", "0001_schedules_channels_incidents"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="incident",
            name="one_unresolved_incident_per_check",
        ),
        migrations.AddField(
            model_name="incident",
            name="partition_key",
            field=models.CharField(
                blank=True,
                default="",
                help_text="The partition it is about; empty: the whole table.",
                max_length=500,
            ),
        ),
        migrations.RunPython(scope_from_first_result, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="incident",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status__in", ["open", "acknowledged"])),
                fields=("rule_check", "partition_key"),
                name="one_unresolved_incident_per_check_and_partition",
            ),
        ),
    ]
