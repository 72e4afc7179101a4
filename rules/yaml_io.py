"""Rules as code: checks exported to YAML and imported back, exactly.

Datasources are named, not numbered, so a file moves between installations: `src_datasource_id: 7`
exports as `src_datasource: warehouse` and imports back to whatever id `warehouse` has there.
Export is deterministic (checks by name, params in template order), so export → import into an
empty database → export gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml
from django.db import transaction
from django.utils.translation import gettext as _

from datasources.models import Datasource
from dq_engine.safe_yaml import Limits, YamlError, compose, construct
from dq_platform.text import control_character
from executions.stored_words import reworded

from .models import Check, RuleTemplate, content_hash
from .params import ParamsInvalid, validate_params

FORMAT_VERSION = 1
# An export of a few thousand checks; the body limit (DQ_MAX_BODY_BYTES) applies before this.
IMPORT_LIMITS = Limits(max_bytes=2_000_000, max_depth=16, max_nodes=200_000)
DATASOURCE_FIELDS = {"src_datasource_id": "src_datasource", "target_datasource_id": "target_datasource"}


class ImportInvalid(Exception):
    def __init__(self, fields: dict[str, Any]):
        super().__init__(_("The YAML holds invalid checks."))
        self.fields = fields


class ImportForbidden(Exception):
    """The file would replace checks the importing user may not change (owned by someone else)."""

    def __init__(self, names: list[str]):
        super().__init__(
            _(
                "Checks owned by others cannot be replaced: %(names)s. Nothing was imported; "
                "rename them in the file to import copies, or ask their owner or an administrator."
            )
            % {"names": ", ".join(names)}
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
    return {"name": check.name, "template": check.template.key, "params": _as_written(check, datasource_names)}


def _as_written(check: Check, datasource_names: dict[int, str]) -> dict[str, Any]:
    """The check's params as the file holds them: template order, datasources by name."""
    order = [i.field for i in check.template.resolved_inputs()]
    params: dict[str, Any] = {}
    for param in sorted(check.params, key=lambda f: order.index(f) if f in order else len(order)):
        value = check.params[param]
        if param in DATASOURCE_FIELDS:
            params[DATASOURCE_FIELDS[param]] = datasource_names.get(value, value)
        else:
            params[param] = value
    return params


# What an import does to each check of the file, decided before anything is written.
ADDED, CHANGED, UNCHANGED, REFUSED = "added", "changed", "unchanged", "refused"


@dataclass
class Planned:
    """One check of the file: what importing it would do. `problems` (refused) keep the shape the
    apply's 400 has; `errors` say the same per field, with the line of the file it is on."""

    index: int
    line: int | None
    name: Any
    template_key: Any
    outcome: str = ADDED
    check: Check | None = None
    prepared: tuple[str, RuleTemplate, dict[str, Any]] | None = None
    problems: dict[str, Any] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)
    changes: list[dict[str, Any]] = field(default_factory=list)
    foreign: bool = False

    def answer(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "line": self.line,
            "name": self.name if isinstance(self.name, str) else None,
            "template": self.template_key if isinstance(self.template_key, str) else None,
            "outcome": self.outcome,
            "check": self.check.pk if self.check and self.outcome != REFUSED else None,
            "current_version": self.check.current_version if self.check and self.outcome != REFUSED else None,
            "changes": self.changes,
            "errors": self.errors,
        }


@dataclass
class ImportPlan:
    checks: list[Planned]

    @property
    def refused(self) -> list[Planned]:
        return [p for p in self.checks if p.outcome == REFUSED]

    def summary(self) -> dict[str, int]:
        counts = {ADDED: 0, CHANGED: 0, UNCHANGED: 0, REFUSED: 0}
        for planned in self.checks:
            counts[planned.outcome] += 1
        return counts

    def fingerprint(self) -> str:
        """Names what the apply would write and what it starts from (each replaced check's current
        version), so an apply can insist on the plan its user reviewed."""
        return content_hash(
            [
                [
                    p.index,
                    p.outcome,
                    p.check.pk if p.check else None,
                    p.check.current_version if p.check else None,
                    p.changes,
                    p.errors,
                    p.name if isinstance(p.name, str) else None,
                ]
                for p in self.checks
            ]
        )

    def answer(self) -> dict[str, Any]:
        return {
            "dry_run": True,
            "plan": self.fingerprint(),
            "applicable": not self.refused,
            "summary": self.summary(),
            "checks": [p.answer() for p in self.checks],
        }


