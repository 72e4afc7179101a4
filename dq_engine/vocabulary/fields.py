"""The fields a metric carries, and the operators and functions some of them choose from.

A field has two names: the one the engine's job spec uses (`pattern`) and the key a rule
template's metric definition uses to say which check param feeds it (`pattern_param`, whose value
is a param name such as `regexp_pattern`). `rules` builds its JSON schema, param validation and
form options from these; `executions` turns a template's definition plus a check's params into the
spec's metric with them (dq_engine.vocabulary.engine_metric).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Choice:
    """One allowed value of a field, with the words a form shows for it."""

    value: str
    label: str


@dataclass(frozen=True)
class Field:
    """One field of a metric.

    - `name`: the key in the job spec's metric (dq_engine/spec.py);
    - `param`: the key in a template's metric definition; its value names the check param that
      feeds this field;
    - `choices`: the allowed values, when there is a fixed set (forms show them as options);
    - `engine`: False for a field only the platform reads (the name of a custom statistic);
    - `from_param`: turns the check param's value into the engine's (None: taken as it is);
    - `required`: False for a field a job spec may leave out (row_rules' cleansed output).
    """

    name: str
    param: str
    label: str
    choices: tuple[Choice, ...] = ()
    engine: bool = True
    from_param: Callable[[Any], Any] | None = None
    required: bool = True

    @property
    def values(self) -> tuple[str, ...]:
        return tuple(choice.value for choice in self.choices)


# Length checks compare a value's length with a limit (`length(value) <op> limit`).
LENGTH_OPERATORS = (
    Choice("=", "= (equal to)"),
    Choice("<", "< (shorter than)"),
    Choice("<=", "<= (at most)"),
    Choice(">", "> (longer than)"),
    Choice(">=", ">= (at least)"),
    Choice("<>", "<> (different from)"),
)

# Accuracy mappings pair a source column with a target column. `=` is SQL equality (a NULL matches
# nothing); `<=>` is the null-safe option (NULL matches NULL, never ''); the others compare.
MAPPING_OPERATORS = (
    Choice("=", "="),
    Choice("<=>", "<=>"),
    Choice("!=", "!="),
    Choice("<", "<"),
    Choice("<=", "<="),
    Choice(">", ">"),
    Choice(">=", ">="),
)

AGGREGATE_FUNCTIONS = (
    Choice("avg", "Average"),
    Choice("sum", "Sum"),
    Choice("min", "Minimum"),
    Choice("max", "Maximum"),
)


# A freshness statistic is an age in one of these units (dq_engine.vocabulary.metrics.age).
AGE_UNITS = (
    Choice("hours", "Hours"),
    Choice("minutes", "Minutes"),
)


def _mappings_from_param(pairs: Any) -> Any:
    """A check's `[{src_field, operator, target_field}]` → the spec's `[{source, operator, target}]`."""
    if not isinstance(pairs, list):
        return pairs
    return [
        {"source": pair.get("src_field"), "operator": pair.get("operator", "="), "target": pair.get("target_field")}
        if isinstance(pair, dict)
        else pair
        for pair in pairs
    ]


COLUMN = Field("column", "column_param", "column")
MAPPINGS = Field("mappings", "mapping_param", "matching columns", from_param=_mappings_from_param)
