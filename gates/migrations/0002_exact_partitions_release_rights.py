"""Partitions matched as values, releases without a scope and with who ended them, attempts that
record the bound checks their requester could not run.

Existing batches get the new key, computed from the partition they stored: the old key joined
`name=value` with commas unescaped, so two different partitions could share it. A release's scope
was never applied by the gate; a non-default one is kept in the release's reason before the column
goes."""

import hashlib
import json

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def exact_keys(apps, schema_editor):
    # Frozen copy of gates.partitions.partition_key (a migration must not follow later code).
    Batch = apps.get_model("gates", "Batch")
    for batch in Batch.objects.only("pk", "partition").iterator():
        text = json.dumps(
            {str(k): str(v) for k, v in (batch.partition or {}).items()},
            sort_keys=True,
            separators=(",", ":"),
            ensure_ascii=False,
        )
        Batch.objects.filter(pk=batch.pk).update(partition_key=hashlib.sha256(text.encode()).hexdigest())


def keep_scopes_in_reasons(apps, schema_editor):
    Release = apps.get_model("gates", "Release")
    for release in Release.objects.exclude(scope__in=["", "this batch only"]).iterator():
        Release.objects.filter(pk=release.pk).update(reason=f"{release.reason} (scope asked: {release.scope})")


class Migration(migrations.Migration):
    dependencies = [
        ("gates", "0001_batches_and_gates"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(keep_scopes_in_reasons, migrations.RunPython.noop),
        migrations.RemoveField(model_name="release", name="scope"),
        migrations.AddField(
            model_name="batchattempt",
            name="skipped_checks",
            field=models.JSONField(
                blank=True,
                default=list,
                help_text="Checks bound to the table that were not run: they read data the requester may not read "
                '([{"check", "name", "failure_strategy", "public"}]).',
            ),
        ),
        migrations.AddField(
            model_name="release",
            name="ended_by",
            field=models.ForeignKey(
                blank=True,
                help_text="Who ended it before its expiry (by re-validating the batch).",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AlterField(
            model_name="batch",
            name="partition",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text='Partition columns and values, typed by the catalog: {"dt": "…", "hour": 3}.',
            ),
        ),
        migrations.RunPython(exact_keys, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="batch",
            name="partition_key",
            field=models.CharField(db_index=True, editable=False, max_length=64),
        ),
    ]
