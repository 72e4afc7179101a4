"""The metric kinds: what each measures, the fields it needs, and which pass computes it.

Row-level kinds (a conditional count with its predicate, an aggregate) are one aggregate
expression each, so every row-level check of a batch shares one pass over it (Deequ's
AnalysisRunner); the others say which pass they need and the engines schedule it:

- row_count: the rows the batch's filter keeps (the aggregate pass's own count);
- aggregate: avg/sum/min/max over the numeric column's non-NULL values; NULL when there are none;
- duplicate_values: the number of distinct non-NULL values occurring more than once (one group-by
  per key column); its error rows are every row holding such a value;
- unmatched_rows (accuracy): source rows with no target row matching all mapping columns.
  Operator `=` is SQL equality: a NULL matches nothing, so a source row with a NULL in
  a mapped column is unmatched. `<=>` is the explicit null-safe option: NULL matches NULL (never
  ''). `!=`, `<`, `<=`, `>`, `>=` are SQL comparisons (NULL matches nothing). A string column paired
  with a non-string one is compared as strings (`mapping_condition`);
- row_rules: the rows failing a check.yaml rule set: rows with
  `_dq > 0`, or with `rule` the rows failing that one named check; reads any of the batch's columns;
- custom_sql: one number from the user's read-only SELECT over `${src_table}`;
- value_comparison: the statistic from the first query, the comparison value from the second;
- newest_age (freshness): MAX of a date or timestamp column in the aggregate pass, turned into
  its age at run time (hours or minutes) by `statistic`, once for every engine;
- schema_changes, file_age: answered from the source's catalog and metadata (CATALOG) by the
  platform (executions/catalog_checks.py), never from rows; no engine plans them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlglot import exp

from dq_engine.errors import CheckError
from dq_engine.vocabulary.expressions import (
    DATE,
    NUMERIC,
    STRING,
    TIMESTAMP,
    ColumnRef,
    Dialect,
    cast,
    compare,
    is_null,
)
from dq_engine.vocabulary.fields import AGE_UNITS, AGGREGATE_FUNCTIONS, COLUMN, MAPPINGS, Field
from dq_engine.vocabulary.predicates import PREDICATES
from dq_engine.words import gettext_noop, say

# The messages (dq_engine/words.py: the platform translates them).
AGE_UNIT = gettext_noop("The age unit must be one of %(names)s; got %(unit)s.")
NEWEST_NOT_TIME = gettext_noop("The newest value %(value)s is not a date or a time.")
ROW_CHECKS_INVALID = gettext_noop("The row checks are not valid: %(problems)s")
NO_SUCH_CHECK = gettext_noop("The rule set has no check named %(name)s.")
CONTRACT_INVALID = gettext_noop("The contract is not valid: %(problems)s")
AGGREGATE_CHOICE = gettext_noop("The aggregate must be one of %(names)s; got %(function)s.")
NEEDS_NUMERIC = gettext_noop("%(column)s; %(function)s needs a numeric column.")
FRESHNESS_COLUMN = gettext_noop("%(column)s; freshness needs a date or timestamp column.")


# The passes an engine runs (plan.py groups checks by them). CATALOG: the platform answers the
# check from the source's catalog and metadata; no engine reads rows for it.
AGGREGATE_PASS, KEY_GROUP_BY, JOIN, QUERY, CATALOG = "aggregate", "key_group_by", "join", "query", "catalog"

SQL = Field("sql", "sql_param", "statistics query")
COMPARISON_SQL = Field("comparison_sql", "comparison_sql_param", "comparison query")
STATISTIC_NAME = Field("statistic_name", "name_param", "statistic name", engine=False)
COMPARISON_NAME = Field("comparison_name", "comparison_name_param", "comparison name", engine=False)


def _rules_from_param(text: Any) -> Any:
    """A check's check.yaml text → the full form the spec carries (invalid text stays text: the
    engine then reports it as the check's error; saving a check refuses it first)."""
    from dq_engine.rowchecks import RuleSetInvalid, expand

    try:
        return expand(text)
    except RuleSetInvalid:
        return text


RULES = Field("rules", "rules_param", "row checks (check.yaml)", from_param=_rules_from_param)


def _contract_from_param(text: Any) -> Any:
    """A check's contract.yaml → its full form (invalid text stays text, reported by the engine)."""
    from dq_engine.rowchecks.contract import ContractInvalid, parse_contract

    try:
        return parse_contract(text)
    except ContractInvalid:
        return text


CONTRACT = Field("contract", "contract_param", "schema contract (contract.yaml)", from_param=_contract_from_param)
# The cleansed layer: the whole batch with `_dq` and `_dq_failed_checks`, as Parquet in this folder
# (None: not written). The platform gives each run its own folder under the check's output_path.
OUTPUT = Field("output", "output_param", "cleansed output folder", required=False)
UNIT = Field("unit", "unit_param", "age unit", choices=AGE_UNITS)
_SECONDS = {"hours": 3600.0, "minutes": 60.0}


