"""The typed schema of `RuleTemplate.rule_json`: the metric definition the engine executes.

Checked on every save (model, admin, catalog loader), so an admin-made template with a typo is
refused with a message instead of failing at run time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import jsonschema

PARAM = {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}
PREDICATES = {
    "null_or_empty": [],
    "regexp_mismatch": ["pattern_param"],
    "not_in_list_or_null": ["list_param"],
    "length_compare": ["operator_param", "length_param"],
    "time_between": ["begin_param", "end_param", "format_param"],
    "outside_range": ["min_param", "max_param"],
}


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


METRIC_SCHEMAS = [
    *[_conditional_count(predicate, params) for predicate, params in PREDICATES.items()],
    _metric("row_count", []),
    _metric("aggregate", ["column_param", "function_param"]),
    _metric("duplicate_values", ["column_param"]),
    _metric("unmatched_rows", ["mapping_param"]),
    _metric("custom_sql", ["sql_param", "name_param"]),
    _metric("value_comparison", ["sql_param", "name_param", "comparison_sql_param", "comparison_name_param"]),
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
        return f"metric.predicate must be one of {', '.join(PREDICATES)}; got {metric.get('predicate')!r}."
    return f"metric is not a valid {kind} definition."
