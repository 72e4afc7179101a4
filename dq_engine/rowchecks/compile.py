"""The full form of a check.yaml → dialect-neutral SQLGlot conditions over the batch's columns.

Each top-level check becomes `failed`: a condition true for the rows that fail it, never NULL, so
a batch's row-level checks are boolean columns of its ONE aggregate pass on every engine (the
engines render SQLGlot like any predicate of the vocabulary). The meanings (README):

- value checks (every operator, maxLen, minLen) pass on NULL, negated or not; with several
  fields the check applies to each field (all must hold), `negate` inverts each field's test;
- notNull: each field is set (negated: each field is NULL);
- notNullIfSet: when any of the fields is set, all of them must be (negated: some but not all set);
- re: a Java regex searched in the value's text, through the same hook as regexp_check (Spark:
  the precompiled automaton, checked by Java's regex engine); like: SQL LIKE (`%`, `_`);
- comparisons with a numeric column take numbers, a text column compares texts, date and
  timestamp columns take ISO dates/times, boolean columns true/false;
- chain: `all` holds when every nested check holds, `any` when one does; `negate` inverts it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlglot import exp

from dq_engine.errors import CheckError
from dq_engine.vocabulary.expressions import (
    BINARY,
    BOOLEAN,
    DATE,
    NUMERIC,
    STRING,
    TIMESTAMP,
    ColumnRef,
    Dialect,
    all_of,
    any_of,
    as_text,
    finite_number,
    is_not_null,
    is_null,
    negate,
    number,
    string,
    try_cast,
)
from dq_engine.vocabulary.predicates import PREDICATES

DQ_COLUMN, FAILED_CHECKS_COLUMN = "_dq", "_dq_failed_checks"
NAME_SEPARATOR = ","  # _dq_failed_checks joins the names with it (names never hold one)

_COMPARE = {"eq": exp.EQ, "ne": exp.NEQ, "gt": exp.GT, "lt": exp.LT, "ge": exp.GTE, "le": exp.LTE}


@dataclass(frozen=True)
class CompiledCheck:
    name: str
    critical: bool
    failed: exp.Expression  # true for the rows failing the check; never NULL


def compile_checks(
    checks: list[dict[str, Any]], columns: Mapping[str, ColumnRef], dialect: Dialect
) -> list[CompiledCheck]:
    """Every top-level check of the full form; CheckError (naming the check) for a column the batch
    lacks or a value its column's type cannot take."""
    if not isinstance(checks, list) or not checks:
        raise CheckError("The rule set has no checks.")
    resolver = _Columns(columns)
    return [
        CompiledCheck(check["name"], bool(check.get("critical")), negate(_holds(check, resolver, dialect)))
        for check in checks
    ]


def invalid_row(compiled: list[CompiledCheck]) -> exp.Expression:
    """True for a row failing any check (`_dq > 0`)."""
    return any_of(*(c.failed for c in compiled)) if len(compiled) > 1 else compiled[0].failed


def dq_count(compiled: list[CompiledCheck]) -> exp.Expression:
    """`_dq`: how many checks the row fails."""
    terms = [exp.Case(ifs=[exp.If(this=c.failed, true=number(1))], default=number(0)) for c in compiled]
    total = terms[0]
    for term in terms[1:]:
        total = exp.Add(this=total, expression=term)
    return total


def failed_names(compiled: list[CompiledCheck]) -> exp.Expression:
    """`_dq_failed_checks`: the failed checks' names joined by commas ('' when none): text, so every
    engine and every store holds it (MySQL has no arrays); split on ',' to get the list."""
    names = [exp.Case(ifs=[exp.If(this=c.failed, true=string(c.name))]) for c in compiled]
    return exp.Coalesce(
        this=exp.ConcatWs(expressions=[string(NAME_SEPARATOR), *names], coalesce=True), expressions=[string("")]
    )


def leaf_checks(checks: Any) -> list[tuple[str, dict[str, Any]]]:
    """(top-level check's name, entry) for every entry that is not a chain, nested chains walked:
    what the engines ask before a run (a pattern only Spark reads, a column they compare). A rule
    set that is not a parsed full form has none (the engines report it as the check's error)."""
    found: list[tuple[str, dict[str, Any]]] = []

    def walk(entry: Any, top: str) -> None:
        if not isinstance(entry, dict):
            return
        if entry.get("type") == "chain":
            for nested in entry.get("checks") or []:
                walk(nested, top)
        else:
            found.append((top, entry))

    for check in checks if isinstance(checks, list) else []:
        if isinstance(check, dict):
            walk(check, str(check.get("name")))
    return found


# A time with a zone (`2024-01-10 00:00:00+01:00`, `...Z`): Spark converts it to the session's time
# zone, DuckDB's and PostgreSQL's casts to a timestamp without zone drop the offset.
_ZONED_TIME = re.compile(r"\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?)$", re.IGNORECASE)


