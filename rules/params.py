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

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from datasources.connectors import ConnectorError, connector_for
from datasources.models import Datasource
from dq_engine.anomaly import Settings as AnomalySettings
from dq_engine.java_regex import JavaPatternError, check_java_pattern
from dq_engine.sql_safety import UnsafeSQL, parse_filter, parse_select
from dq_platform.ids import as_id
from executions.stored_words import reworded

from .catalog_text import catalog_text
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
        raise ParamsInvalid({"params": [_("Params must be a JSON object of field names to values.")]})
    inputs = template.resolved_inputs()
    known = {i.field for i in inputs}
    errors: dict[str, list[str]] = {
        key: [
            _("Unknown field for template %(template)s; it takes: %(fields)s.")
            % {"template": template.key, "fields": ", ".join(sorted(known))}
        ]
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
                _("%(what)s could not be read (%(error)s); the check was saved without checking it against them.")
                % {"what": what, "error": exc}
            )

    def clean(self, entry: ResolvedInput) -> Any:
        value = self.params.get(entry.field)
        title = _title(entry)
        if entry.field in self.params and entry["required"] and _is_blank(value):
            # Sent but empty (`"threshold": null`): not silently the default, which the author did not choose.
            if entry["default"] is not None:
                raise _Problem(
                    _("%(field)s is required; give a value, or leave the field out to take the default %(default)s.")
                    % {"field": title, "default": repr(entry["default"])}
                )
            raise _Problem(_("%(field)s is required; give a value.") % {"field": title})
        if _is_empty(value):
            if entry["default"] is not None:
                value = entry["default"]
            elif entry["required"]:
                raise _Problem(_("%(field)s is required.") % {"field": title})
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
            self.cannot_read(table_field, _("The columns of %(table)s") % {"table": repr(table)}, exc)
            return None


def _title(entry: ResolvedInput) -> str:
    """The field's title in the request's language, as messages name it."""
    return catalog_text(entry["title"])


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, (str, list)) and len(value) == 0)


def _is_blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


