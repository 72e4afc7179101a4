"""Incidents as a workflow: a severity (set from the failing result; a person may change it), an
assignee, comments, and the history of every change of status, assignee and severity. Existing
incidents are given theirs by the next migration (data apart from schema: PostgreSQL will not
build this one's indexes on rows changed in the same transaction)."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("executions", "0009_result_feedback"),
        ("rules", "0011_anomaly_comparison"),
        ("watching", "0003_incident_list_order"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="IncidentChange",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("at", models.DateTimeField(default=django.utils.timezone.now)),
                (
                    "field",
                    models.CharField(
                        choices=[("status", "Status"), ("assignee", "Assignee"), ("severity", "Severity")],
                        max_length=10,
                    ),
                ),
                ("from_value", models.CharField(blank=True, max_length=150)),
                ("to_value", models.CharField(blank=True, max_length=150)),
                ("note", models.TextField(blank=True)),
            ],
            options={
                "ordering": ["at", "id"],
            },
        ),
        migrations.CreateModel(
            name="IncidentComment",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("text", models.TextField()),
            ],
            options={
                "ordering": ["created_at", "id"],
            },
        ),
        migrations.AddField(
            model_name="incident",
            name="assignee",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="assigned_incidents",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="incident",
            name="severity",
            field=models.CharField(
                choices=[("critical", "Critical"), ("high", "High"), ("medium", "Medium"), ("low", "Low")],
                db_index=True,
                default="medium",
                max_length=10,
            ),
        ),
        migrations.AddField(
            model_name="incident",
            name="severity_chosen",
            field=models.BooleanField(default=False, help_text="Set by a person: later failures no longer change it."),
        ),
        migrations.AddIndex(
            model_name="incident",
            index=models.Index(fields=["-opened_at", "-id"], name="incident_opened_order"),
        ),
        migrations.AddField(
            model_name="incidentchange",
            name="actor",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="incidentchange",
            name="incident",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="changes", to="watching.incident"
            ),
        ),
        migrations.AddField(
            model_name="incidentcomment",
            name="author",
            field=models.ForeignKey(
                null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL
            ),
        ),
        migrations.AddField(
            model_name="incidentcomment",
            name="incident",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="comments", to="watching.incident"
            ),
        ),
        migrations.AddField(
            model_name="incident",
            name="severity_rank",
            field=models.GeneratedField(
                db_persist=True,
                expression=models.Case(
                    models.When(severity="critical", then=models.Value(0)),
                    models.When(severity="high", then=models.Value(1)),
                    models.When(severity="medium", then=models.Value(2)),
                    default=models.Value(3),
                ),
                output_field=models.PositiveSmallIntegerField(),
            ),
        ),
    ]
