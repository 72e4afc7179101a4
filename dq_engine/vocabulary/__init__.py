"""The engine's one vocabulary: metric kinds, predicates, operators, and the fields each needs.

Everything that names a metric kind or a predicate reads it from here: the job spec's parser
(dq_engine/spec.py), the planner, every engine (which builds each metric's meaning from
predicates.py and metrics.py), and the platform: `rules` derives the rule-template schema, the
param validation lists and the form options (rules/schema.py), `executions` turns a template's
metric definition and a check's params into the spec's metric (`engine_metric`).

Adding a predicate touches dq_engine/vocabulary/predicates.py alone (and its tests).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dq_engine.vocabulary.expressions import CATEGORIES, ColumnRef, Dialect
from dq_engine.vocabulary.fields import (
    AGGREGATE_FUNCTIONS,
    COLUMN,
    LENGTH_OPERATORS,
    MAPPING_OPERATORS,
    Choice,
    Field,
)
from dq_engine.vocabulary.metrics import METRIC_KINDS, MetricKind, RowMetric, mapping_condition, row_metric
from dq_engine.vocabulary.predicates import PREDICATES, Predicate

__all__ = [
    "AGGREGATE_FUNCTIONS",
    "CATEGORIES",
    "COLUMN",
    "LENGTH_OPERATORS",
    "MAPPING_OPERATORS",
    "METRIC_KINDS",
    "PREDICATES",
    "Choice",
    "ColumnRef",
    "Dialect",
    "Field",
    "MetricKind",
    "Predicate",
    "RowMetric",
    "choices_by_param",
    "engine_metric",
    "metric_fields",
    "metric_problems",
    "mapping_condition",
    "row_metric",
]


def metric_fields(kind: str, predicate: str | None = None) -> tuple[Field, ...]:
    """The fields of a metric kind (a conditional count: the column plus its predicate's).
    KeyError, with the known names, for an unknown kind or predicate."""
    if kind not in METRIC_KINDS:
        raise KeyError(f"Unknown metric kind {kind!r}; known: {', '.join(METRIC_KINDS)}.")
    fields = METRIC_KINDS[kind].fields
    if kind == "conditional_count":
        if predicate not in PREDICATES:
            raise KeyError(f"Unknown predicate {predicate!r}; known: {', '.join(PREDICATES)}.")
        fields = (*fields, *PREDICATES[predicate].fields)
    return fields


def definition_fields(definition: Mapping[str, Any]) -> tuple[Field, ...]:
    """The fields of a template's metric definition (`{"kind", "predicate"?, "<field>_param"...}`)."""
    return metric_fields(definition["kind"], definition.get("predicate"))


def engine_metric(definition: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, Any]:
    """A template's metric definition with a check's params → the job spec's metric.

    `{"kind": "conditional_count", "predicate": "regexp_mismatch", "column_param": "src_field",
    "pattern_param": "regexp_pattern"}` with `{"src_field": "email", "regexp_pattern": "@"}` gives
    `{"kind": "conditional_count", "predicate": "regexp_mismatch", "column": "email", "pattern": "@"}`.
    """
    metric: dict[str, Any] = {"kind": definition["kind"]}
    if "predicate" in definition:
        metric["predicate"] = definition["predicate"]
    for field in definition_fields(definition):
        if not field.engine:
            continue
        value = params.get(definition[field.param])
        metric[field.name] = field.from_param(value) if field.from_param else value
    return metric


def choices_by_param(definition: Mapping[str, Any]) -> dict[str, tuple[Choice, ...]]:
    """{check param name: its allowed values} for the fields of a definition that have a fixed set
    (e.g. the length comparison): what the form offers and what a check may hold."""
    return {definition[field.param]: field.choices for field in definition_fields(definition) if field.choices}


def metric_problems(definition: Mapping[str, Any], params: Mapping[str, Any]) -> dict[str, str]:
    """{check param name: message} for fields that do not fit together (a minimum above the
    maximum, a window that ends before it starts), checked when a check is saved."""
    if definition.get("kind") != "conditional_count":
        return {}
    predicate = PREDICATES[definition["predicate"]]
    by_name = {field.name: field for field in predicate.fields}
    values = {field.name: params.get(definition[field.param]) for field in predicate.fields}
    return {definition[by_name[name].param]: message for name, message in predicate.problems(values).items()}
