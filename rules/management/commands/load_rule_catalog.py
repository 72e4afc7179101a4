from django.apps import apps
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from rules.catalog_loader import CatalogError, load_catalog


class Command(BaseCommand):
    help = "Load or refresh the built-in rule templates, input entries and comparison types (idempotent)."

    def handle(self, *args, **options):
        models = [
            apps.get_model("rules", name)
            for name in ("RuleTemplate", "InputEntry", "TemplateInput", "ComparisonType", "TemplateVersion")
        ]
        try:
            with transaction.atomic():
                counts = load_catalog(*models)
        except CatalogError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write("Rule catalog loaded: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items()))
