"""Validation of a check's params against its template: `validate_params(template, params, user)`.

Every problem is reported against the param that caused it, with a message saying how to fix it,
so the API answers 400 with field-level messages and the form shows them under the right field.
Tables and columns are checked against the live catalog; filters and SQL are parsed (sqlglot,
Spark dialect) and must be read-only. A custom query must name only columns its tables have and
return one row (rules/sql_shape.py); an accuracy check must match columns of one kind (numbers with
numbers, text with text, times with times).

A catalog that cannot be read now (a wrong password, a host down) does not refuse the check: what
depends on it is saved unchecked, and `warnings` (when the caller passes a list) says so.
"""

from __future__ import annotations

import math
import re
from datetime import datetime
from typing import Any

from datasources.connectors import ConnectorError, connector_for
from datasources.models import Datasource
from dq_engine.anomaly import Settings as AnomalySettings
from dq_engine.java_regex import JavaPatternError, check_java_pattern
from dq_engine.sql_safety import UnsafeSQL, parse_filter, parse_select
from dq_platform.ids import as_id

from .comparison_types import ANOMALY_PARAMS
from .models import ComparisonType, ResolvedInput, RuleTemplate
from .range_bounds import DATE, TIMESTAMP, BoundProblem, clean_bound, column_kind
from .schema import MAPPING_OPERATORS, param_choices, param_problems
from .sql_shape import several_rows, unknown_columns

DATETIME_FORMAT = "%Y-%m-%d %H:%M:%S"
# Run parameters a filter may use; the run substitutes them (issue: runs and provenance).
RUN_PARAMETERS = {"biz_date": "2000-01-01", "biz_datetime": "2000-01-01 00:00:00"}
RUN_PARAMETER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
SQL_PLACEHOLDERS = {"statistics_execute_sql": ("src_table",), "comparison_execute_sql": ("src_table", "target_table")}
MAX_TEXT = 4000
MAX_YAML = 100_000  # a rule set of a few hundred checks


class ParamsInvalid(Exception):
    def __init__(self, fields: dict[str, list[str]]):
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in fields.items()))
        self.fields = fields


class _Problem(Exception):
    """One param's problem; collected by validate_params into ParamsInvalid."""


class _Catalog:
    """Live catalog lookups for one validation, each source asked at most once per question."""

    def __init__(self):
        self._tables: dict[int, list[str]] = {}
        self._columns: dict[tuple[int, str], dict[str, str]] = {}

    def tables(self, datasource: Datasource) -> list[str]:
        if datasource.pk not in self._tables:
            self._tables[datasource.pk] = connector_for(datasource).tables()
        return self._tables[datasource.pk]

    def columns(self, datasource: Datasource, table: str) -> list[str]:
        return list(self.column_types(datasource, table))

    def column_types(self, datasource: Datasource, table: str) -> dict[str, str]:
        """{column name: the catalog's type name}, in the table's order."""
        key = (datasource.pk, table)
        if key not in self._columns:
            self._columns[key] = {c.name: c.type for c in connector_for(datasource).columns(table)}
        return self._columns[key]


def validate_params(template: RuleTemplate, params: Any, user, warnings: list[str] | None = None) -> dict[str, Any]:
    """The cleaned params (defaults filled, numbers as numbers), or ParamsInvalid naming each field.
    `warnings` gets what could not be checked (a catalog that cannot be read now)."""
    if not isinstance(params, dict):
        raise ParamsInvalid({"params": ["Params must be a JSON object of field names to values."]})
    inputs = template.resolved_inputs()
    known = {i.field for i in inputs}
    errors: dict[str, list[str]] = {
        key: [f"Unknown field for template {template.key}; it takes: {', '.join(sorted(known))}."]
        for key in params
        if key not in known
    }
    context = _Context(template, user, params)
    for entry in inputs:
        if not _applies(entry, params):
            continue
        try:
            value = context.clean(entry)
        except _Problem as problem:
            errors[entry.field] = [str(problem)]
            continue
        if value is not None:
            context.cleaned[entry.field] = value
    if not errors:
        errors.update(_cross_field_problems(template, context.cleaned))
    if errors:
        raise ParamsInvalid(errors)
    if warnings is not None:
        warnings.extend(context.warnings)
    return context.cleaned


