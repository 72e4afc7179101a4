from django.db import migrations, models


def load_anomaly(apps, schema_editor):
    """The `anomaly` comparison type and its knobs (input entries), offered by the templates that
    offer dynamic ranges (a new version of each; existing checks keep theirs until upgraded)."""
    from rules.catalog_loader import load_comparison_types, load_templates

    get = lambda name: apps.get_model("rules", name)  # noqa: E731
    load_comparison_types(get("ComparisonType"))
    load_templates(
        get("RuleTemplate"), get("InputEntry"), get("TemplateInput"), get("ComparisonType"), get("TemplateVersion")
    )


class Migration(migrations.Migration):
    dependencies = [
        ("rules", "0010_rejected_suggestions"),
    ]

    operations = [
        migrations.AlterField(
            model_name="comparisontype",
            name="source",
            field=models.CharField(
                choices=[
                    ("fixed", "A fixed number"),
                    ("history", "This check's earlier results"),
                    ("range", "A range from this check's earlier normal results"),
                    ("data", "Counted from the data"),
                    ("anomaly", "Anomaly detection on this check's earlier normal results"),
                ],
                max_length=10,
            ),
        ),
        migrations.RunPython(load_anomaly, migrations.RunPython.noop),
    ]