def zoned_time(rule: dict[str, Any]) -> str | None:
    """A value of the rule that is a time with a zone offset (engines other than Spark read it
    otherwise, so such a rule set is Spark's), or None."""
    if rule.get("fn") not in _COMPARE and rule.get("fn") != "in":
        return None
    return next((v for v in rule.get("args") or [] if isinstance(v, str) and _ZONED_TIME.search(v.strip())), None)


# --- what each entry means ----------------------------------------------------------------------
def _holds(check: dict[str, Any], columns: _Columns, dialect: Dialect) -> exp.Expression:
    """True when the row satisfies the entry (never NULL)."""
    if check["type"] == "chain":
        parts = [_holds(nested, columns, dialect) for nested in check["checks"]]
        combined = (all_of if check["clause"] == "all" else any_of)(*parts) if len(parts) > 1 else parts[0]
        return negate(combined) if check.get("negate") else combined
    fn, inverted = check["fn"], bool(check.get("negate"))
    refs = [columns.get(field, check["name"]) for field in check["fields"]]
    try:
        if fn == "notNullIfSet":
            none_set = all_of(*(is_null(r.sql) for r in refs))
            all_set = all_of(*(is_not_null(r.sql) for r in refs))
            holds = any_of(none_set, all_set)
            return negate(holds) if inverted else holds
        if fn == "notNull":
            tests = [is_null(r.sql) if inverted else is_not_null(r.sql) for r in refs]
        else:
            tests = [_value_test(r, fn, check["args"], inverted, dialect) for r in refs]
    except CheckError as exc:
        raise CheckError(f"Check {check['name']!r}: {exc}") from None
    return all_of(*tests) if len(tests) > 1 else tests[0]


def _value_test(column: ColumnRef, fn: str, args: list[Any], inverted: bool, dialect: Dialect) -> exp.Expression:
    """NULL passes; otherwise the value must (or with negate: must not) satisfy fn."""
    if fn == "re":
        # regexp_check's own predicate: non-NULL values where the pattern is not found.
        mismatch = PREDICATES["regexp_mismatch"].build(column, {"pattern": args[0]}, dialect)
        return any_of(is_null(column.sql), mismatch) if inverted else negate(mismatch)
    condition = exp.Coalesce(this=_condition(column, fn, args), expressions=[exp.false()])
    return any_of(is_null(column.sql), negate(condition) if inverted else condition)


def _condition(column: ColumnRef, fn: str, args: list[Any]) -> exp.Expression:
    if fn == "like":
        return exp.Like(this=as_text(column), expression=string(args[0]))
    if fn in ("maxLen", "minLen"):
        text = column.sql if column.category in (STRING, BINARY) else as_text(column)
        node = exp.LTE if fn == "maxLen" else exp.GTE
        return node(this=exp.Length(this=text), expression=number(args[0]))
    if fn == "in":
        return exp.In(this=column.sql, expressions=[_value(column, value, fn) for value in args])
    return _COMPARE[fn](this=column.sql, expression=_value(column, args[0], fn))


def _value(column: ColumnRef, value: Any, fn: str) -> exp.Expression:
    """A literal the column can be compared with, or CheckError saying which values fit."""
    if column.category == STRING:
        return string(("true" if value else "false") if isinstance(value, bool) else str(value))
    if column.category == NUMERIC:
        return number(finite_number(value, f"value {value!r} compared with the numeric column {column.name!r}"))
    if column.category == BOOLEAN:
        if isinstance(value, str) and value.lower() in ("true", "false"):
            value = value.lower() == "true"
        if not isinstance(value, bool) or fn not in ("eq", "ne", "in"):
            raise CheckError(f"{column.describe()}; compare it with true or false using ==, != or in.")
        return exp.true() if value else exp.false()
    if column.category in (DATE, TIMESTAMP) and column.type is not None:
        text = value.strip() if isinstance(value, str) else None
        try:
            (date.fromisoformat if column.category == DATE else datetime.fromisoformat)(text or "")
        except ValueError:
            form = "YYYY-MM-DD" if column.category == DATE else "YYYY-MM-DD HH:MM:SS"
            raise CheckError(f"{column.describe()}; compare it with a {column.category} like {form}, not {value!r}.")
        return try_cast(string(text), column.type)
    raise CheckError(f"{column.describe()}, which a row check cannot compare.")


class _Columns:
    """The batch's columns by name: the exact name first, then a unique case-insensitive match
    (as Spark resolves names)."""

    def __init__(self, columns: Mapping[str, ColumnRef]):
        self.columns = columns

    def get(self, name: str, check: str) -> ColumnRef:
        if name in self.columns:
            return self.columns[name]
        matches = [ref for key, ref in self.columns.items() if key.casefold() == name.casefold()]
        if len(matches) == 1:
            return matches[0]
        shown = ", ".join(list(self.columns)[:12])
        raise CheckError(f"Check {check!r}: unknown column {name!r}; the batch has the columns {shown}.")