def age(newest: Any, now: datetime, unit: Any) -> float | None:
    """How long before `now` (aware) the moment `newest` was, in `unit` (hours or minutes); None
    for no moment (no rows). A time without a zone is read as UTC, a date as its midnight UTC:
    one rule on every engine, which return such values as they are stored."""
    if unit not in _SECONDS:
        raise CheckError(say(AGE_UNIT, names=", ".join(_SECONDS), unit=repr(unit)))
    if newest is None:
        return None
    if isinstance(newest, date) and not isinstance(newest, datetime):
        newest = datetime(newest.year, newest.month, newest.day)
    if not isinstance(newest, datetime):
        raise CheckError(say(NEWEST_NOT_TIME, value=repr(str(newest)[:40])))
    if newest.tzinfo is None:
        newest = newest.replace(tzinfo=UTC)
    return (now - newest).total_seconds() / _SECONDS[unit]


def _newest_age(value: Any, fields: Mapping[str, Any]) -> Any:
    return age(value, datetime.now(UTC), fields.get("unit"))


@dataclass(frozen=True)
class MetricKind:
    """- `fields`: what the metric carries (a conditional count adds its predicate's fields);
    - `computed_by`: the pass that computes it;
    - `row_level`: one aggregate expression of the batch's aggregate pass;
    - `error_rows`: it selects rows, which can be stored as the check's error rows;
    - `needs_target`: it reads a second batch (`target_batch`);
    - `reads_columns`: it reads any of the batch's columns (not one `column`): engines pass
      `row_metric` every column of the batch;
    - `statistic`: turns the aggregate's value into the statistic (value, the metric's fields),
      where the value is not the statistic itself (a newest time → its age)."""

    key: str
    label: str
    fields: tuple[Field, ...]
    computed_by: str
    row_level: bool = False
    error_rows: bool = False
    needs_target: bool = False
    reads_columns: bool = False
    statistic: Callable[[Any, Mapping[str, Any]], Any] | None = None


METRIC_KINDS: dict[str, MetricKind] = {
    kind.key: kind
    for kind in (
        MetricKind("conditional_count", "rows for which a predicate holds", (COLUMN,), AGGREGATE_PASS, True, True),
        MetricKind("row_count", "row count", (), AGGREGATE_PASS),
        MetricKind(
            "aggregate",
            "aggregate of a column",
            (COLUMN, Field("function", "function_param", "aggregate", choices=AGGREGATE_FUNCTIONS)),
            AGGREGATE_PASS,
            row_level=True,
        ),
        MetricKind(
            "row_rules", "rows failing row-level rules", (RULES, OUTPUT), AGGREGATE_PASS, True, True, reads_columns=True
        ),
        MetricKind(
            "schema_contract", "schema contract violations", (CONTRACT,), AGGREGATE_PASS, True, reads_columns=True
        ),
        MetricKind("newest_age", "age of the newest time", (COLUMN, UNIT), AGGREGATE_PASS, True, statistic=_newest_age),
        MetricKind("schema_changes", "columns changed since the last seen schema", (), CATALOG),
        MetricKind("file_age", "age of the newest data file", (UNIT,), CATALOG),
        MetricKind("duplicate_values", "duplicated values", (COLUMN,), KEY_GROUP_BY, error_rows=True),
        MetricKind("unmatched_rows", "unmatched rows", (MAPPINGS,), JOIN, error_rows=True, needs_target=True),
        MetricKind("custom_sql", "custom SQL statistic", (SQL, STATISTIC_NAME), QUERY),
        MetricKind(
            "value_comparison",
            "two queries compared",
            (SQL, STATISTIC_NAME, COMPARISON_SQL, COMPARISON_NAME),
            QUERY,
            needs_target=True,
        ),
    )
}


@dataclass(frozen=True)
class RowMetric:
    """One check's share of the aggregate pass: its aggregate and, for conditional counts, the
    condition that selects its rows (the error rows) and the columns its error rows carry besides
    the batch's (`marks`: row_rules' `_dq` and `_dq_failed_checks`)."""

    aggregate: exp.Expression
    predicate: exp.Expression | None
    marks: tuple[tuple[str, exp.Expression], ...] = ()
    findings: tuple[
        str, ...
    ] = ()  # what the schema alone shows (a contract's missing columns, …): the outcome's `findings`


