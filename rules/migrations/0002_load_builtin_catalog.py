from django.db import migrations


def load(apps, schema_editor):
    from rules.catalog_loader import load_catalog

    load_catalog(*(apps.get_model("rules", n) for n in ("RuleTemplate", "InputEntry", "TemplateInput", "ComparisonType")))


class Migration(migrations.Migration):
    dependencies = [("rules", "0001_initial")]
    operations = [migrations.RunPython(load, migrations.RunPython.noop)]
