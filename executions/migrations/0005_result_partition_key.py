"""Results say which partition they speak for, so baselines and incidents keep partitions apart;
existing results get the key of the partition their run's batch read."""

from django.db import migrations, models


def fill_partition_keys(apps, schema_editor):
    from executions.scopes import scope_key

    Result = apps.get_model("executions", "Result")
    # Only a registered batch's run reads a partition (a retry keeps its parameters too).
    batch_results = Result.objects.filter(run__parameters__has_key="batch_id").select_related("run")
    for result in batch_results.iterator(chunk_size=500):
        definition = (result.run.batches or {}).get("definitions", {}).get(result.batch) or {}
        key = scope_key(definition.get("partition") or {}, result.run.biz_date.isoformat())
        if key:
            Result.objects.filter(pk=result.pk).update(partition_key=key)


class Migration(migrations.Migration):
    dependencies = [
        ("executions", "0004_result_details"),
    ]

    operations = [
        migrations.AddField(
            model_name="result",
            name="partition_key",
            field=models.CharField(
                blank=True,
                default="",
                help_text="The partition the result speaks for (executions/scopes.py); empty: the whole table.",
                max_length=500,
            ),
        ),
        migrations.RunPython(fill_partition_keys, migrations.RunPython.noop),
    ]
