from django.db import migrations


def load_monitor_templates(apps, schema_editor):
    """The table monitors' templates: freshness (a time column's newest value, or a file's
    modification time) and schema changes, with the `age_unit` input entry."""
    from rules.catalog_loader import load_templates

    get = lambda name: apps.get_model("rules", name)  # noqa: E731
    load_templates(
        get("RuleTemplate"), get("InputEntry"), get("TemplateInput"), get("ComparisonType"), get("TemplateVersion")
    )


class Migration(migrations.Migration):
    dependencies = [
        ("rules", "0008_value_range_date_bounds"),
    ]

    operations = [
        migrations.RunPython(load_monitor_templates, migrations.RunPython.noop),
    ]
