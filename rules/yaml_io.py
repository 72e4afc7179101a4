"""Rules as code: checks exported to YAML and imported back, exactly.

Datasources are named, not numbered, so a file moves between installations: `src_datasource_id: 7`
exports as `src_datasource: warehouse` and imports back to whatever id `warehouse` has there.
Export is deterministic (checks by name, params in template order), so export → import into an
empty database → export gives the same bytes.
"""

from __future__ import annotations

from typing import Any

import yaml
from django.db import transaction

from datasources.models import Datasource
from dq_engine.safe_yaml import Limits, YamlError, safe_load
from dq_platform.text import control_character

from .models import Check, RuleTemplate
from .params import ParamsInvalid, validate_params

FORMAT_VERSION = 1
# An export of a few thousand checks; the body limit (DQ_MAX_BODY_BYTES) applies before this.
IMPORT_LIMITS = Limits(max_bytes=2_000_000, max_depth=16, max_nodes=200_000)
DATASOURCE_FIELDS = {"src_datasource_id": "src_datasource", "target_datasource_id": "target_datasource"}


class ImportInvalid(Exception):
    def __init__(self, fields: dict[str, Any]):
        super().__init__("The YAML holds invalid checks.")
        self.fields = fields


class ImportForbidden(Exception):
    """The file would replace checks the importing user may not change (owned by someone else)."""

    def __init__(self, names: list[str]):
        super().__init__(
            f"Checks owned by others cannot be replaced: {', '.join(names)}. Nothing was imported; "
            "rename them in the file to import copies, or ask their owner or an administrator."
        )
        self.names = names


class _Dumper(yaml.SafeDumper):
    """Multi-line texts (check.yaml, contract.yaml, long SQL) as literal blocks (`|`), written as
    the author wrote them, so a file reads like the YAML it holds and diffs line by line."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_str(value)


_Dumper.add_representer(str, _text)


def export_checks(checks) -> str:
    names = dict(Datasource.objects.values_list("pk", "name"))
    documents = [_export_one(check, names) for check in checks.select_related("template").order_by("name")]
    return yaml.dump(
        {"version": FORMAT_VERSION, "checks": documents},
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=120,
    )


def _export_one(check: Check, datasource_names: dict[int, str]) -> dict[str, Any]:
    order = [i.field for i in check.template.resolved_inputs()]
    params: dict[str, Any] = {}
    for field in sorted(check.params, key=lambda f: order.index(f) if f in order else len(order)):
        value = check.params[field]
        if field in DATASOURCE_FIELDS:
            params[DATASOURCE_FIELDS[field]] = datasource_names.get(value, value)
        else:
            params[field] = value
    return {"name": check.name, "template": check.template.key, "params": params}


def import_checks(text: str, user) -> list[Check]:
    """Create or update (by name) every check in the YAML, all or nothing.

    Everything is decided before the first write: the params of every check (ImportInvalid), then,
    inside the one transaction and under the row locks of the checks it replaces, that the user
    may change each of them and that none changes template (ImportForbidden, ImportInvalid). A
    refused import writes no check and no version.
    """
    documents = _parse(text)
    errors: dict[str, Any] = {}
    prepared = []
    for index, document in enumerate(documents):
        try:
            prepared.append(_prepare(document, user))
        except ImportInvalid as exc:
            errors[f"checks[{index}]"] = exc.fields
    if errors:
        raise ImportInvalid(errors)
    with transaction.atomic():
        existing = _lock_existing([name for name, _, _ in prepared])
        _refuse_foreign(existing.values(), user)
        _refuse_template_changes(prepared, existing)
        return [_save(existing.get(name), name, template, params, user) for name, template, params in prepared]


def _lock_existing(names: list[str]) -> dict[str, Check]:
    """The alive checks the file replaces, by name, row-locked until the import commits (the same
    lock CheckViewSet's edits take, so an import and a PATCH of one check do not interleave)."""
    checks = Check.objects.alive().filter(name__in=names).select_related("template").select_for_update(of=("self",))
    return {check.name: check for check in checks}


def _refuse_foreign(checks, user) -> None:
    # Ownerless checks (their owner was removed) may be taken over, as through the API.
    if user.is_staff:
        return
    foreign = sorted(c.name for c in checks if c.owner_id not in (user.pk, None))
    if foreign:
        raise ImportForbidden(foreign)


def _refuse_template_changes(prepared, existing: dict[str, Check]) -> None:
    errors = {
        f"checks[{index}]": {
            "template": [
                f"Check {name!r} uses template {existing[name].template.key!r}; a check keeps its template. "
                "Import it under another name to make a new check."
            ]
        }
        for index, (name, template, _) in enumerate(prepared)
        if name in existing and existing[name].template_id != template.pk
    }
    if errors:
        raise ImportInvalid(errors)


def _parse(text: str) -> list[dict[str, Any]]:
    try:
        data = safe_load(text, IMPORT_LIMITS)
    except YamlError as exc:
        raise ImportInvalid({"yaml": [exc.with_line()]}) from None
    if not isinstance(data, dict) or not isinstance(data.get("checks"), list):
        raise ImportInvalid({"yaml": ["Expected a mapping with a `checks:` list (as produced by export)."]})
    if data.get("version", FORMAT_VERSION) != FORMAT_VERSION:
        raise ImportInvalid({"version": [f"Only format version {FORMAT_VERSION} is understood."]})
    names = [d.get("name") for d in data["checks"] if isinstance(d, dict)]
    duplicates = sorted({n for n in names if names.count(n) > 1 and n})
    if duplicates:
        raise ImportInvalid({"checks": [f"Check names must be unique in the file: {', '.join(duplicates)}."]})
    return data["checks"]


def _prepare(document: Any, user) -> tuple[str, RuleTemplate, dict[str, Any]]:
    if not isinstance(document, dict) or set(document) - {"name", "template", "params"}:
        raise ImportInvalid({"check": ["Each check has exactly name, template and params."]})
    name, key, params = document.get("name"), document.get("template"), document.get("params") or {}
    problems: dict[str, Any] = {}
    if not isinstance(name, str) or not name.strip():
        problems["name"] = ["A check needs a name."]
    elif control_character(name) is not None:
        problems["name"] = [f"A check's name is one line of text without control characters: {name!r}."]
    template = RuleTemplate.objects.filter(key=key).first()
    if template is None:
        problems["template"] = [f"Unknown rule template {key!r}."]
    if not isinstance(params, dict):
        problems["params"] = ["params must be a mapping."]
    if problems:
        raise ImportInvalid(problems)
    params = dict(params)
    for id_field, name_field in DATASOURCE_FIELDS.items():
        if name_field in params:
            datasource = Datasource.objects.visible_to(user).filter(name=params.pop(name_field)).first()
            params[id_field] = datasource.pk if datasource else -1  # -1: reported as not usable below
    try:
        return name.strip(), template, validate_params(template, params, user)
    except ParamsInvalid as exc:
        raise ImportInvalid({"name": name, "params": exc.fields}) from None


def _save(check: Check | None, name: str, template: RuleTemplate, params: dict[str, Any], user) -> Check:
    if check is None:
        check = Check.objects.create(name=name, template=template, params=params, owner=user)
    else:
        check.params = params
        check.save()
    check.record_version(user)
    return check