def row_metric(
    kind: str,
    column: ColumnRef | None,
    fields: dict,
    dialect: Dialect,
    columns: Mapping[str, ColumnRef] | None = None,
) -> RowMetric:
    """A conditional count (`count_if(predicate)`), an aggregate, or row rules; raises CheckError.
    `columns` (every column of the batch by name) is needed by the kinds that `reads_columns`."""
    if METRIC_KINDS[kind].reads_columns:
        if columns is None:
            raise ValueError(f"{kind} reads the batch's columns: pass them to row_metric.")
        return _schema_contract(fields, columns) if kind == "schema_contract" else _row_rules(fields, columns, dialect)
    if kind == "aggregate":
        return RowMetric(aggregate=aggregate(column, fields.get("function")), predicate=None)
    if kind == "newest_age":
        return RowMetric(aggregate=newest_time(column), predicate=None)
    if kind != "conditional_count":
        raise ValueError(f"{kind} is not a row-level metric kind.")
    predicate = PREDICATES[fields["predicate"]].build(column, fields, dialect)
    return RowMetric(aggregate=exp.CountIf(this=predicate), predicate=predicate)


def _row_rules(fields: dict, columns: Mapping[str, ColumnRef], dialect: Dialect) -> RowMetric:
    from dq_engine.rowchecks.compile import (
        DQ_COLUMN,
        FAILED_CHECKS_COLUMN,
        compile_checks,
        dq_count,
        failed_names,
        invalid_row,
    )

    rules = fields.get("rules")
    if not isinstance(rules, list):
        from dq_engine.rowchecks import RuleSetInvalid, parse_rule_set

        try:
            rules = parse_rule_set(rules).checks
        except RuleSetInvalid as exc:
            raise CheckError(say(ROW_CHECKS_INVALID, problems=exc)) from None
    one = fields.get("rule")
    if one is not None:  # one check's failed rows (the result's details): only it is compiled
        chosen = [rule for rule in rules if isinstance(rule, dict) and rule.get("name") == one]
        if not chosen:
            raise CheckError(say(NO_SUCH_CHECK, name=repr(one)))
        failed = compile_checks(chosen, columns, dialect)[0].failed
        return RowMetric(aggregate=exp.CountIf(this=failed), predicate=failed)
    compiled = compile_checks(rules, columns, dialect)
    predicate = invalid_row(compiled)
    marks = ((DQ_COLUMN, dq_count(compiled)), (FAILED_CHECKS_COLUMN, failed_names(compiled)))
    return RowMetric(aggregate=exp.CountIf(this=predicate), predicate=predicate, marks=marks)


def _schema_contract(fields: dict, columns: Mapping[str, ColumnRef]) -> RowMetric:
    from dq_engine.rowchecks.contract import ContractInvalid, check_schema, parse_contract, violation_count

    try:
        contract = parse_contract(fields.get("contract"))
    except ContractInvalid as exc:
        raise CheckError(say(CONTRACT_INVALID, problems=exc)) from None
    checked = check_schema(contract, columns)
    one = fields.get("nulls_of")
    if one is not None:  # one non-nullable column's NULL rows (the result's details)
        ref = next((r for r in checked.non_nullable if r.name.casefold() == str(one).casefold()), None)
        condition = exp.false() if ref is None else is_null(ref.sql)
        return RowMetric(aggregate=exp.CountIf(this=condition), predicate=condition)
    # The statistic counts violations, not rows: no error rows (each column's NULL rows are in the details).
    return RowMetric(aggregate=violation_count(checked), predicate=None, findings=tuple(checked.violations))


_AGGREGATES = {"avg": exp.Avg, "sum": exp.Sum, "min": exp.Min, "max": exp.Max}


def aggregate(column: ColumnRef, function: object) -> exp.Expression:
    allowed = [choice.value for choice in AGGREGATE_FUNCTIONS]
    if function not in allowed:
        raise CheckError(say(AGGREGATE_CHOICE, names=", ".join(allowed), function=repr(function)))
    if column.category != NUMERIC:
        raise CheckError(say(NEEDS_NUMERIC, column=column.describe(), function=function))
    return _AGGREGATES[function](this=column.sql)


def newest_time(column: ColumnRef) -> exp.Expression:
    """MAX of a date or timestamp column (freshness); its age is taken when the value is recorded."""
    if column.category not in (DATE, TIMESTAMP):
        raise CheckError(say(FRESHNESS_COLUMN, column=column.describe()))
    return exp.Max(this=column.sql)


def mapping_condition(
    source: ColumnRef, operator: str, target: ColumnRef, target_sql: exp.Expression | None = None
) -> exp.Expression:
    """One accuracy pair's join condition: `<=>` null-safe, the others SQL comparisons.

    `target_sql` is how the target column is referenced in the join (an alias), when not by name.
    A string column paired with a non-string one is compared as strings: ANSI SQL would otherwise
    cast the string to a number and fail on the first value that is not one."""
    left, right = source.sql, target_sql if target_sql is not None else target.sql
    if compared_as_text(source, target):
        left, right = cast(left, "TEXT"), cast(right, "TEXT")
    return compare(left, operator, right)


def compared_as_text(source: ColumnRef, target: ColumnRef) -> bool:
    """Whether an accuracy pair compares the string forms (one side is text, the other not)."""
    return (source.category == STRING) != (target.category == STRING)