def _applies(entry: ResolvedInput, params: dict[str, Any]) -> bool:
    """`shown_when` fields (comparison_value) only count when their condition holds."""
    for field, expected in (entry["shown_when"] or {}).items():
        if params.get(field, expected) != expected:
            return False
    return True


class _Context:
    def __init__(self, template: RuleTemplate, user, params: dict[str, Any]):
        self.template, self.user, self.params = template, user, params
        self.cleaned: dict[str, Any] = {}
        self.catalog = _Catalog()
        self.datasources: dict[str, Datasource] = {}
        self.warnings: list[str] = []
        self.unreadable: set[str] = set()  # table fields whose catalog could not be read now

    def cannot_read(self, table_field: str, what: str, exc: ConnectorError) -> None:
        """The catalog did not answer: save unchecked, and say so once per table field."""
        if table_field not in self.unreadable:
            self.unreadable.add(table_field)
            self.warnings.append(
                f"{what} could not be read ({exc}); the check was saved without checking it against them."
            )

    def clean(self, entry: ResolvedInput) -> Any:
        value = self.params.get(entry.field)
        if entry.field in self.params and entry["required"] and _is_blank(value):
            # Sent but empty (`"threshold": null`): not silently the default, which the author did not choose.
            hint = (
                f", or leave the field out to take the default {entry['default']!r}"
                if entry["default"] is not None
                else ""
            )
            raise _Problem(f"{entry['title']} is required; give a value{hint}.")
        if _is_empty(value):
            if entry["default"] is not None:
                value = entry["default"]
            elif entry["required"]:
                raise _Problem(f"{entry['title']} is required.")
            else:
                return None
        return CLEANERS[entry["value_type"]](self, entry, value)

    # --- helpers used by cleaners --------------------------------------------------------------
    def datasource_of(self, table_field: str) -> Datasource | None:
        datasource_field = table_field.replace("_table", "_datasource_id")
        return self.datasources.get(datasource_field)

    def columns_of(self, table_field: str) -> list[str] | None:
        """The table's columns; None when unknown (no valid table, or a catalog that did not answer)."""
        return list(self.column_types_of(table_field) or {}) or None

    def column_types_of(self, table_field: str) -> dict[str, str] | None:
        datasource, table = self.datasource_of(table_field), self.cleaned.get(table_field)
        if datasource is None or table is None or table_field in self.unreadable:
            return None
        try:
            return self.catalog.column_types(datasource, table)
        except ConnectorError as exc:
            self.cannot_read(table_field, f"The columns of {table!r}", exc)
            return None


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, (str, list)) and len(value) == 0)


def _is_blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


