"""Builds the form-create rule array (the `@form-create/element-ui` dialect) for a template.

The SPA renders this JSON as served, so everything a form needs is here: controls, titles,
placeholders, help (`info`), validation, defaults, the datasource options the caller may use,
and the linkage: tables and columns load through `effect.fetch` from /api/v1/form-options/ when
the field above them changes (`link` names those fields, so the SPA clears stale values), and
`control` shows the fixed expected value only for the `fix_value` comparison.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext as _

from datasources.models import Datasource

from .catalog_text import catalog_options, catalog_text
from .models import ComparisonType, ResolvedInput, RuleTemplate
from .schema import MAPPING_OPERATORS, param_choices

FORM_OPTIONS_URL = "/api/v1/form-options"
# Fields of the verdict share a row two by two; everything else takes the full width.
HALF_WIDTH = {
    "check_type",
    "operator",
    "threshold",
    "failure_strategy",
    "comparison_type",
    "comparison_value",
    "min_value",
    "max_value",
    "logic_operator",
    "field_length",
    "begin_time",
    "deadline",
}


def build_form(template: RuleTemplate, user) -> list[dict[str, Any]]:
    inputs = [i for i in template.resolved_inputs() if i["shown"]]
    by_field = {i.field: i for i in inputs}
    rules = [_rule(i, template, user, by_field) for i in inputs]
    _add_controls(rules, inputs)
    return rules


def _rule(entry: ResolvedInput, template: RuleTemplate, user, by_field: dict[str, ResolvedInput]) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "type": "input",
        "field": entry.field,
        "title": catalog_text(entry["title"]),
        "info": catalog_text(entry["help"]),
        "props": {"placeholder": catalog_text(entry["placeholder"]), "disabled": not entry["editable"]},
        "validate": _validate(entry),
        "col": {"span": 12 if entry.field in HALF_WIDTH else 24},
    }
    if entry["default"] is not None:
        rule["value"] = entry["default"]
    builder = FORM_TYPE_BUILDERS[entry["form_type"]]
    builder(rule, entry, template=template, user=user, by_field=by_field)
    return rule


def _validate(entry: ResolvedInput) -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = []
    title = catalog_text(entry["title"])
    if entry["required"]:
        if entry["value_type"] == "list":
            message = _("Enter at least one value: it is required.")
        elif entry["form_type"] == "select":
            message = _("Pick %(field)s: it is required.") % {"field": _lower_first(title)}
        else:
            message = _("Enter %(field)s: it is required.") % {"field": _lower_first(title)}
        rules.append({"required": True, "message": message, "trigger": "change"})
    if entry["value_type"] in ("number", "integer"):
        message = _("%(field)s must be a number.") % {"field": title}
        rules.append({"type": "number", "message": message, "trigger": "change"})
    return rules


def _lower_first(title: str) -> str:
    """ "Source column" → "source column" inside a sentence (Chinese has no case: unchanged)."""
    return title[:1].lower() + title[1:]


def _input(rule, entry, **_ignored):
    rule["props"]["clearable"] = True


def _textarea(rule, entry, **_ignored):
    rule["props"].update({"type": "textarea", "rows": 3, "autosize": {"minRows": 2, "maxRows": 8}})


def _input_number(rule, entry, **_ignored):
    rule["type"] = "inputNumber"
    rule["props"]["controlsPosition"] = "right"
    if "min" in entry["constraints"]:
        rule["props"]["min"] = entry["constraints"]["min"]
    if entry["value_type"] == "integer":
        rule["props"]["precision"] = 0


def _select(rule, entry, *, template, user, by_field):
    rule["type"] = "select"
    rule["props"].update({"clearable": True, "filterable": True})
    source = entry["option_source"]
    if entry["value_type"] == "list":
        rule["props"].update({"multiple": True, "allowCreate": True, "defaultFirstOption": True})
        rule["options"] = catalog_options(entry["options"])
    elif source == "datasources":
        rule["options"] = [
            {"label": f"{d.name} ({_kind(d)})", "value": d.pk}
            for d in Datasource.objects.visible_to(user).order_by("name")
        ]
    elif source == "comparison_types":
        allowed = template.allowed_comparison_types()
        names = dict(ComparisonType.objects.filter(key__in=allowed).values_list("key", "name"))
        rule["options"] = [{"label": catalog_text(names.get(key, key)), "value": key} for key in allowed]
    elif source in ("tables", "columns"):
        _fetch_options(rule, entry, by_field)
    else:  # a param feeding a metric field with fixed values takes them from the engine's vocabulary
        rule["options"] = catalog_options(param_choices(template.metric).get(entry.field) or entry["options"])


def _kind(datasource: Datasource) -> str:
    if datasource.type == Datasource.Type.FILE:
        return _("%(format)s files") % {"format": re.split(r"[ (（]", datasource.get_format_display())[0]}
    return datasource.get_type_display()


def _fetch_options(rule: dict[str, Any], entry: ResolvedInput, by_field: dict[str, ResolvedInput]) -> None:
    """Options load from the API whenever a referenced `{{$form.x}}` changes (form-create effect.fetch).

    Parents travel as query parameters, never in the path: form-create fires once with empty
    values, and the endpoint then answers an empty list instead of a 404.
    """
    chain = _parent_chain(entry.field, by_field)
    if entry["option_source"] == "tables":
        query = {"datasource": f"{{{{$form.{chain[0]}}}}}"}
    else:
        table_field, datasource_field = chain[0], chain[1] if len(chain) > 1 else ""
        query = {"datasource": f"{{{{$form.{datasource_field}}}}}", "table": f"{{{{$form.{table_field}}}}}"}
    rule["options"] = []
    rule["link"] = chain
    rule["effect"] = {
        "fetch": {
            "action": f"{FORM_OPTIONS_URL}/{entry['option_source']}/",
            "method": "GET",
            "query": query,
            "parse": "results",
            "to": "options",
            "wait": 150,
        }
    }


def _parent_chain(field: str, by_field: dict[str, ResolvedInput]) -> list[str]:
    """The fields above `field`, nearest first: src_field → [src_table, src_datasource_id]."""
    chain: list[str] = []
    parent = by_field[field]["depends_on"]
    while parent and parent in by_field and parent not in chain:
        chain.append(parent)
        parent = by_field[parent]["depends_on"]
    return chain


def _group(rule, entry, *, by_field, **_ignored):
    """mapping_columns: repeatable rows of {src_field, operator, target_field}, each column a select
    of the catalog's columns of its table, like the single-column fields above it."""
    rule["type"] = "group"
    rule["value"] = rule.get("value") or [{"src_field": "", "operator": "=", "target_field": ""}]
    rule["props"] = {
        "min": 1 if entry["required"] else 0,
        "expand": 1,
        "rule": [
            _mapping_column("src_field", "source", "src_table", by_field),
            {
                "type": "select",
                "field": "operator",
                "title": _("Match"),
                "value": "=",
                "options": list(MAPPING_OPERATORS),
                "col": {"span": 6},
            },
            _mapping_column("target_field", "target", "target_table", by_field),
        ],
    }


