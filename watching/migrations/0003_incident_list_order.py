"""The incidents list's order (open, then acknowledged, then resolved; newest first) as a column
the database keeps, with an index in that order: a page is read from the index instead of
sorting every incident on each request."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("watching", "0002_incidents_per_partition"),
    ]

    operations = [
        migrations.AddField(
            model_name="incident",
            name="status_rank",
            field=models.GeneratedField(
                db_persist=True,
                expression=models.Case(
                    models.When(status="open", then=models.Value(0)),
                    models.When(status="acknowledged", then=models.Value(1)),
                    default=models.Value(2),
                ),
                output_field=models.PositiveSmallIntegerField(),
            ),
        ),
        migrations.AddIndex(
            model_name="incident",
            index=models.Index(fields=["status_rank", "-opened_at", "-id"], name="incident_list_order"),
        ),
    ]