# --- cleaners, one per value type ---------------------------------------------------------------
def _string(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    if not isinstance(value, str):
        raise _Problem(_("%(field)s must be text.") % {"field": _title(entry)})
    if len(value) > MAX_TEXT:
        raise _Problem(
            _("%(field)s is too long (at most %(limit)s characters).") % {"field": _title(entry), "limit": MAX_TEXT}
        )
    return value.strip()


def _number(ctx: _Context, entry: ResolvedInput, value: Any) -> float | int:
    if isinstance(value, bool):
        raise _Problem(_("%(field)s must be a number, not true/false.") % {"field": _title(entry)})
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise _Problem(
                _("%(field)s must be a number; got %(value)s.") % {"field": _title(entry), "value": repr(value)}
            ) from None
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _Problem(_("%(field)s must be a finite number.") % {"field": _title(entry)})
    minimum = entry["constraints"].get("min")
    if minimum is not None and value < minimum:
        raise _Problem(_("%(field)s must be at least %(minimum)s.") % {"field": _title(entry), "minimum": minimum})
    return int(value) if float(value).is_integer() else value


def _integer(ctx: _Context, entry: ResolvedInput, value: Any) -> int:
    number = _number(ctx, entry, value)
    if not isinstance(number, int):
        raise _Problem(
            _("%(field)s must be a whole number; got %(value)s.") % {"field": _title(entry), "value": repr(value)}
        )
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
        raise _Problem(
            _("%(value)s is not a valid choice; choose one of: %(choices)s.")
            % {"value": repr(value), "choices": ", ".join(map(str, allowed))}
        )
    return value


def _list(ctx: _Context, entry: ResolvedInput, value: Any) -> list:
    if not isinstance(value, list):
        raise _Problem(_('%(field)s must be a list of values, e.g. ["paid", "void"].') % {"field": _title(entry)})
    bad = [v for v in value if isinstance(v, (dict, list, bool)) or v is None or (isinstance(v, str) and not v.strip())]
    if bad:
        raise _Problem(_("%(field)s may hold only non-empty texts and numbers.") % {"field": _title(entry)})
    if len(set(map(str, value))) != len(value):
        raise _Problem(_("%(field)s lists a value twice.") % {"field": _title(entry)})
    return value


def _range_bound(ctx: _Context, entry: ResolvedInput, value: Any) -> int | float | str:
    """A value range's bound, typed by the column it bounds (a number, a date or a timestamp)."""
    table_field = entry["constraints"].get("table_field", "src_table")
    column = ctx.cleaned.get(entry["constraints"].get("column_field", "src_field"))
    datasource, table = ctx.datasource_of(table_field), ctx.cleaned.get(table_field)
    if column is None or datasource is None or table is None:
        if table_field in ctx.unreadable:
            return clean_bound(None, value, _title(entry), column or _("the column"))  # the run decides
        raise _Problem(_("Pick a valid column first."))
    type_name = (ctx.column_types_of(table_field) or {}).get(column, "")
    try:
        return clean_bound(column_kind(type_name), value, _title(entry), column)
    except BoundProblem as problem:
        raise _Problem(str(problem)) from None


def _datasource(ctx: _Context, entry: ResolvedInput, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if as_id(value) is not None:
            value = as_id(value)
        else:
            raise _Problem(_("%(field)s must be a datasource id (a number).") % {"field": _title(entry)})
    datasource = Datasource.objects.visible_to(ctx.user).filter(pk=value).first()
    if datasource is None:
        raise _Problem(_("Datasource %(id)s does not exist or you may not use it.") % {"id": value})
    ctx.datasources[entry.field] = datasource
    return value


def _table(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    table = _string(ctx, entry, value)
    datasource = ctx.datasource_of(entry.field)
    if datasource is None:
        raise _Problem(_("Pick a valid datasource first."))
    try:
        tables = ctx.catalog.tables(datasource)
    except ConnectorError as exc:
        ctx.cannot_read(entry.field, _("The tables of %(datasource)s") % {"datasource": repr(datasource.name)}, exc)
        return table
    if table not in tables:
        raise _Problem(
            _("Table %(table)s does not exist in datasource %(datasource)s.")
            % {"table": repr(table), "datasource": repr(datasource.name)}
        )
    return table


def _column(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    column = _string(ctx, entry, value)
    table_field = entry["constraints"].get("table_field", "src_table")
    columns = ctx.columns_of(table_field)
    if columns is None:
        if table_field in ctx.unreadable:
            return column  # saved unchecked: the warning says so
        raise _Problem(_("Pick a valid table first."))
    if column not in columns:
        raise _Problem(
            _("Column %(column)s does not exist in %(table)s; it has: %(columns)s.")
            % {"column": repr(column), "table": repr(ctx.cleaned[table_field]), "columns": ", ".join(columns[:20])}
        )
    return column


def _sql_filter(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    text = _string(ctx, entry, value)
    if not text:
        return None
    unknown = sorted({m for m in RUN_PARAMETER.findall(text) if m not in RUN_PARAMETERS})
    if unknown:
        raise _Problem(
            _("Unknown parameter %(parameter)s; filters may use %(parameters)s.")
            % {"parameter": "${" + unknown[0] + "}", "parameters": ", ".join("${" + p + "}" for p in RUN_PARAMETERS)}
        )
    sample = RUN_PARAMETER.sub(lambda m: RUN_PARAMETERS[m.group(1)], text)
    table_field = entry["constraints"].get("table_field", "src_table")
    columns = ctx.columns_of(table_field)
    try:
        parse_filter(sample, columns)
    except UnsafeSQL as exc:
        raise _Problem(reworded(str(exc))) from None
    return text


def _sql_select(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    text = _string(ctx, entry, value)
    try:
        parsed = parse_select(text, SQL_PLACEHOLDERS.get(entry.field, ("src_table",)))
    except UnsafeSQL as exc:
        raise _Problem(reworded(str(exc))) from None
    why = several_rows(parsed.expression)
    if why:
        raise _Problem(_("The query returns several rows: %(why)s.") % {"why": why})
    catalogs = [ctx.columns_of(table_field) for table_field in sorted(parsed.tables_used)]
    if catalogs and all(columns is not None for columns in catalogs):
        known = [column for columns in catalogs for column in columns]
        unknown = unknown_columns(parsed.expression, known)
        if unknown:
            values = {
                "names": ", ".join(map(repr, unknown)),
                "tables": _(" and ").join(repr(ctx.cleaned[t]) for t in sorted(parsed.tables_used)),
                "columns": ", ".join(known[:30]),
            }
            if len(parsed.tables_used) == 1:
                message = ngettext(
                    "The query names column %(names)s that %(tables)s does not have; the columns are: %(columns)s.",
                    "The query names columns %(names)s that %(tables)s does not have; the columns are: %(columns)s.",
                    len(unknown),
                )
            else:
                message = ngettext(
                    "The query names column %(names)s that %(tables)s do not have; the columns are: %(columns)s.",
                    "The query names columns %(names)s that %(tables)s do not have; the columns are: %(columns)s.",
                    len(unknown),
                )
            raise _Problem(message % values)
    return text


def _regexp(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    """A Java regular expression (Spark matches with java.util.regex): Java's rules and messages."""
    pattern = _string(ctx, entry, value)
    try:
        check_java_pattern(pattern)
    except JavaPatternError as exc:
        raise _Problem(_("Not a valid regular expression (Java syntax): %(error)s.") % {"error": exc.short}) from None
    return pattern


def _datetime(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    text = _string(ctx, entry, value)
    try:
        datetime.strptime(text, DATETIME_FORMAT)
    except ValueError:
        raise _Problem(
            _("Use the form YYYY-MM-DD HH:MM:SS, e.g. 2026-11-30 23:59:59; got %(value)s.") % {"value": repr(text)}
        ) from None
    return text


def _mapping(ctx: _Context, entry: ResolvedInput, value: Any) -> list[dict[str, str]]:
    if not isinstance(value, list) or not value:
        raise _Problem(_('List at least one column pair: [{"src_field": ..., "operator": "=", "target_field": ...}].'))
    source_types, target_types = ctx.column_types_of("src_table"), ctx.column_types_of("target_table")
    source_columns = list(source_types) if source_types else None
    target_columns = list(target_types) if target_types else None
    cleaned = []
    for index, pair in enumerate(value, start=1):
        if not isinstance(pair, dict) or set(pair) - {"src_field", "operator", "target_field"}:
            raise _Problem(_("Pair %(index)s must hold only src_field, operator and target_field.") % {"index": index})
        src, op, target = pair.get("src_field"), pair.get("operator", "="), pair.get("target_field")
        operators = [o["value"] for o in MAPPING_OPERATORS]
        if op not in operators:
            raise _Problem(
                _("Pair %(index)s: operator %(operator)s is not one of %(operators)s.")
                % {"index": index, "operator": repr(op), "operators": " ".join(operators)}
            )
        if source_columns is not None and src not in source_columns:
            raise _Problem(
                _("Pair %(index)s: source column %(column)s does not exist in the source table.")
                % {"index": index, "column": repr(src)}
            )
        if target_columns is not None and target not in target_columns:
            raise _Problem(
                _("Pair %(index)s: target column %(column)s does not exist in the target table.")
                % {"index": index, "column": repr(target)}
            )
        if source_types and target_types:
            _same_kind(index, src, source_types[src], target, target_types[target])
        cleaned.append({"src_field": src, "operator": op, "target_field": target})
    return cleaned


# Kinds a match compares as equals: a date matches a timestamp at midnight.
_MATCH_FAMILY = {DATE: "time", TIMESTAMP: "time"}
_KIND_WORDS = {
    "number": gettext_lazy("numbers"),
    "text": gettext_lazy("text"),
    "time": gettext_lazy("dates or times"),
    "boolean": gettext_lazy("true/false values"),
}


def _same_kind(index: int, src: str, src_type: str, target: str, target_type: str) -> None:
    """An accuracy pair must compare like with like: text matched to an integer column compares
    as whatever the engine casts to (each engine its own way), and matches nothing it should."""
    src_kind, target_kind = column_kind(src_type), column_kind(target_type)
    if src_kind is None or target_kind is None:
        return  # a type the catalog names in a way we cannot tell: the run decides
    src_family, target_family = _MATCH_FAMILY.get(src_kind, src_kind), _MATCH_FAMILY.get(target_kind, target_kind)
    if src_family != target_family:
        raise _Problem(
            _(
                "Pair %(index)s: source column %(source)s holds %(source_kind)s (%(source_type)s) but target column "
                "%(target)s holds %(target_kind)s (%(target_type)s); match columns of the same kind."
            )
            % {
                "index": index,
                "source": repr(src),
                "source_kind": _KIND_WORDS[src_family],
                "source_type": src_type,
                "target": repr(target),
                "target_kind": _KIND_WORDS[target_family],
                "target_type": target_type,
            }
        )


def _check_yaml(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    """check.yaml text, kept as written (the engine expands it per run); every problem with its line."""
    from .rowchecks import problem_text, rule_set_problems

    if not isinstance(value, str):
        raise _Problem(_("%(field)s must be YAML text.") % {"field": _title(entry)})
    if len(value) > MAX_YAML:
        raise _Problem(
            _("%(field)s is too long (at most %(limit)s characters).") % {"field": _title(entry), "limit": MAX_YAML}
        )
    table_field = entry["constraints"].get("table_field", "src_table")
    problems, _rules, _columns = rule_set_problems(
        value, ctx.columns_of(table_field), entry["constraints"].get("language")
    )
    if problems:
        raise _Problem(" ".join(problem_text(p) for p in problems))
    return value


def _output_path(ctx: _Context, entry: ResolvedInput, value: Any) -> str:
    """An absolute local folder under DQ_FILE_ROOTS (the run writes its own sub-folder there)."""
    from pathlib import Path

    from django.conf import settings

    text = _string(ctx, entry, value)
    path = Path(text)
    if not path.is_absolute():
        raise _Problem(_("Give an absolute folder path, e.g. /data/cleansed/orders."))
    resolved = path.resolve()
    roots = settings.DQ_FILE_ROOTS
    if not any(resolved == root or root in resolved.parents for root in roots):
        allowed = ", ".join(str(r) for r in roots) or _("(none configured)")
        raise _Problem(
            _("The folder must lie under one of the allowed file roots (DQ_FILE_ROOTS): %(roots)s.")
            % {"roots": allowed}
        )
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
            _("%(comparison)s counts the target table's rows; this check has no target table.")
            % {"comparison": catalog_text(counted.name)}
        ]
    problems.update(anomaly_problems(params))
    return problems


def anomaly_problems(params: dict[str, Any]) -> dict[str, list[str]]:
    """The anomaly knobs together (the fail band's k at least the warn band's), as the detector
    checks its settings."""
    settings = anomaly_settings(params)
    by_setting = {setting: field for field, setting in ANOMALY_PARAMS.items() if field in params}
    return {
        by_setting[name]: [reworded(message)] for name, message in settings.problems().items() if name in by_setting
    }


def anomaly_settings(params: dict[str, Any]) -> AnomalySettings:
    """The detector's settings from a check's params; a knob left out takes the detector's default."""
    given = {setting: params[field] for field, setting in ANOMALY_PARAMS.items() if params.get(field) is not None}
    return AnomalySettings(**given)
