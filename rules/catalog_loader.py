"""Loads the built-in catalog (rules/catalog/*.yaml) into the database.

Re-runnable: rows are matched by key/field and updated in place, so running it twice (or after
editing a YAML file) never duplicates anything. A template whose definition changed gets a new
version number. Takes the model classes as arguments so a data migration can pass its historical
models; it therefore validates and versions by itself instead of relying on model.save().
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from django.db import models

from .models import ENTRY_ATTRIBUTES
from .schema import rule_json_problems

CATALOG_DIR = Path(__file__).resolve().parent / "catalog"


class CatalogError(ValueError):
    pass


def read_yaml(name: str) -> Any:
    return yaml.safe_load((CATALOG_DIR / name).read_text(encoding="utf-8"))


def _flatten_inputs(items: list) -> list[dict[str, Any]]:
    """Inputs may be field names, {field: ..., overrides...} or nested lists (YAML anchors)."""
    flat: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, list):
            flat.extend(_flatten_inputs(item))
        elif isinstance(item, str):
            flat.append({"field": item})
        else:
            flat.append(dict(item))
    return flat


def load_catalog(RuleTemplate, InputEntry, TemplateInput, ComparisonType) -> dict[str, int]:  # noqa: N803
    from .models import definition_digest  # a pure function; safe with historical models

    for position, row in enumerate(read_yaml("comparison_types.yaml")):
        ComparisonType.objects.update_or_create(
            key=row["key"],
            defaults={
                "name": row["name"],
                "description": row.get("description", ""),
                "source": row["source"],
                "window": row.get("window", ""),
                "position": position,
            },
        )
    entries = {}
    for row in read_yaml("input_entries.yaml"):
        defaults = {name: row[name] for name in ENTRY_ATTRIBUTES if name in row}
        entry, _ = InputEntry.objects.update_or_create(field=row["field"], defaults=_with_entry_defaults(defaults))
        entries[entry.field] = entry

    templates = read_yaml("templates.yaml")["templates"]
    for row in templates:
        problems = rule_json_problems(row["rule_json"])
        if problems:
            raise CatalogError(f"Template {row['key']}: " + "; ".join(problems))
        inputs = _flatten_inputs(row["inputs"])
        unknown = [i["field"] for i in inputs if i["field"] not in entries]
        if unknown:
            raise CatalogError(f"Template {row['key']} uses unknown input entries: {', '.join(unknown)}")
        digest = definition_digest(row["rule_json"], inputs)
        template = RuleTemplate.objects.filter(key=row["key"]).first()
        if template is None:
            template = RuleTemplate(key=row["key"], version=1)
        elif template.definition_hash != digest:
            template.version += 1
        template.name, template.rule_type = row["name"], row["rule_type"]
        template.dimension, template.description = row["dimension"], row["description"]
        template.rule_json, template.definition_hash, template.builtin = row["rule_json"], digest, True
        # Saved through the base Model.save (historical models in migrations have no custom save),
        # with the hash and version computed above.
        models.Model.save(template)
        TemplateInput.objects.filter(template_id=template.pk).delete()
        TemplateInput.objects.bulk_create(
            TemplateInput(
                template_id=template.pk,
                entry=entries[item["field"]],
                position=position,
                overrides={k: v for k, v in item.items() if k != "field"},
            )
            for position, item in enumerate(inputs, start=1)
        )
    return {"templates": len(templates), "entries": len(entries), "comparison_types": ComparisonType.objects.count()}


def _with_entry_defaults(values: dict[str, Any]) -> dict[str, Any]:
    base = {
        "placeholder": "",
        "help": "",
        "default": None,
        "options": [],
        "option_source": "",
        "depends_on": "",
        "shown_when": {},
        "constraints": {},
        "required": False,
        "shown": True,
        "editable": True,
        "reloads_dependents": False,
    }
    return {**base, **values}