# --- cleaners, one per value type ---------------------------------------------------------------
def _string(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    if not isinstance(value, str):
        raise _Problem(f"{entry['title']} must be text.")
    if len(value) > MAX_TEXT:
        raise _Problem(f"{entry['title']} is too long (at most {MAX_TEXT} characters).")
    return value.strip()


def _number(ctx: _Context, entry: ResolvedInput, value: Any) -> float | int:
    if isinstance(value, bool):
        raise _Problem(f"{entry['title']} must be a number, not true/false.")
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise _Problem(f"{entry['title']} must be a number; got {value!r}.") from None
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _Problem(f"{entry['title']} must be a finite number.")
    minimum = entry["constraints"].get("min")
    if minimum is not None and value < minimum:
        raise _Problem(f"{entry['title']} must be at least {minimum}.")
    return int(value) if float(value).is_integer() else value


def _integer(ctx: _Context, entry: ResolvedInput, value: Any) -> int:
    number = _number(ctx, entry, value)
    if not isinstance(number, int):
        raise _Problem(f"{entry['title']} must be a whole number; got {value!r}.")
    return number


def _choice(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    vocabulary_options = param_choices(ctx.template.metric).get(entry.field)
    if entry["option_source"] == "comparison_types":
        allowed = ctx.template.allowed_comparison_types()
    elif vocabulary_options is not None:  # the engine's vocabulary says what the metric accepts
        allowed = [o["value"] for o in vocabulary_options]
    else:
        allowed = [o["value"] for o in entry["options"]]
    if value not in allowed:
        raise _Problem(f"{value!r} is not a valid choice; choose one of: {', '.join(map(str, allowed))}.")
    return value


def _list(ctx: _Context, entry: ResolvedInput, value: Any) -> list:
    if not isinstance(value, list):
        raise _Problem(f'{entry["title"]} must be a list of values, e.g. ["paid", "void"].')
    bad = [v for v in value if isinstance(v, (dict, list, bool)) or v is None or (isinstance(v, str) and not v.strip())]
    if bad:
        raise _Problem(f"{entry['title']} may hold only non-empty texts and numbers.")
    if len(set(map(str, value))) != len(value):
        raise _Problem(f"{entry['title']} lists a value twice.")
    return value


def _range_bound(ctx: _Context, entry: ResolvedInput, value: Any) -> int | float | str:
    """A value range's bound, typed by the column it bounds (a number, a date or a timestamp)."""
    table_field = entry["constraints"].get("table_field", "src_table")
    column = ctx.cleaned.get(entry["constraints"].get("column_field", "src_field"))
    datasource, table = ctx.datasource_of(table_field), ctx.cleaned.get(table_field)
    if column is None or datasource is None or table is None:
        if table_field in ctx.unreadable:
            return clean_bound(None, value, entry["title"], column or "the column")  # the run decides
        raise _Problem("Pick a valid column first.")
    type_name = (ctx.column_types_of(table_field) or {}).get(column, "")
    try:
        return clean_bound(column_kind(type_name), value, entry["title"], column)
    except BoundProblem as problem:
        raise _Problem(str(problem)) from None


def _datasource(ctx: _Context, entry: ResolvedInput, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if as_id(value) is not None:
            value = as_id(value)
        else:
            raise _Problem(f"{entry['title']} must be a datasource id (a number).")
    datasource = Datasource.objects.visible_to(ctx.user).filter(pk=value).first()
    if datasource is None:
        raise _Problem(f"Datasource {value} does not exist or you may not use it.")
    ctx.datasources[entry.field] = datasource
    return value


def _table(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    table = _string(ctx, entry, value)
    datasource = ctx.datasource_of(entry.field)
    if datasource is None:
        raise _Problem("Pick a valid datasource first.")
    try:
        tables = ctx.catalog.tables(datasource)
    except ConnectorError as exc:
        ctx.cannot_read(entry.field, f"The tables of {datasource.name!r}", exc)
        return table
    if table not in tables:
        raise _Problem(f"Table {table!r} does not exist in datasource {datasource.name!r}.")
    return table


def _column(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    column = _string(ctx, entry, value)
    table_field = entry["constraints"].get("table_field", "src_table")
    columns = ctx.columns_of(table_field)
    if columns is None:
        if table_field in ctx.unreadable:
            return column  # saved unchecked: the warning says so
        raise _Problem("Pick a valid table first.")
    if column not in columns:
        raise _Problem(
            f"Column {column!r} does not exist in {ctx.cleaned[table_field]!r}; it has: {', '.join(columns[:20])}."
        )
    return column


def _sql_filter(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    text = _string(ctx, entry, value)
    if not text:
        return None
    unknown = sorted({m for m in RUN_PARAMETER.findall(text) if m not in RUN_PARAMETERS})
    if unknown:
        raise _Problem(
            f"Unknown parameter ${{{unknown[0]}}}; filters may use {', '.join('${' + p + '}' for p in RUN_PARAMETERS)}."
        )
    sample = RUN_PARAMETER.sub(lambda m: RUN_PARAMETERS[m.group(1)], text)
    table_field = entry["constraints"].get("table_field", "src_table")
    columns = ctx.columns_of(table_field)
    try:
        parse_filter(sample, columns)
    except UnsafeSQL as exc:
        raise _Problem(str(exc)) from None
    return text


def _sql_select(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    text = _string(ctx, entry, value)
    try:
        parsed = parse_select(text, SQL_PLACEHOLDERS.get(entry.field, ("src_table",)))
    except UnsafeSQL as exc:
        raise _Problem(str(exc)) from None
    why = several_rows(parsed.expression)
    if why:
        raise _Problem(f"The query returns several rows: {why}.")
    catalogs = [ctx.columns_of(table_field) for table_field in sorted(parsed.tables_used)]
    if catalogs and all(columns is not None for columns in catalogs):
        known = [column for columns in catalogs for column in columns]
        unknown = unknown_columns(parsed.expression, known)
        if unknown:
            tables = " and ".join(repr(ctx.cleaned[t]) for t in sorted(parsed.tables_used))
            raise _Problem(
                f"The query names {_plural(unknown, 'column')} {', '.join(map(repr, unknown))} that {tables} "
                f"{'does' if len(parsed.tables_used) == 1 else 'do'} not have; the columns are: {', '.join(known[:30])}."
            )
    return text


def _plural(items: list, word: str) -> str:
    return word if len(items) == 1 else f"{word}s"


def _regexp(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    """A Java regular expression (Spark matches with java.util.regex): Java's rules and messages."""
    pattern = _string(ctx, entry, value)
    try:
        check_java_pattern(pattern)
    except JavaPatternError as exc:
        raise _Problem(f"Not a valid regular expression (Java syntax): {exc.short}.") from None
    return pattern


def _datetime(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    text = _string(ctx, entry, value)
    try:
        datetime.strptime(text, DATETIME_FORMAT)
    except ValueError:
        raise _Problem(f"Use the form YYYY-MM-DD HH:MM:SS, e.g. 2026-11-30 23:59:59; got {text!r}.") from None
    return text


def _mapping(ctx: _Context, entry: ResolvedInput, value: Any) -> list[dict[str, str]]:
    if not isinstance(value, list) or not value:
        raise _Problem('List at least one column pair: [{"src_field": ..., "operator": "=", "target_field": ...}].')
    source_types, target_types = ctx.column_types_of("src_table"), ctx.column_types_of("target_table")
    source_columns = list(source_types) if source_types else None
    target_columns = list(target_types) if target_types else None
    cleaned = []
    for index, pair in enumerate(value, start=1):
        if not isinstance(pair, dict) or set(pair) - {"src_field", "operator", "target_field"}:
            raise _Problem(f"Pair {index} must hold only src_field, operator and target_field.")
        src, op, target = pair.get("src_field"), pair.get("operator", "="), pair.get("target_field")
        operators = [o["value"] for o in MAPPING_OPERATORS]
        if op not in operators:
            raise _Problem(f"Pair {index}: operator {op!r} is not one of {' '.join(operators)}.")
        if source_columns is not None and src not in source_columns:
            raise _Problem(f"Pair {index}: source column {src!r} does not exist in the source table.")
        if target_columns is not None and target not in target_columns:
            raise _Problem(f"Pair {index}: target column {target!r} does not exist in the target table.")
        if source_types and target_types:
            _same_kind(index, src, source_types[src], target, target_types[target])
        cleaned.append({"src_field": src, "operator": op, "target_field": target})
    return cleaned


# Kinds a match compares as equals: a date matches a timestamp at midnight.
_MATCH_FAMILY = {DATE: "time", TIMESTAMP: "time"}
_KIND_WORDS = {"number": "numbers", "text": "text", "time": "dates or times", "boolean": "true/false values"}


def _same_kind(index: int, src: str, src_type: str, target: str, target_type: str) -> None:
    """An accuracy pair must compare like with like: text matched to an integer column compares
    as whatever the engine casts to (each engine its own way), and matches nothing it should."""
    src_kind, target_kind = column_kind(src_type), column_kind(target_type)
    if src_kind is None or target_kind is None:
        return  # a type the catalog names in a way we cannot tell: the run decides
    src_family, target_family = _MATCH_FAMILY.get(src_kind, src_kind), _MATCH_FAMILY.get(target_kind, target_kind)
    if src_family != target_family:
        raise _Problem(
            f"Pair {index}: source column {src!r} holds {_KIND_WORDS[src_family]} ({src_type}) but target column "
            f"{target!r} holds {_KIND_WORDS[target_family]} ({target_type}); match columns of the same kind."
        )


def _check_yaml(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    """check.yaml text, kept as written (the engine expands it per run); every problem with its line."""
    from .rowchecks import rule_set_problems

    if not isinstance(value, str):
        raise _Problem(f"{entry['title']} must be YAML text.")
    if len(value) > MAX_YAML:
        raise _Problem(f"{entry['title']} is too long (at most {MAX_YAML} characters).")
    table_field = entry["constraints"].get("table_field", "src_table")
    problems, _, _ = rule_set_problems(value, ctx.columns_of(table_field), entry["constraints"].get("language"))
    if problems:
        raise _Problem(" ".join(str(p) for p in problems))
    return value


def _output_path(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    """An absolute local folder under DQ_FILE_ROOTS (the run writes its own sub-folder there)."""
    from pathlib import Path

    from django.conf import settings

    text = _string(ctx, entry, value)
    path = Path(text)
    if not path.is_absolute():
        raise _Problem("Give an absolute folder path, e.g. /data/cleansed/orders.")
    resolved = path.resolve()
    roots = settings.DQ_FILE_ROOTS
    if not any(resolved == root or root in resolved.parents for root in roots):
        allowed = ", ".join(str(r) for r in roots) or "(none configured)"
        raise _Problem(f"The folder must lie under one of the allowed file roots (DQ_FILE_ROOTS): {allowed}.")
    return str(resolved)


CLEANERS = {
    "string": _string,
    "integer": _integer,
    "number": _number,
    "choice": _choice,
    "list": _list,
    "datasource": _datasource,
    "table": _table,
    "column": _column,
    "sql_filter": _sql_filter,
    "sql_select": _sql_select,
    "regexp": _regexp,
    "datetime": _datetime,
    "mapping": _mapping,
    "check_yaml": _check_yaml,
    "output_path": _output_path,
    "range_bound": _range_bound,
}


def _cross_field_problems(template: RuleTemplate, params: dict[str, Any]) -> dict[str, list[str]]:
    problems = param_problems(template.metric, params)  # the metric's own (a minimum above the maximum, …)
    counted = ComparisonType.objects.filter(key=params.get("comparison_type"), source="data").first()
    if counted is not None and counted.batch == "target" and "target_table" not in params:
        problems["comparison_type"] = [
            f"{counted.name} counts the target table's rows; this check has no target table."
        ]
    problems.update(anomaly_problems(params))
    return problems


def anomaly_problems(params: dict[str, Any]) -> dict[str, list[str]]:
    """The anomaly knobs together (the fail band's k at least the warn band's), as the detector
    checks its settings."""
    settings = anomaly_settings(params)
    by_setting = {setting: field for field, setting in ANOMALY_PARAMS.items() if field in params}
    return {by_setting[name]: [message] for name, message in settings.problems().items() if name in by_setting}


def anomaly_settings(params: dict[str, Any]) -> AnomalySettings:
    """The detector's settings from a check's params; a knob left out takes the detector's default."""
    given = {setting: params[field] for field, setting in ANOMALY_PARAMS.items() if params.get(field) is not None}
    return AnomalySettings(**given)