def plan_import(text: str, user, lock: bool = False) -> ImportPlan:
    """What importing `text` as `user` would do to each check, writing nothing. ImportInvalid for
    a file that cannot be read as a whole (not YAML, over a limit, no `checks:` list, duplicate
    names); every other problem refuses its own check only. `lock`: row-lock the checks the file
    replaces (the apply plans in its transaction, under the locks CheckViewSet's edits take)."""
    documents, lines = _parse(text)
    planned = [_plan_one(index, document, lines[index], user) for index, document in enumerate(documents)]
    names = [p.prepared[0] for p in planned if p.prepared]
    checks = Check.objects.alive().filter(name__in=names).select_related("template")
    if lock:
        checks = checks.select_for_update(of=("self",))
    existing = {check.name: check for check in checks}
    datasource_names = dict(Datasource.objects.values_list("pk", "name"))
    visible = set(
        Check.objects.visible_to(user).filter(pk__in=[c.pk for c in existing.values()]).values_list("pk", flat=True)
    )
    for item in planned:
        if item.prepared:
            _compare(item, existing.get(item.prepared[0]), user, datasource_names, visible, lines[item.index])
    return ImportPlan(planned)


def _plan_one(index: int, document: Any, lines: dict[str, int], user) -> Planned:
    name = document.get("name") if isinstance(document, dict) else None
    key = document.get("template") if isinstance(document, dict) else None
    item = Planned(index=index, line=lines.get(""), name=name, template_key=key)
    try:
        item.prepared = _prepare(document, user)
    except ImportInvalid as exc:
        _refuse(item, exc.fields, lines)
    return item


def _compare(item: Planned, check: Check | None, user, datasource_names, visible: set[int], lines) -> None:
    name, template, params = item.prepared
    item.check = check
    if check is None:
        return  # added
    if not user.is_staff and check.owner_id not in (user.pk, None):
        # Ownerless checks (their owner was removed) may be taken over, as through the API.
        item.foreign = True
        message = _(
            "This check is owned by someone else; rename it in the file to import a copy, "
            "or ask its owner or an administrator."
        )
        _refuse(item, {"name": [message]}, lines)
        return
    if check.template_id != template.pk:
        _refuse(
            item,
            {
                "template": [
                    _(
                        "Check %(name)s uses template %(template)s; a check keeps its template. "
                        "Import it under another name to make a new check."
                    )
                    % {"name": repr(name), "template": repr(check.template.key)}
                ]
            },
            lines,
        )
        return
    if check.params == params:
        item.outcome = UNCHANGED
        return
    item.outcome = CHANGED
    before = _as_written(check, datasource_names)
    after = _as_written(Check(template=template, params=params), datasource_names)
    shown = check.pk in visible  # a check the user may replace but not read: which fields, not their values
    for field_name in [*before, *(f for f in after if f not in before)]:
        if before.get(field_name) != after.get(field_name):
            item.changes.append(
                {
                    "field": field_name,
                    "line": lines.get(f"params.{field_name}"),
                    "before": before.get(field_name) if shown else None,
                    "after": after.get(field_name),
                }
            )


def _refuse(item: Planned, fields: dict[str, Any], lines: dict[str, int]) -> None:
    item.outcome = REFUSED
    item.problems = fields
    for path, message in _flatten(fields):
        item.errors.append({"field": path, "line": _line_of(path, lines, item.line), "message": message})


