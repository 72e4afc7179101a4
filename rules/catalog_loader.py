"""Loads the built-in catalog (rules/catalog/*.yaml) into the database.

Re-runnable: rows are matched by key/field and updated in place, so running it twice (or after
editing a YAML file) never duplicates anything. A template whose definition changed gets a new
version number and an immutable copy (TemplateVersion). Takes the model classes as arguments so a
data migration can pass its historical models; it therefore validates and versions by itself
instead of relying on model.save().
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from django.db import models

from .comparison_types import ComparisonSpec, definition_problems, template_problems
from .models import (
    ENTRY_ATTRIBUTES,
    comparison_snapshots,
    content_hash,
    record_definition,
    resolve_input,
    template_definition,
)
from .schema import rule_json_problems

CATALOG_DIR = Path(__file__).resolve().parent / "catalog"


class CatalogError(ValueError):
    pass


def read_yaml(name: str) -> Any:
    # The shipped catalog, not user text: it uses anchors, which dq_engine.safe_yaml refuses.
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


def load_catalog(RuleTemplate, InputEntry, TemplateInput, ComparisonType, TemplateVersion=None) -> dict[str, int]:  # noqa: N803
    """Comparison types, input entries and templates from the YAML files. `TemplateVersion`: where
    each changed template's definition is copied (None only for migrations older than it)."""
    load_comparison_types(ComparisonType)
    return load_templates(RuleTemplate, InputEntry, TemplateInput, ComparisonType, TemplateVersion)


def load_comparison_types(ComparisonType) -> None:  # noqa: N803
    fields = {f.name for f in ComparisonType._meta.get_fields()}
    for position, row in enumerate(read_yaml("comparison_types.yaml")):
        values = {name: row.get(name, "") for name in ("window", "aggregation", "batch")}
        problems = definition_problems(row["source"], **values)
        if problems:
            raise CatalogError(f"Comparison type {row['key']}: {problems}")
        defaults = {"name": row["name"], "description": row.get("description", ""), "source": row["source"]}
        defaults.update({name: value for name, value in values.items() if name in fields})  # older migrations
        _upsert(ComparisonType, "key", row["key"], {**defaults, "position": position})


def load_templates(RuleTemplate, InputEntry, TemplateInput, ComparisonType, TemplateVersion=None) -> dict[str, int]:  # noqa: N803
    entries = {}
    for row in read_yaml("input_entries.yaml"):
        defaults = {name: row[name] for name in ENTRY_ATTRIBUTES if name in row}
        entries[row["field"]] = _upsert(InputEntry, "field", row["field"], _with_entry_defaults(defaults))

    known_types = list(ComparisonType.objects.values_list("key", flat=True))
    templates = read_yaml("templates.yaml")["templates"]
    for row in templates:
        inputs = _flatten_inputs(row["inputs"])
        unknown = [i["field"] for i in inputs if i["field"] not in entries]
        if unknown:
            raise CatalogError(f"Template {row['key']} uses unknown input entries: {', '.join(unknown)}")
        snapshots = comparison_snapshots(ComparisonType, row["rule_json"]["comparison_types"])
        problems = rule_json_problems(row["rule_json"], comparison_type_keys=known_types) or template_problems(
            row["rule_json"]["metric"], [ComparisonSpec.of(s) for s in snapshots], {i["field"] for i in inputs}
        )
        if problems:
            raise CatalogError(f"Template {row['key']}: " + "; ".join(problems))
        template = RuleTemplate.objects.filter(key=row["key"]).first() or RuleTemplate(key=row["key"], version=1)
        template.name, template.rule_type = row["name"], row["rule_type"]
        template.dimension, template.description = row["dimension"], row["description"]
        template.rule_json, template.builtin = row["rule_json"], True
        # Saved through the base Model.save (historical models in migrations have no custom save);
        # the version is recorded below, once the inputs are in place.
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
        resolved = [resolve_input(entries[i["field"]], {k: v for k, v in i.items() if k != "field"}) for i in inputs]
        definition = template_definition(row["rule_json"], resolved, snapshots)
        if TemplateVersion is not None:
            record_definition(TemplateVersion, template, definition)
        else:
            _bump_without_copies(template, definition)
    return {"templates": len(templates), "entries": len(entries), "comparison_types": ComparisonType.objects.count()}


def _upsert(model, key_name: str, key: str, values: dict[str, Any]):
    """Through the base Model.save: the models' own save() would record template versions midway,
    before the templates themselves are loaded."""
    row = model.objects.filter(**{key_name: key}).first() or model(**{key_name: key})
    for name, value in values.items():
        setattr(row, name, value)
    models.Model.save(row)
    return row


def _bump_without_copies(template, definition: dict[str, Any]) -> None:
    """Migrations from before template versions: only the number and hash move on."""
    digest = content_hash(definition)
    if digest != template.definition_hash:
        version = template.version + 1 if template.definition_hash else template.version
        type(template).objects.filter(pk=template.pk).update(version=version, definition_hash=digest)


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
