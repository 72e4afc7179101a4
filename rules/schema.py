"""The typed schema of `RuleTemplate.rule_json`: the metric definition the engine executes.

Checked on every save (model, admin, catalog loader), so an admin-made template with a typo is
refused with a message instead of failing at run time. The metric definitions, and the choices and
cross-field checks of their params, are derived from the engine's vocabulary (dq_engine.vocabulary):
a predicate added there is accepted here with no change.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import jsonschema

from dq_engine import vocabulary
from executions.stored_words import reworded

PARAM = {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}


def _metric(kind: str, required: list[str], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    properties = {"kind": {"const": kind}, **{name: PARAM for name in required}, **(extra or {})}
    return {
        "type": "object",
        "properties": properties,
        "required": ["kind", *required],
        "additionalProperties": False,
    }


def _conditional_count(predicate: str, params: list[str]) -> dict[str, Any]:
    return _metric("conditional_count", ["column_param", *params], {"predicate": {"const": predicate}}) | {
        "required": ["kind", "predicate", "column_param", *params]
    }


def _params(kind: str, predicate: str | None = None) -> list[str]:
    """The definition keys (`column_param`, ...) of a metric kind's fields, besides the column for a
    conditional count (added by _conditional_count)."""
    fields = vocabulary.metric_fields(kind, predicate)
    if kind == "conditional_count":
        fields = fields[1:]
    return [field.param for field in fields]


METRIC_SCHEMAS = [
    *[_conditional_count(predicate, _params("conditional_count", predicate)) for predicate in vocabulary.PREDICATES],
    *[_metric(kind, _params(kind)) for kind in vocabulary.METRIC_KINDS if kind != "conditional_count"],
]

RULE_JSON_SCHEMA = {
    "type": "object",
    "properties": {
        "statistic_name": {"type": "string", "minLength": 1},
        "metric": {"oneOf": METRIC_SCHEMAS},
        "error_rows": {"enum": ["matching_rows", "none"]},
        # Keys of ComparisonType rows: checked against the table by rule_json_problems' caller's keys.
        "comparison_types": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    },
    "required": ["statistic_name", "metric", "error_rows", "comparison_types"],
    "additionalProperties": False,
}


def rule_json_problems(rule_json: Any, comparison_type_keys: Iterable[str] | None = None) -> list[str]:
    """Human-readable problems with a rule_json document; empty when valid. `comparison_type_keys`:
    the comparison types that exist (admins add them as data), when the caller wants them checked."""
    if not isinstance(rule_json, dict):
        return ["rule_json must be a JSON object."]
    problems = _comparison_type_problems(rule_json.get("comparison_types"), comparison_type_keys)
    kind = (rule_json.get("metric") or {}).get("kind") if isinstance(rule_json.get("metric"), dict) else None
    for error in jsonschema.Draft202012Validator(RULE_JSON_SCHEMA).iter_errors(rule_json):
        where = "/".join(str(p) for p in error.absolute_path) or "rule_json"
        if error.validator == "oneOf":
            problems.append(_metric_hint(rule_json.get("metric"), kind))
        else:
            problems.append(f"{where}: {error.message}")
    return problems


def _comparison_type_problems(keys: Any, known: Iterable[str] | None) -> list[str]:
    if known is None or not isinstance(keys, list):
        return []
    known = list(known)
    unknown = [k for k in keys if isinstance(k, str) and k not in known]
    if not unknown:
        return []
    return [
        f"comparison_types: unknown comparison type {', '.join(map(repr, unknown))}; choose from {', '.join(known)}."
    ]


def _metric_hint(metric: Any, kind: str | None) -> str:
    kinds = sorted({s["properties"]["kind"]["const"] for s in METRIC_SCHEMAS})
    if kind not in kinds:
        return f"metric.kind must be one of {', '.join(kinds)}; got {kind!r}."
    for schema in METRIC_SCHEMAS:
        if schema["properties"]["kind"]["const"] != kind:
            continue
        predicate = schema["properties"].get("predicate", {}).get("const")
        if predicate and metric.get("predicate") != predicate:
            continue
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(metric))
        if errors:
            return "metric: " + "; ".join(e.message for e in errors)
    if kind == "conditional_count":
        return f"metric.predicate must be one of {', '.join(vocabulary.PREDICATES)}; got {metric.get('predicate')!r}."
    return f"metric is not a valid {kind} definition."


def param_choices(metric: dict[str, Any]) -> dict[str, list[dict[str, str]]]:
    """{check param: its options} for the params of a template's metric that feed a field with a
    fixed set of values (a length comparison, an aggregate): the form's options and what
    validation accepts come from the engine's vocabulary, not from the input entry."""
    return {
        param: [{"label": choice.label, "value": choice.value} for choice in choices]
        for param, choices in vocabulary.choices_by_param(metric).items()
    }


def param_problems(metric: dict[str, Any], params: dict[str, Any]) -> dict[str, list[str]]:
    """{check param: [message]} for params of a template's metric that do not fit together."""
    return {param: [reworded(message)] for param, message in vocabulary.metric_problems(metric, params).items()}


# The accuracy mapping's operators, as form options (the `group` rows of mapping_columns).
MAPPING_OPERATORS = [{"label": choice.label, "value": choice.value} for choice in vocabulary.MAPPING_OPERATORS]