def _flatten(fields: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    found = []
    for key, value in fields.items():
        if key == "name" and isinstance(value, str) and prefix == "":
            continue  # the check's name, carried beside its params' errors
        shown = DATASOURCE_FIELDS.get(key, key) if prefix == "params." else key
        path = f"{prefix}{shown}"
        if isinstance(value, dict):
            found.extend(_flatten(value, f"{path}."))
        elif isinstance(value, list):
            found.extend((path, str(v)) for v in value if not isinstance(v, (dict, list)))
        else:
            found.append((path, str(value)))
    return found


def _line_of(path: str, lines: dict[str, int], default: int | None) -> int | None:
    parts = path.split(".")
    while parts:
        line = lines.get(".".join(parts))
        if line is not None:
            return line
        parts.pop()
    return default


def import_checks(text: str, user, message: str = "", plan: str | None = None) -> list[Check]:
    """Create or update (by name) every check in the YAML, all or nothing; `message` goes on each
    version the import writes.

    Everything is decided before the first write, inside the one transaction and under the row
    locks of the checks it replaces (plan_import): the params of every check (ImportInvalid), that
    none changes template (ImportInvalid), that the user may change each of them (ImportForbidden).
    A refused import writes no check and no version. `plan`: the fingerprint of the dry run the
    user reviewed; PlanChanged when the import would now do something else.
    """
    with transaction.atomic():
        planned = plan_import(text, user, lock=True)
        invalid = {f"checks[{p.index}]": p.problems for p in planned.refused if not p.foreign}
        if invalid:
            raise ImportInvalid(invalid)
        foreign = sorted(p.prepared[0] for p in planned.refused if p.foreign)
        if foreign:
            raise ImportForbidden(foreign)
        if plan is not None and plan != planned.fingerprint():
            raise PlanChanged()
        return [_save(item, user, message) for item in planned.checks]


class PlanChanged(Exception):
    def __init__(self):
        super().__init__(
            _(
                "The checks changed since the dry run (someone saved one of them, or the file differs); "
                "nothing was imported. Run the dry run again and review it."
            )
        )


def _parse(text: str) -> tuple[list[Any], list[dict[str, int]]]:
    """The file's check documents, and for each the lines of its parts (`""`: the check itself,
    `name`, `params`, `params.threshold` …), so a refusal can name the line it is about."""
    try:
        node, loader = compose(text, IMPORT_LIMITS)
        try:
            data = None if node is None else construct(loader, node)
        finally:
            loader.dispose()
    except YamlError as exc:
        raise ImportInvalid({"yaml": [reworded(exc.with_line())]}) from None
    if not isinstance(data, dict) or not isinstance(data.get("checks"), list):
        raise ImportInvalid({"yaml": [_("Expected a mapping with a `checks:` list (as produced by export).")]})
    if data.get("version", FORMAT_VERSION) != FORMAT_VERSION:
        raise ImportInvalid(
            {"version": [_("Only format version %(version)s is understood.") % {"version": FORMAT_VERSION}]}
        )
    lines = _document_lines(node, len(data["checks"]))
    names = [d.get("name") for d in data["checks"] if isinstance(d, dict)]
    duplicates = sorted({n for n in names if isinstance(n, str) and names.count(n) > 1 and n})
    if duplicates:
        where = [
            _("%(name)s (lines %(lines)s)")
            % {
                "name": repr(n),
                "lines": ", ".join(
                    str(lines[i].get("name"))
                    for i, d in enumerate(data["checks"])
                    if isinstance(d, dict) and d.get("name") == n
                ),
            }
            for n in duplicates
        ]
        raise ImportInvalid(
            {"checks": [_("Check names must be unique in the file: %(names)s.") % {"names": ", ".join(where)}]}
        )
    return data["checks"], lines


def _document_lines(root: yaml.Node, count: int) -> list[dict[str, int]]:
    lines: list[dict[str, int]] = [{} for _ in range(count)]
    checks = _value_of(root, "checks")
    if not isinstance(checks, yaml.SequenceNode):
        return lines
    for index, item in enumerate(checks.value[:count]):
        lines[index][""] = item.start_mark.line + 1
        if not isinstance(item, yaml.MappingNode):
            continue
        for key, value in item.value:
            lines[index][str(key.value)] = key.start_mark.line + 1
            if key.value == "params" and isinstance(value, yaml.MappingNode):
                for param, _value in value.value:
                    lines[index][f"params.{param.value}"] = param.start_mark.line + 1
    return lines


def _value_of(mapping: yaml.Node, key: str) -> yaml.Node | None:
    if not isinstance(mapping, yaml.MappingNode):
        return None
    return next((value for k, value in mapping.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)


def _prepare(document: Any, user) -> tuple[str, RuleTemplate, dict[str, Any]]:
    if not isinstance(document, dict) or set(document) - {"name", "template", "params"}:
        raise ImportInvalid({"check": [_("Each check has exactly name, template and params.")]})
    name, key, params = document.get("name"), document.get("template"), document.get("params") or {}
    problems: dict[str, Any] = {}
    if not isinstance(name, str) or not name.strip():
        problems["name"] = [_("A check needs a name.")]
    elif control_character(name) is not None:
        problems["name"] = [
            _("A check's name is one line of text without control characters: %(name)s.") % {"name": repr(name)}
        ]
    template = RuleTemplate.objects.filter(key=key).first() if isinstance(key, str) else None
    if template is None:
        problems["template"] = [_("Unknown rule template %(template)s.") % {"template": repr(key)}]
    if not isinstance(params, dict):
        problems["params"] = [_("params must be a mapping.")]
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


def _save(item: Planned, user, message: str) -> Check:
    name, template, params = item.prepared
    check = item.check
    if item.outcome == UNCHANGED:
        return check  # nothing to write: the dry run said so
    if check is None:
        check = Check.objects.create(name=name, template=template, params=params, owner=user)
    else:
        check.params = params
        check.save()
    check.record_version(user, message=message)
    return check
