"""Moving a check to its template's current version, on request and with the differences shown.

A check version keeps computing with the template version it was saved with (TemplateVersion);
a changed template reaches a check only when the check is edited or explicitly upgraded here.
Used by `GET/POST /api/v1/checks/{id}/upgrade/` (rules/views.py).
"""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext as _

from .models import Check, CheckVersion, TemplateVersion
from .params import validate_params


class AlreadyCurrent(Exception):
    """The check already uses its template's current version: there is nothing to upgrade to."""


def upgrade_plan(check: Check) -> dict[str, Any]:
    """`{"from", "to", "template", "changes"}`: the template version numbers and what differs."""
    current, target = _versions(check)
    return {
        "from": current.definition.number,
        "to": target.number,
        "template": check.template.key,
        "changes": definition_changes(current.definition, target),
    }


def upgrade(check: Check, user) -> CheckVersion:
    """A new check version on the template's current version. The params are validated against
    it first (ParamsInvalid names each field that no longer fits)."""
    _versions(check)
    check.params = validate_params(check.template, check.params, user)
    check.save(update_fields=["params", "updated_at"])
    return check.record_version(user, upgrade=True)


def _versions(check: Check) -> tuple[CheckVersion, TemplateVersion]:
    current = check.current()
    target = check.template.refresh_definition()
    if current.definition_id == target.pk:
        raise AlreadyCurrent(
            _("Check %(name)s already uses the current version of template %(template)s (v%(version)s).")
            % {"name": repr(check.name), "template": check.template.key, "version": target.number}
        )
    return current, target


def definition_changes(old: TemplateVersion, new: TemplateVersion) -> list[dict[str, Any]]:
    """What differs between two template versions, one entry per changed thing:
    `{"path", "change": "added" | "removed" | "changed" | "reordered", "before", "after", "summary"}`."""
    changes = _diff("rule_json", old.rule_json, new.rule_json)
    old_inputs, new_inputs = _by(old.inputs, "field"), _by(new.inputs, "field")
    changes += _diff("inputs", old_inputs, new_inputs)
    common = [f for f in old_inputs if f in new_inputs]
    if common != [f for f in new_inputs if f in old_inputs]:
        changes.append(_change("inputs", "reordered", list(old_inputs), list(new_inputs)))
    old_types, new_types = _by(old.comparison_types, "key"), _by(new.comparison_types, "key")
    for key in old_types.keys() & new_types.keys():  # added or removed ones show in rule_json
        changes += _diff(f"comparison_types.{key}", old_types[key], new_types[key])
    return changes


def _by(items: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    return {item[key]: item for item in items}


def _diff(path: str, before: Any, after: Any) -> list[dict[str, Any]]:
    if before == after:
        return []
    if isinstance(before, dict) and isinstance(after, dict):
        changes = []
        for key in [*before, *(k for k in after if k not in before)]:
            where = f"{path}.{key}"
            if key not in after:
                changes.append(_change(where, "removed", before[key], None))
            elif key not in before:
                changes.append(_change(where, "added", None, after[key]))
            else:
                changes += _diff(where, before[key], after[key])
        return changes
    if _is_list_of_names(before) and _is_list_of_names(after) and set(before) != set(after):
        return [_change(path, "removed", item, None) for item in before if item not in after] + [
            _change(path, "added", None, item) for item in after if item not in before
        ]
    return [_change(path, "changed", before, after)]


def _is_list_of_names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _change(path: str, change: str, before: Any, after: Any) -> dict[str, Any]:
    values = {"path": path, "before": _show(before), "after": _show(after)}
    text = {
        "added": _("%(path)s: added %(after)s"),
        "removed": _("%(path)s: removed %(before)s"),
        "changed": _("%(path)s: %(before)s → %(after)s"),
        "reordered": _("%(path)s: order %(before)s → %(after)s"),
    }[change] % values
    return {"path": path, "change": change, "before": before, "after": after, "summary": text}


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)