def _mapping_column(field: str, side: str, table_field: str, by_field: dict[str, ResolvedInput]) -> dict[str, Any]:
    """A column select inside the mapping group (`side`: source or target). Rows of a form-create
    group are sub-forms, so the table and datasource come from the whole form (`$topForm`), not
    from the row (`$form`)."""
    source = side == "source"
    column: dict[str, Any] = {
        "type": "select",
        "field": field,
        "title": _("Source column") if source else _("Target column"),
        "props": {
            "placeholder": _("Pick a column of the source table") if source else _("Pick a column of the target table"),
            "filterable": True,
            "clearable": True,
        },
        "options": [],
        "validate": [
            {
                "required": True,
                "message": _("Pick the source column.") if source else _("Pick the target column."),
                "trigger": "change",
            }
        ],
        "col": {"span": 9},
    }
    if table_field not in by_field:
        return column  # a template without that table: nothing to load the columns from
    datasource_field = by_field[table_field]["depends_on"] or ""
    column["effect"] = {
        "fetch": {
            "action": f"{FORM_OPTIONS_URL}/columns/",
            "method": "GET",
            "query": {"datasource": f"{{{{$topForm.{datasource_field}}}}}", "table": f"{{{{$topForm.{table_field}}}}}"},
            "parse": "results",
            "to": "options",
            "wait": 150,
        }
    }
    return column


ROW_CHECKS_URL = "/api/v1/row-checks"


def _yaml(rule, entry, **_ignored):
    """check.yaml / contract.yaml: the SPA's `dq-yaml-editor` component (CodeMirror 6, registered
    with form-create), validating as you type against `validate`, with a sample run against `preview`.
    The editor sends the form's datasource and table with the text."""
    language = entry["constraints"].get("language", "checks")
    rule["type"] = "dq-yaml-editor"
    rule["props"].update(
        {
            "language": language,
            "textField": entry.field,
            "validateUrl": f"{ROW_CHECKS_URL}/validate/",
            "previewUrl": f"{ROW_CHECKS_URL}/preview/" if language == "checks" else "",
            "previewLimit": 1000,
            "datasourceField": "src_datasource_id",
            "tableField": entry["constraints"].get("table_field", "src_table"),
            "filterField": "src_filter",
        }
    )


FORM_TYPE_BUILDERS = {
    "input": _input,
    "textarea": _textarea,
    "input_number": _input_number,
    "select": _select,
    "group": _group,
    "yaml": _yaml,
}


def _add_controls(rules: list[dict[str, Any]], inputs: list[ResolvedInput]) -> None:
    """`shown_when: {comparison_type: fix_value}` → a form-create `control` on comparison_type."""
    by_field = {r["field"]: r for r in rules}
    for entry in inputs:
        for parent_field, value in (entry["shown_when"] or {}).items():
            parent = by_field.get(parent_field)
            if parent is None:
                continue
            parent.setdefault("control", []).append({"value": value, "rule": [entry.field]})
