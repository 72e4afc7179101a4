from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from datasources.models import Datasource
from demo import data as demo

DEMO_CHECKS = Path(demo.__file__).with_name("demo_checks.yaml")


@dataclass(frozen=True)
class DemoSource:
    name: str
    format: str
    path: Path
    description: str
    options: dict = field(default_factory=dict)


def demo_sources(layout: demo.DemoLayout) -> list[DemoSource]:
    return [
        DemoSource(
            "demo",
            Datasource.FileFormat.PARQUET,
            layout.parquet_dir,
            "Demo orders with planted defects (see README.txt beside this folder).",
        ),
        DemoSource(
            "demo_csv",
            Datasource.FileFormat.CSV,
            layout.csv_dir,
            "Demo customers (CSV) with planted defects (see README.txt beside this folder).",
            {"header": "true"},
        ),
    ]


class Command(BaseCommand):
    help = "Write the demo data set (known, documented defects) under VAR_DIR/demo and register its datasources."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--force", action="store_true", help="Rewrite the demo files even if they are current.")

    def handle(self, *args, force: bool = False, **options) -> None:
        layout = demo.DemoLayout(Path(settings.VAR_DIR) / "demo")
        if demo.ensure_demo_data(layout.root, force=force):
            self.stdout.write(f"Wrote demo data to {layout.root} (planted defects listed in {layout.readme}).")
        else:
            self.stdout.write(f"Demo data already in {layout.root} (use --force to rewrite it).")
        with transaction.atomic():
            for source in demo_sources(layout):
                self._register(source)
        self._import_checks()

    def _import_checks(self) -> None:
        """The demo checks, through the same validation as a YAML import by a user (rules as code)."""
        from rules.models import Check
        from rules.yaml_io import ImportInvalid, import_checks

        if Check.objects.alive().filter(name__startswith="demo · ").exists():
            self.stdout.write("Demo checks already present.")
            return
        owner = get_user_model().objects.filter(is_superuser=True).order_by("pk").first()
        if owner is None:
            self.stderr.write(
                self.style.WARNING("No administrator yet, so no demo checks: run ensure_admin, then load_demo.")
            )
            return
        try:
            checks = import_checks(DEMO_CHECKS.read_text(encoding="utf-8"), owner)
        except ImportInvalid as exc:
            raise CommandError(f"The demo checks do not validate: {exc.fields}") from None
        self.stdout.write(f"Created {len(checks)} demo checks.")

    def _register(self, source: DemoSource) -> None:
        existing = Datasource.objects.alive().filter(name=source.name).first()  # a deleted one freed the name
        if existing is None:
            self._create(source)
        elif (existing.type, existing.format, existing.path) == (Datasource.Type.FILE, source.format, str(source.path)):
            self.stdout.write(f"Datasource {source.name!r} already registered.")
        else:
            # Someone made or edited a datasource with this name: theirs to keep, not ours to overwrite.
            self.stderr.write(
                self.style.WARNING(
                    f"Datasource {source.name!r} exists with another configuration ({existing.location}); "
                    "left unchanged."
                )
            )

    def _create(self, source: DemoSource) -> None:
        datasource = Datasource(
            name=source.name,
            type=Datasource.Type.FILE,
            format=source.format,
            path=str(source.path),
            description=source.description,
            options=source.options,
        )
        problems = datasource.validate_config()
        if problems:
            details = "; ".join(f"{name}: {' '.join(messages)}" for name, messages in problems.items())
            raise CommandError(f"The demo datasource {source.name!r} is not valid here: {details}")
        datasource.save()
        self.stdout.write(f"Created datasource {source.name!r} ({source.format}, {source.path}).")
