"""Parse the SQL users write for checks and refuse anything that is not read-only or not the expected shape.

Users write two kinds of SQL:

- row filters (`src_filter`, `target_filter`): ONE boolean expression, like the part after WHERE;
- custom statistic queries (`statistics_execute_sql`, `comparison_execute_sql`): ONE read-only SELECT
  over the placeholder tables `${src_table}` / `${target_table}`, returning one numeric column.

Everything is parsed with SQLGlot in the Spark dialect and checked on the syntax tree; the engine then
runs SQL *rendered from that tree* (identifiers quoted, comments dropped, placeholders bound to temp
views as quoted identifiers), never the user's text. A refusal is an
`UnsafeSQL` whose message is written for the person who typed the SQL.

The engine must keep Spark's `spark.sql.parser.escapedStringLiterals` at its default (false): the
rendered string literals use backslash escapes.

Pure Python: imports SQLGlot only (no Django, no PySpark), so the web app can validate a rule form
with the same code the engine runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

import sqlglot
from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.errors import ParseError, SqlglotError, TokenError
from sqlglot.optimizer.annotate_types import annotate_types

from dq_engine.errors import Refusal, shown_names
from dq_engine.java_regex import JavaPatternError, check_java_pattern
from dq_engine.sql_functions import ALLOWED_FUNCTIONS, allowed_call, call_name
from dq_engine.words import fragment, gettext_noop, noun, say

__all__ = [
    "ALLOWED_FUNCTIONS",
    "MAX_SQL_LENGTH",
    "ParsedSelect",
    "RegexHook",
    "UnsafeSQL",
    "filter_to_spark_sql",
    "parse_filter",
    "parse_select",
]

DIALECT = "spark"

# Longer text is refused before parsing: a filter or a one-number query has no business being this big,
# and the parser is recursive (deep nesting is refused too, see _depth_guard).
MAX_SQL_LENGTH = 100_000

# Which functions user SQL may call is an allow-list kept in dq_engine/sql_functions.py (one place for
# every engine); a call is judged on the parsed tree and again on the rendered SQL's tokens.

# Words that stand before "(" in rendered SQL without being a function call.
_SYNTAX_BEFORE_PAREN = frozenset(
    {
        "in", "exists", "over", "filter", "as", "using", "on", "and", "or", "not", "when", "then",
        "else", "case", "from", "join", "where", "select", "all", "distinct", "by", "having", "with",
        "between", "is", "like", "ilike", "rlike", "any", "some", "union", "intersect", "except",
        "escape", "recursive", "lateral", "within", "group", "partition", "order", "interval",
        "struct", "array", "map", "if", "cast", "try_cast", "extract", "collate",
    }
)  # fmt: skip

# Names Spark resolves to session functions when written bare (no parentheses) and no column has that
# name (Spark's LiteralFunctionResolution). A bare column with such a name could read the session user.
_BARE_SESSION_NAMES = frozenset(
    {"current_user", "user", "session_user", "current_catalog", "current_database", "current_schema"}
)

# Generators that yield several output columns from one select-list item.
_MULTI_COLUMN_GENERATORS = frozenset(
    {"posexplode", "posexplode_outer", "inline", "inline_outer", "json_tuple", "stack"}
)


def _classes(*names: str) -> tuple[type, ...]:
    """SQLGlot classes by name, skipping any a given SQLGlot version lacks (the list is a deny-list)."""
    return tuple(cls for name in names if isinstance(cls := getattr(exp, name, None), type))


# Statements that change data, schema or session, or run commands: refused anywhere in the tree.
# exp.DDL/exp.DML cover CREATE, INSERT (incl. OVERWRITE), DELETE, UPDATE, MERGE, COPY; exp.Command is
# SQLGlot's fallback for statements it does not model (CALL, SHOW, EXPLAIN, ADD JAR, MSCK, ...).
_STATEMENT_NODES = _classes(
    "DDL",
    "DML",
    "Command",
    "Drop",
    "Alter",
    "TruncateTable",
    "Merge",
    "Set",
    "Use",
    "Grant",
    "Revoke",
    "Cache",
    "Uncache",
    "Refresh",
    "LoadData",
    "Describe",
    "Analyze",
    "Show",
    "Pragma",
    "Transaction",
    "Commit",
    "Rollback",
    "Kill",
    "MultitableInserts",
    "Directory",
    "Declare",
    "Execute",
    "Attach",
    "Detach",
    "Install",
    "Export",
    "Summarize",
)

# Readable names for statements whose SQL does not start with their keyword.
_STATEMENT_WORDS = {"TruncateTable": "TRUNCATE", "LoadData": "LOAD DATA", "MultitableInserts": "INSERT"}

# The placeholders are swapped for these identifiers before parsing, so SQLGlot sees ordinary table
# names; user text containing the prefix is refused, so a sentinel always means a placeholder.
_SENTINEL_PREFIX = "__dq_placeholder_"
_SENTINEL_RE = re.compile(r"^__dq_placeholder_([A-Za-z_][A-Za-z0-9_]*)__$")
_PLACEHOLDER_RE = re.compile(r"\$\{([^{}]*)\}")
_PLACEHOLDER_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# What a message is about, and the user-facing messages (dq_engine/words.py: the platform translates them).
FILTER = noun(gettext_noop("filter"))
QUERY = noun(gettext_noop("query"))
COMPARISON_QUERY = noun(gettext_noop("comparison query"))
OR = fragment(gettext_noop("%(names)s or %(last)s"), "tables", "allowed")
AND = fragment(gettext_noop("%(names)s and %(last)s"), "allowed")
FILTER_MUST = fragment(gettext_noop("The filter must be a single boolean expression"), "must")
QUERY_ONE_COLUMN = fragment(gettext_noop("The query must return exactly one numeric column"), "need")
FILTER_NO_PLACEHOLDERS = gettext_noop(
    "The filter cannot contain '${': Spark would replace ${...} with a configuration value. "
    "Filters name columns directly, not placeholders."
)
NOT_RENDERED_ARGUMENT = gettext_noop(
    "The %(what)s could not be rendered for Spark: a function is missing an argument (%(error)s)."
)
FILTER_NO_SUBQUERY = gettext_noop(
    "The filter cannot contain a subquery (SELECT ...); it may only use the columns of the row being checked."
)
FILTER_NO_TABLE = gettext_noop(
    "The filter cannot name a table (found %(table)s); it may only use the columns of the row being checked."
)
FILTER_NO_AGGREGATE = gettext_noop(
    "The filter is applied to one row at a time, so it cannot use aggregate or window functions (found %(found)s)."
)
FILTER_NOT_CONDITION = gettext_noop(
    "The filter must be a condition that is true or false for each row (for example amount > 0); found %(found)s."
)
THE_TEXT = fragment(gettext_noop("the text %(text)s"), "found")
THE_NUMBER = fragment(gettext_noop("the number %(number)s"), "found")
COLUMN_ALONE = fragment(
    gettext_noop("the column %(name)s alone (for a true/false column write %(name)s = true)"), "found"
)
NOT_A_CONDITION = fragment(gettext_noop("%(sql)s, which is not a condition"), "found")
FILTER_SESSION_NAME = gettext_noop(
    "The filter uses %(name)s, which Spark may read as a session function rather than a column; "
    "it can only be checked against the table's columns."
)
UNKNOWN_FILTER_COLUMN = gettext_noop("Unknown column in the filter: %(names)s. Known columns include: %(known)s.")
UNKNOWN_FILTER_COLUMNS = gettext_noop("Unknown columns in the filter: %(names)s. Known columns include: %(known)s.")
UNKNOWN_FILTER_COLUMN_NO_COLUMNS = gettext_noop(
    "Unknown column in the filter: %(names)s. The table has no known columns."
)
UNKNOWN_FILTER_COLUMNS_NO_COLUMNS = gettext_noop(
    "Unknown columns in the filter: %(names)s. The table has no known columns."
)
QUERY_RESERVED_TEXT = gettext_noop("The query cannot contain the text %(text)s; it is reserved.")
QUERY_MUST_READ = gettext_noop("The query must read %(tables)s.")
QUERY_EMPTY_GROUP_BY = gettext_noop(
    "The query's GROUP BY names nothing to group by; name the columns after it, or remove it."
)
UNKNOWN_PLACEHOLDER = gettext_noop("Unknown placeholder %(names)s; the query can only name %(allowed)s.")
UNKNOWN_PLACEHOLDERS = gettext_noop("Unknown placeholders %(names)s; the query can only name %(allowed)s.")
UNFINISHED_PLACEHOLDER = gettext_noop("The query has an unfinished placeholder; write %(allowed)s in full.")
NAME_THE_TABLE = gettext_noop("Name the table as %(allowed)s; found %(found)s.")
NAME_THE_TABLES = gettext_noop("Name the tables as %(allowed)s; found %(found)s.")
PLACEHOLDER_IN_STRING = gettext_noop("Placeholders name tables; %(name)s cannot be used inside a quoted string.")
PLACEHOLDER_NOT_TABLE = gettext_noop("A placeholder can only name a table, as in FROM %(name)s; found it in %(where)s.")
QUERY_SESSION_NAME = gettext_noop(
    "A bare %(name)s may be read by Spark as the session's %(name)s; to use a column of that name, qualify it, "
    "as in ${src_table}.%(name)s or t.%(name)s."
)
QUERY_SINGLE_SELECT = gettext_noop("The query must be a single SELECT statement; found %(found)s.")
QUERY_STAR = gettext_noop("%(need)s; found SELECT %(found)s. Select one value, e.g. count(*) AS bad_rows.")
QUERY_COLUMNS = gettext_noop("%(need)s; found %(count)s columns (%(shown)s).")
QUERY_GENERATOR = gettext_noop("%(need)s; %(found)s returns several columns.")
PLACEHOLDER_UNBOUND = gettext_noop("A placeholder is used where it cannot be bound to a table.")
PATTERN_NOT_LITERAL = gettext_noop(
    "The pattern of %(name)s in the %(what)s must be a quoted text (a literal), so that it can be checked before "
    "the run; found %(found)s."
)
BAD_REGEX = gettext_noop("Not a valid regular expression in the %(what)s (%(error)s): %(pattern)s.")
REGEX_FIND_ARGS = gettext_noop("%(name)s in the %(what)s takes a text and a pattern.")
REGEX_EXTRACT_GROUP = gettext_noop(
    "The group of regexp_extract in the %(what)s must be a whole number, as in regexp_extract(a, 'x(\\d+)', 1)."
)
REGEX_REPLACE_ARGS = gettext_noop(
    "regexp_replace in the %(what)s takes a text, a pattern and a quoted replacement (no position)."
)
EMPTY = gettext_noop("The %(what)s is empty.")
TOO_LONG = gettext_noop("The %(what)s is too long (%(length)s characters; at most %(limit)s).")
ONLY_COMMENTS = gettext_noop("The %(what)s is empty (it holds only comments or semicolons).")
SEVERAL_STATEMENTS = gettext_noop("%(must)s; found %(count)s statements.")
NOT_READ = gettext_noop("The %(what)s could not be read: %(why)s")
WRONG_ARGUMENTS = fragment(gettext_noop("a function is called with the wrong arguments (%(error)s)."), "why")
TOO_DEEP = gettext_noop("The %(what)s is nested too deeply to read.")
UNEXPECTED = fragment(gettext_noop("unexpected %(text)s"), "description")
UNEXPECTED_TEXT = fragment(gettext_noop("unexpected text"), "description")
INCOMPLETE = fragment(gettext_noop("incomplete %(kind)s expression"), "description")
AT_LINE = fragment(gettext_noop("%(description)s (line %(line)s, column %(column)s)."), "why")
NOT_CLOSED = fragment(gettext_noop("a %(what)s is not closed (it opens at line %(line)s, column %(column)s)."), "why")
NOT_CLOSED_SOMETHING = fragment(
    gettext_noop("a quote, backtick or comment is not closed, or a literal is malformed."), "why"
)
MUST_FOUND = gettext_noop("%(must)s; found %(found)s.")
SELECT_INTO_STATEMENT = fragment(gettext_noop("a SELECT ... INTO statement (it writes a table)"), "found")
A_STATEMENT = fragment(gettext_noop("a %(kind)s statement"), "found")
AN_STATEMENT = fragment(gettext_noop("an %(kind)s statement"), "found")
SELECT_INTO = gettext_noop("The %(what)s must only read data; SELECT ... INTO writes a table.")
READ_ONLY = gettext_noop("The %(what)s must only read data; found %(found)s.")
NO_TRANSFORM = gettext_noop("The %(what)s cannot use TRANSFORM ... USING: it runs an external program.")
NO_PARAMETERS = gettext_noop("The %(what)s cannot contain parameters such as %(found)s; write the value itself.")
PLAIN_FUNCTION_NAMES = gettext_noop(
    "The %(what)s can only call built-in functions by their plain name; found %(found)s."
)
FUNCTION_NOT_ALLOWED = gettext_noop(
    "function `%(name)s` is not allowed in the %(what)s: data-quality SQL may call only pure scalar, "
    "aggregate and window functions (nothing that reads files or URLs, calls Java or generates rows)."
)
NOT_RENDERED = gettext_noop("The %(what)s could not be rendered safely.")
NO_SUBSTITUTION = gettext_noop(
    "The %(what)s cannot contain the text '${', not even in quotes: Spark would replace ${...} with a "
    "configuration value."
)


class UnsafeSQL(Refusal):
    """User SQL that is refused; the message is meant for the person who wrote it."""


# --------------------------------------------------------------------------------------------------
# Filters
# --------------------------------------------------------------------------------------------------


def parse_filter(text: str, columns: Iterable[str] | None = None) -> exp.Expression:
    """Parse a row filter and return its expression, or raise UnsafeSQL.

    A filter is applied row by row to one table, so it must be a single boolean expression over that
    row's columns: no statements, subqueries, tables, aggregates, parameters or dangerous functions.
    When `columns` is given (the table's schema), every referenced column must be one of them
    (case-insensitive, as Spark resolves names). Comments are removed from the returned tree.
    """
    what = FILTER
    if isinstance(columns, str):
        raise TypeError("columns must be an iterable of column names, not one string")
    text = _require_text(text, what)
    if "${" in text:
        raise UnsafeSQL(say(FILTER_NO_PLACEHOLDERS))
    with _depth_guard(what):
        must = FILTER_MUST
        tree = _parse_single(text, what, must)
        _refuse_statement_root(tree, must, selecting=False)
        _refuse_unsafe_nodes(tree, what)
        _check_regex_calls(tree, what)
        _refuse_filter_only_nodes(tree)
        _drop_comments(tree)
        _require_condition(tree)
        known = None if columns is None else list(columns)
        _check_filter_columns(tree, known)
        _check_rendered(_render_filter(tree), what)
    return tree


def filter_to_spark_sql(expr: exp.Expression, regex: RegexHook | None = None) -> str:
    """Render a parsed filter as Spark SQL: identifiers in backticks, no comments.

    Quoting every identifier makes columns like `Ünïcode note` or `select` work, and rendering from
    the tree (not the user's text) means nothing the parser did not understand reaches Spark.
    `regex` is the engine's bounded regex (see RegexHook); without it RLIKE renders as RLIKE.
    """
    with _depth_guard(FILTER):
        sql = _render_filter(expr)
        _check_rendered(sql, FILTER)
        if regex is not None and _has_regex_call(expr):
            sql = _render(_bind_regexes(expr, regex), FILTER)
            _check_substitution(sql, FILTER)
    return sql


def _render_filter(expr: exp.Expression) -> str:
    """Render without the final text checks (parse_filter runs them itself, with its own wording)."""
    return _render(expr, FILTER)


def _render(tree: exp.Expression, what: str) -> str:
    """Spark SQL from a tree; SQLGlot fails on some malformed calls (a KeyError for a missing argument)."""
    try:
        return tree.sql(dialect=DIALECT, identify=True, comments=False)
    except RecursionError:
        raise
    except Exception as error:  # noqa: BLE001 - a refusal, never a 500
        raise UnsafeSQL(say(NOT_RENDERED_ARGUMENT, what=what, error=error))


def _refuse_filter_only_nodes(tree: exp.Expression) -> None:
    """Refuse what is harmless in a SELECT but meaningless or dangerous in a row filter."""
    for node in tree.walk():
        if isinstance(node, (exp.Query, exp.Values)):
            raise UnsafeSQL(say(FILTER_NO_SUBQUERY))
        if isinstance(node, exp.Table):
            raise UnsafeSQL(say(FILTER_NO_TABLE, table=_table_display(node)))
        if isinstance(node, (exp.AggFunc, exp.Window)):
            raise UnsafeSQL(say(FILTER_NO_AGGREGATE, found=_short_sql(node)))


def _require_condition(tree: exp.Expression) -> None:
    """Refuse a top-level expression that is plainly not true/false (a literal, a column, arithmetic).

    Pragmatic: comparisons, AND/OR/NOT, IN, BETWEEN, IS, LIKE/ILIKE/RLIKE and TRUE/FALSE pass; a
    function or CASE passes when SQLGlot infers BOOLEAN or cannot infer a type (e.g. `isnotnull(x)`,
    which it does not know); Spark reports anything else at run time.
    """
    node = tree
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, (exp.Predicate, exp.Connector, exp.Not, exp.Boolean)):
        return
    if not isinstance(node, (exp.Column, exp.Literal, exp.Null, exp.Star)):
        inferred = _inferred_type(node)
        if inferred == "boolean" or (inferred == "unknown" and isinstance(node, exp.Func)):
            return
    raise UnsafeSQL(say(FILTER_NOT_CONDITION, found=_describe_non_condition(node)))


def _inferred_type(node: exp.Expression) -> str:
    """SQLGlot's inferred type of an expression, lower-case ("boolean", "int", "unknown", ...)."""
    try:
        typed = annotate_types(node.copy(), dialect=DIALECT)
    except Exception:  # type inference is best effort; a failure means "don't know"
        return "unknown"
    if typed.type is None:
        return "unknown"
    return typed.type.sql(dialect=DIALECT).lower()


def _describe_non_condition(node: exp.Expression) -> str:
    """Say in words what a non-condition filter is, with a hint for the usual mistake."""
    if isinstance(node, exp.Literal):
        return say(THE_TEXT, text=node.sql(dialect=DIALECT)) if node.is_string else say(THE_NUMBER, number=node.name)
    if isinstance(node, exp.Null):
        return "NULL"
    if isinstance(node, exp.Column):
        name = node.sql(dialect=DIALECT)
        return say(COLUMN_ALONE, name=name)
    return say(NOT_A_CONDITION, sql=_short_sql(node))


def _check_filter_columns(tree: exp.Expression, known: list[str] | None) -> None:
    """Refuse columns the table does not have, and bare names Spark would read as session functions."""
    known_folded = None if known is None else {name.casefold() for name in known}
    unknown: list[str] = []
    for column in tree.find_all(exp.Column):
        if isinstance(column.this, exp.Star):
            continue
        parts = [part.name for part in column.parts]
        root = parts[0]
        if known_folded is not None:
            if root.casefold() not in known_folded:
                unknown.append(".".join(parts))
        elif len(parts) == 1 and root.lower() in _BARE_SESSION_NAMES:
            raise UnsafeSQL(say(FILTER_SESSION_NAME, name=root))
    if unknown:
        raise UnsafeSQL(_unknown_columns_message(list(dict.fromkeys(unknown)), known or []))


def _unknown_columns_message(unknown: list[str], known: list[str]) -> str:
    """Name the unknown columns and a few known ones, so the user can spot the typo."""
    names = ", ".join(unknown)
    if not known:
        return say(
            UNKNOWN_FILTER_COLUMN_NO_COLUMNS if len(unknown) == 1 else UNKNOWN_FILTER_COLUMNS_NO_COLUMNS, names=names
        )
    shown = shown_names(known, 8)
    return say(UNKNOWN_FILTER_COLUMN if len(unknown) == 1 else UNKNOWN_FILTER_COLUMNS, names=names, known=shown)


# --------------------------------------------------------------------------------------------------
# SELECT queries
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParsedSelect:
    """A checked statistic query: one read-only SELECT over placeholder tables, one output column.

    `expression` holds sentinel identifiers where the user wrote placeholders; treat it as read-only
    (`to_spark_sql` works on a copy). `output_name` is the alias or column name of the output, or
    None when Spark would make the name up (e.g. `SELECT count(*) FROM ...`): read it by position.
    """

    expression: exp.Expression
    tables_used: frozenset[str]
    output_name: str | None

    def to_spark_sql(self, view_names: Mapping[str, str], regex: RegexHook | None = None) -> str:
        """Render for Spark with each placeholder bound to a temp view name (a quoted identifier).

        The view names come from the engine, never from the user's text, and are quoted, so any
        name is safe. Every placeholder the query uses must be bound (ValueError otherwise: a bug).
        `regex` is the engine's bounded regex (see RegexHook).
        """
        missing = sorted(self.tables_used - set(view_names))
        if missing:
            raise ValueError(f"No view name given for placeholder(s): {', '.join(missing)}")
        for name in self.tables_used:
            if not isinstance(view_names[name], str) or not view_names[name]:
                raise ValueError(f"The view name for {name} must be a non-empty string")
        with _depth_guard(QUERY):
            sql = _render_select(self.expression, view_names)
            if regex is not None and _has_regex_call(self.expression):
                sql = _render_select(_bind_regexes(self.expression, regex), view_names, checked=False)
        return sql

    def bound(self, relation_names: Mapping[str, str]) -> exp.Expression:
        """A copy of the tree with each placeholder bound to a relation name (a quoted identifier),
        for an engine that renders it in another dialect (the pushdown engine names its CTEs so)."""
        bound = self.expression.copy()
        for ident in list(bound.find_all(exp.Identifier)):
            placeholder = _placeholder_of(ident.name)
            if placeholder is not None:
                ident.replace(exp.to_identifier(relation_names[placeholder], quoted=True))
        return bound


# Aggregates that compute the same value over filtered rows as with FILTER (WHERE ...): what lets a
# `SELECT agg(...) FROM ${src_table} WHERE cond` statistic join the batch's fused aggregate pass.
_FOLDABLE_AGGREGATES = (
    exp.Count,
    exp.CountIf,
    exp.Sum,
    exp.Avg,
    exp.Min,
    exp.Max,
    exp.Stddev,
    exp.StddevPop,
    exp.StddevSamp,
    exp.Variance,
    exp.VariancePop,
)
_SELECT_PARTS_KEPT = {"expressions", "from_", "from", "where"}


def batch_aggregate(query: ParsedSelect) -> str | None:
    """The query as ONE aggregate expression over the src_table batch's columns, or None.

    Only for the plain shape `SELECT <expression of aggregates> FROM ${src_table} [alias] [WHERE
    cond]`: no join, GROUP BY, HAVING, DISTINCT, window, subquery, LIMIT or set operation, and only
    the aggregates listed above, none DISTINCT. Each aggregate then gets `FILTER (WHERE cond)`,
    which gives the value the query gives, and the engine computes it in the batch's fused pass
    instead of a query of its own. The text is rendered from the checked tree (never the user's
    text) with the table qualifiers removed; Spark still analyses it against the batch, and the
    engine runs the query as written whenever that fails.
    """
    tree = query.expression
    if query.tables_used != {"src_table"} or not isinstance(tree, exp.Select):
        return None
    if _has_regex_call(tree):
        return None  # its own query, where the engine binds the bounded regex (to_spark_sql's hook)
    if any(value for key, value in tree.args.items() if key not in _SELECT_PARTS_KEPT and value):
        return None
    source = tree.args.get("from_") or tree.args.get("from")
    table = source.this if isinstance(source, exp.From) else None
    if not isinstance(table, exp.Table) or _table_placeholder(table) != "src_table" or table.args.get("joins"):
        return None
    qualifiers = {table.name, table.alias_or_name}
    item = tree.expressions[0]
    value = (item.this if isinstance(item, exp.Alias) else item).copy()
    where = tree.args.get("where")
    condition = where.this.copy() if isinstance(where, exp.Where) else None
    parts = [value] if condition is None else [value, condition]
    for part in parts:
        if any(True for _ in part.find_all(exp.Subquery, exp.Select, exp.Window, exp.Distinct, exp.Filter)):
            return None
    aggregates = list(value.find_all(exp.AggFunc))
    if not aggregates or any(not isinstance(a, _FOLDABLE_AGGREGATES) for a in aggregates):
        return None
    if condition is not None and any(True for _ in condition.find_all(exp.AggFunc)):
        return None
    if any(a is not b and b.find_ancestor(exp.AggFunc) is a for a in aggregates for b in aggregates):
        return None  # an aggregate inside an aggregate
    for part in parts:
        for column in part.find_all(exp.Column):
            if part is value and column.find_ancestor(exp.AggFunc) is None:
                return None  # a row value outside any aggregate: not one value per batch
            if column.table and column.table not in qualifiers:
                return None
            if column.args.get("db") or column.args.get("catalog"):
                return None
            column.set("table", None)
    if condition is not None:
        holder = exp.Paren(this=value)  # so that an aggregate at the root can be replaced too
        for aggregate in list(value.find_all(exp.AggFunc)):
            aggregate.replace(exp.Filter(this=aggregate.copy(), expression=exp.Where(this=condition.copy())))
        value = holder.this
    with _depth_guard(QUERY):
        sql = value.sql(dialect=DIALECT, identify=True, comments=False)
    if _SENTINEL_PREFIX in sql.lower():
        return None
    _check_rendered(sql, QUERY)
    return sql


def parse_select(text: str, placeholders: Iterable[str] = ("src_table",)) -> ParsedSelect:
    """Parse a custom statistic query, or raise UnsafeSQL.

    `placeholders` names the tables the query may read: ("src_table",) for custom SQL,
    ("src_table", "target_table") for a value comparison's queries (a Mapping passes its keys).
    The query must be exactly one SELECT (UNION/INTERSECT/EXCEPT and WITH are fine) that reads only
    those placeholders (directly, through CTEs or subqueries), writes nothing, calls no dangerous
    function and returns exactly one column. Whether that column is numeric is only known when
    Spark runs it.
    """
    what = QUERY
    allowed = _allowed_placeholders(placeholders)
    text = _require_text(text, what)
    if _SENTINEL_PREFIX in text.lower():
        raise UnsafeSQL(say(QUERY_RESERVED_TEXT, text=repr(_SENTINEL_PREFIX)))
    text, shifts = _substitute_placeholders(text, allowed)
    with _depth_guard(what):
        must = "The query must be a single SELECT statement"
        tree = _parse_single(text, what, must, shifts)
        _refuse_statement_root(tree, must, selecting=True)
        _refuse_unsafe_nodes(tree, what)
        _refuse_empty_group_by(tree)
        _check_regex_calls(tree, what)
        for hint in list(tree.find_all(exp.Hint)):  # optimizer hints: never needed, and they name tables
            hint.pop()
        _drop_comments(tree)
        tables_used = _check_tables(tree, allowed)
        _check_sentinel_positions(tree)
        _check_bare_session_names(tree)
        if not tables_used:
            raise UnsafeSQL(say(QUERY_MUST_READ, tables=_placeholder_list(allowed, either=True)))
        output_name = _check_single_output(tree)
        _render_select(tree, {name: f"dq_view_{name}" for name in tables_used})
    return ParsedSelect(expression=tree, tables_used=frozenset(tables_used), output_name=output_name)


def _refuse_empty_group_by(tree: exp.Expression) -> None:
    """SQLGlot reads a bare `GROUP BY` as a group of nothing and renders it back as is; Spark's
    parser refuses it. Refused here, so that a check saved with it does not fail at every run."""
    for group in tree.find_all(exp.Group):
        if not any(group.args.get(part) for part in exp.Group.arg_types):
            raise UnsafeSQL(say(QUERY_EMPTY_GROUP_BY))


def _allowed_placeholders(placeholders: Iterable[str]) -> tuple[str, ...]:
    """Validate the caller's placeholder names (a bad name is a programming error, not user input)."""
    names = tuple(dict.fromkeys(placeholders))
    for name in names:
        if not isinstance(name, str) or not _PLACEHOLDER_NAME_RE.match(name):
            raise ValueError(f"Invalid placeholder name: {name!r}")
    if not names:
        raise ValueError("At least one placeholder must be allowed")
    return names


def _sentinel(name: str) -> str:
    return f"{_SENTINEL_PREFIX}{name}__"


def _placeholder_of(identifier_name: str) -> str | None:
    """The placeholder a sentinel identifier stands for, or None for an ordinary name."""
    match = _SENTINEL_RE.match(identifier_name)
    return match.group(1) if match else None


def _placeholder_list(names: Iterable[str], either: bool) -> str:
    """`${a}, ${b} or ${c}` (either) or `${a}, ${b} and ${c}`."""
    shown = [f"${{{name}}}" for name in names]
    if len(shown) == 1:
        return shown[0]
    return say(OR if either else AND, names=", ".join(shown[:-1]), last=shown[-1])


def _display(text: str) -> str:
    """Show sentinels in a message the way the user wrote them: ${src_table}."""
    return re.sub(r"__dq_placeholder_([A-Za-z_][A-Za-z0-9_]*?)__", r"${\1}", text)


def _substitute_placeholders(text: str, allowed: tuple[str, ...]) -> tuple[str, list[tuple[int, int, int]]]:
    """Swap allowed ${name}s for sentinel identifiers; refuse any other ${...}, even inside quotes.

    Done on the text (before parsing) because `${...}` is not SQL. Any `${` left over would be
    substituted by Spark itself (spark.sql.variable.substitute), so none may survive. Also returns
    (line, column after the sentinel, length added) per swap, so parse errors can point at the
    user's own columns.
    """
    unknown = [m.group(0) for m in _PLACEHOLDER_RE.finditer(text) if m.group(1).strip() not in allowed]
    if unknown:
        raise UnsafeSQL(
            say(
                UNKNOWN_PLACEHOLDER if len(set(unknown)) == 1 else UNKNOWN_PLACEHOLDERS,
                names=", ".join(dict.fromkeys(unknown)),
                allowed=_placeholder_list(allowed, either=False),
            )
        )
    pieces: list[str] = []
    shifts: list[tuple[int, int, int]] = []
    last = 0
    for match in _PLACEHOLDER_RE.finditer(text):
        sentinel = _sentinel(match.group(1).strip())
        pieces += [text[last : match.start()], sentinel]
        last = match.end()
        so_far = "".join(pieces)
        column_after = len(so_far) - (so_far.rfind("\n") + 1)
        shifts.append((so_far.count("\n") + 1, column_after, len(sentinel) - len(match.group(0))))
    text = "".join(pieces) + text[last:]
    if "${" in text:
        raise UnsafeSQL(say(UNFINISHED_PLACEHOLDER, allowed=_placeholder_list(allowed, either=True)))
    return text, shifts


def _check_tables(tree: exp.Expression, allowed: tuple[str, ...]) -> set[str]:
    """Every table must be an allowed placeholder or a CTE visible at that point; return placeholders used."""
    used: set[str] = set()
    for table in tree.find_all(exp.Table):
        placeholder = _table_placeholder(table)
        if placeholder is not None and placeholder in allowed:
            used.add(placeholder)
            continue
        if placeholder is None and _is_visible_cte(table):
            continue
        raise UnsafeSQL(
            say(
                NAME_THE_TABLE if len(allowed) == 1 else NAME_THE_TABLES,
                allowed=_placeholder_list(allowed, either=True),
                found=_display(_table_display(table)),
            )
        )
    return used


def _table_placeholder(table: exp.Table) -> str | None:
    """The placeholder an unqualified sentinel table stands for, else None."""
    if not isinstance(table.this, exp.Identifier) or table.args.get("db") or table.args.get("catalog"):
        return None
    return _placeholder_of(table.this.name)


def _is_visible_cte(table: exp.Table) -> bool:
    """Whether an unqualified table name refers to a CTE in scope at that point of the query.

    A CTE sees only the CTEs defined before it (itself too when the WITH is RECURSIVE); the query
    body sees all of them. A name that is not a visible CTE would make Spark read a real table.
    """
    if not isinstance(table.this, exp.Identifier) or table.args.get("db") or table.args.get("catalog"):
        return False
    name = table.this.name.casefold()
    visible: set[str] = set()
    child: exp.Expression = table
    node = table.parent
    while node is not None:
        if isinstance(node, exp.With) and isinstance(child, exp.CTE):
            index = node.expressions.index(child)
            upto = index + 1 if node.args.get("recursive") else index
            visible.update(cte.alias_or_name.casefold() for cte in node.expressions[:upto])
        else:
            with_ = node.args.get("with_") or node.args.get("with")
            if isinstance(with_, exp.With) and with_ is not child:
                visible.update(cte.alias_or_name.casefold() for cte in with_.expressions)
        child, node = node, node.parent
    return name in visible


def _check_sentinel_positions(tree: exp.Expression) -> None:
    """A placeholder may only stand alone as a table name, or qualify a column (${src_table}.amount)."""
    for literal in tree.find_all(exp.Literal):
        if literal.is_string and _SENTINEL_PREFIX in literal.name.lower():
            raise UnsafeSQL(say(PLACEHOLDER_IN_STRING, name=_display(literal.name)))
    for ident in tree.find_all(exp.Identifier):
        if _SENTINEL_PREFIX not in ident.name.lower():
            continue
        parent = ident.parent
        exact = _placeholder_of(ident.name) is not None
        as_table = isinstance(parent, exp.Table) and ident.arg_key == "this"
        as_qualifier = isinstance(parent, exp.Column) and ident.arg_key == "table" and not parent.args.get("db")
        if not (exact and (as_table or as_qualifier)):
            where = _display(_short_sql(parent)) if parent is not None else _display(ident.name)
            raise UnsafeSQL(say(PLACEHOLDER_NOT_TABLE, name=_display(ident.name), where=where))


def _check_bare_session_names(tree: exp.Expression) -> None:
    """Refuse a bare `user` etc.: without a column of that name Spark reads the session user."""
    for column in tree.find_all(exp.Column):
        if not column.table and column.name.lower() in _BARE_SESSION_NAMES:
            raise UnsafeSQL(say(QUERY_SESSION_NAME, name=column.name))


def _check_single_output(tree: exp.Expression) -> str | None:
    """Refuse anything but exactly one output column; return its name (alias or column name)."""
    node = tree
    while isinstance(node, exp.Subquery):
        node = node.this
    if isinstance(node, exp.SetOperation):
        _check_single_output(node.expression)
        return _check_single_output(node.this)
    if not isinstance(node, exp.Select):
        raise UnsafeSQL(say(QUERY_SINGLE_SELECT, found=_short_sql(node)))
    items = node.expressions
    need = QUERY_ONE_COLUMN
    for item in items:
        if isinstance(item, exp.Star) or (isinstance(item, exp.Column) and isinstance(item.this, exp.Star)):
            raise UnsafeSQL(say(QUERY_STAR, need=need, found=_short_sql(item)))
    if len(items) != 1:
        shown = ", ".join(_display(_short_sql(item)) for item in items)
        raise UnsafeSQL(say(QUERY_COLUMNS, need=need, count=len(items), shown=shown))
    item = items[0]
    value = item.this if isinstance(item, exp.Alias) else item
    if isinstance(value, exp.Func) and _function_names(value) & _MULTI_COLUMN_GENERATORS:
        raise UnsafeSQL(say(QUERY_GENERATOR, need=need, found=_short_sql(value)))
    if isinstance(item, exp.Alias):
        return item.alias
    if isinstance(item, exp.Column):
        return item.name
    return None


def _render_select(tree: exp.Expression, view_names: Mapping[str, str], checked: bool = True) -> str:
    """Render a copy of the query with sentinels replaced by quoted view names, then check the text
    (`checked=False` after the engine's regex hook: its function names are the engine's own)."""
    bound = tree.copy()
    for ident in list(bound.find_all(exp.Identifier)):
        placeholder = _placeholder_of(ident.name)
        if placeholder is not None:
            ident.replace(exp.to_identifier(view_names[placeholder], quoted=True))
    sql = _render(bound, QUERY)
    if _SENTINEL_PREFIX in sql.lower():  # every sentinel was checked to be bound; belt and braces
        raise UnsafeSQL(say(PLACEHOLDER_UNBOUND))
    if checked:
        _check_rendered(sql, QUERY)
    else:
        _check_substitution(sql, QUERY)
    return sql


# --------------------------------------------------------------------------------------------------
# Regular expressions in user SQL
# --------------------------------------------------------------------------------------------------


class RegexHook(Protocol):
    """How an engine runs a regex call in bounded time: given the kind ("find" for RLIKE/REGEXP/
    regexp_like, "extract", "replace"), the text expression, the (validated) pattern and the call's
    other arguments (extract: the group number; replace: the replacement), the expression to render
    instead of the call."""

    def __call__(
        self, kind: str, text: exp.Expression, pattern: str, extra: list[exp.Expression]
    ) -> exp.Expression: ...


_REGEX_KINDS = {exp.RegexpLike: "find", exp.RegexpExtract: "extract", exp.RegexpReplace: "replace"}


def _regex_kind(node: exp.Expression) -> str | None:
    if isinstance(node, exp.Anonymous) and node.name.lower() in {"regexp", "rlike", "regexp_like"}:
        return "find"
    return _REGEX_KINDS.get(type(node))


def _regex_parts(node: exp.Expression) -> tuple[exp.Expression, exp.Expression | None, list[exp.Expression]]:
    """(text, pattern, other arguments) of a regex call."""
    if isinstance(node, exp.Anonymous):
        args = list(node.expressions)
        return (args[0] if args else None), (args[1] if len(args) > 1 else None), args[2:]
    extra = [
        node.args[key] for key in ("group", "replacement", "position", "occurrence", "modifiers") if node.args.get(key)
    ]
    return node.args.get("this"), node.args.get("expression"), extra


def _has_regex_call(tree: exp.Expression) -> bool:
    return any(_regex_kind(node) for node in tree.walk())


def _check_regex_calls(tree: exp.Expression, what: str) -> None:
    """Every regex must be a literal pattern Java accepts, so that it can be checked now and run
    under the engine's bounded matcher; its other arguments must be literals of the right kind."""
    for node in tree.walk():
        kind = _regex_kind(node)
        if kind is None:
            continue
        name = call_name(node) if isinstance(node, exp.Func) else "rlike"
        text, pattern, extra = _regex_parts(node)
        if text is None or not isinstance(pattern, exp.Literal) or not pattern.is_string:
            found = _short_sql(pattern) if pattern is not None else "none"
            raise UnsafeSQL(say(PATTERN_NOT_LITERAL, name=name, what=what, found=found))
        try:
            check_java_pattern(pattern.name)
        except JavaPatternError as error:
            raise UnsafeSQL(say(BAD_REGEX, what=what, error=error.short, pattern=repr(pattern.name)))
        if kind == "find" and extra:
            raise UnsafeSQL(say(REGEX_FIND_ARGS, name=name, what=what))
        if kind == "extract" and not (len(extra) == 1 and isinstance(extra[0], exp.Literal) and not extra[0].is_string):
            raise UnsafeSQL(say(REGEX_EXTRACT_GROUP, what=what))
        if kind == "replace" and not (len(extra) == 1 and isinstance(extra[0], exp.Literal) and extra[0].is_string):
            raise UnsafeSQL(say(REGEX_REPLACE_ARGS, what=what))


def _bind_regexes(tree: exp.Expression, regex: RegexHook) -> exp.Expression:
    """A copy of the tree with every regex call replaced by the engine's bounded form."""
    bound = tree.copy()
    for node in list(bound.walk()):
        kind = _regex_kind(node)
        if kind is None:
            continue
        text, pattern, extra = _regex_parts(node)
        replacement = regex(kind, text.copy(), pattern.name, [e.copy() for e in extra])
        if node is bound:
            bound = replacement
        else:
            node.replace(replacement)
    return bound


# --------------------------------------------------------------------------------------------------
# Shared checks
# --------------------------------------------------------------------------------------------------


def _require_text(text: str, what: str) -> str:
    """Refuse missing, blank or oversized text before the parser sees it."""
    if not isinstance(text, str) or not text.strip():
        raise UnsafeSQL(say(EMPTY, what=what))
    if len(text) > MAX_SQL_LENGTH:
        raise UnsafeSQL(say(TOO_LONG, what=what, length=len(text), limit=MAX_SQL_LENGTH))
    return text


def _parse_single(text: str, what: str, must: str, shifts: list[tuple[int, int, int]] | None = None) -> exp.Expression:
    """Parse Spark SQL and insist on exactly one statement (blank statements between ';' don't count)."""
    statements = [statement for statement in _parse(text, what, shifts or []) if statement is not None]
    if not statements:
        raise UnsafeSQL(say(ONLY_COMMENTS, what=what))
    if len(statements) > 1:
        raise UnsafeSQL(say(SEVERAL_STATEMENTS, must=must, count=len(statements)))
    return statements[0]


def _parse(text: str, what: str, shifts: list[tuple[int, int, int]]) -> list[exp.Expression | None]:
    """sqlglot.parse with its errors turned into UnsafeSQL messages a user can act on."""
    try:
        return sqlglot.parse(text, read=DIALECT)
    except ParseError as error:
        raise UnsafeSQL(_display(say(NOT_READ, what=what, why=_parse_error_message(error, shifts))))
    except TokenError as error:
        raise UnsafeSQL(say(NOT_READ, what=what, why=_token_error_message(error)))
    except SqlglotError as error:
        raise UnsafeSQL(say(NOT_READ, what=what, why=_clean(str(error))))
    except (ValueError, TypeError, IndexError) as error:  # SQLGlot's function builders, on a wrong arity
        raise UnsafeSQL(say(NOT_READ, what=what, why=say(WRONG_ARGUMENTS, error=error)))


@contextmanager
def _depth_guard(what: str) -> Iterator[None]:
    """Turn RecursionError (SQLGlot parses, walks and renders recursively) into a refusal."""
    try:
        yield
    except RecursionError:
        raise UnsafeSQL(say(TOO_DEEP, what=what))


def _parse_error_message(error: ParseError, shifts: list[tuple[int, int, int]]) -> str:
    """First parse error as 'unexpected X (line 1, column 9).' without SQLGlot's class paths or ANSI codes."""
    if not error.errors:
        return _clean(str(error)) + "."
    first = error.errors[0]
    description = _clean(str(first.get("description") or "syntax error"))
    highlight = _clean(str(first.get("highlight") or "")).strip()
    if description.startswith("Invalid expression / Unexpected token"):
        description = say(UNEXPECTED, text=repr(highlight)) if highlight else say(UNEXPECTED_TEXT)
    else:
        missing = re.match(r"Required keyword: '(\w+)' missing for (\w+)", description)
        if missing:
            description = say(INCOMPLETE, kind=missing.group(2))
        if highlight:
            description += f" near {highlight!r}"
    line, column = first.get("line"), first.get("col")
    if isinstance(line, int) and isinstance(column, int):  # undo the length the placeholder swap added
        column -= sum(added for at_line, after, added in shifts if at_line == line and after <= column)
    return say(AT_LINE, description=description, line=line, column=column)


def _token_error_message(error: TokenError) -> str:
    """Explain tokenizer failures, which are nearly always an unclosed quote, backtick or comment."""
    cause = str(error.__cause__ or error)
    missing = re.match(r"Missing (.+) from (\d+):(\d+)", cause)
    if missing:
        return say(NOT_CLOSED, what=missing.group(1), line=missing.group(2), column=missing.group(3))
    return say(NOT_CLOSED_SOMETHING)


def _clean(message: str) -> str:
    """Strip ANSI colour codes and turn "<class 'sqlglot.expressions.core.And'>" into "And"."""
    message = re.sub(r"\x1b\[[0-9;]*m", "", message)
    return re.sub(r"<class '(?:[\w.]+\.)?(\w+)'>", r"\1", message).strip()


def _refuse_statement_root(tree: exp.Expression, must: str, selecting: bool) -> None:
    """Refuse a root of the wrong kind: for a filter any statement, for a query anything but a SELECT."""
    root = tree
    if selecting:
        while isinstance(root, exp.Subquery):
            root = root.this
        if isinstance(root, (exp.Select, exp.SetOperation)) and not root.args.get("into"):
            return
    elif isinstance(tree, exp.Condition) and not isinstance(tree, exp.Query):
        return
    raise UnsafeSQL(say(MUST_FOUND, must=must, found=_statement_phrase(root)))


def _statement_phrase(node: exp.Expression) -> str:
    """'a DROP statement', 'a SELECT ... INTO statement', or the expression itself."""
    if isinstance(node, exp.Select) and node.args.get("into"):
        return say(SELECT_INTO_STATEMENT)
    if isinstance(node, exp.Command):
        return _a(str(node.this).upper())
    name = type(node).__name__
    if name in _STATEMENT_WORDS:
        return _a(_STATEMENT_WORDS[name])
    if isinstance(node, _STATEMENT_NODES):
        return _a(node.key.upper())
    if isinstance(node, exp.Query):
        return _a("SELECT")
    if isinstance(node, exp.Values):
        return _a("VALUES")
    return _short_sql(node)


def _a(kind: str) -> str:
    """'a DROP statement', 'an INSERT statement'."""
    vowel = kind[:1].upper() in "AEIOU" and not kind.upper().startswith("USE")
    return say(AN_STATEMENT if vowel else A_STATEMENT, kind=kind)


def _refuse_unsafe_nodes(tree: exp.Expression, what: str) -> None:
    """Refuse, anywhere in the tree: statements, SELECT INTO, script transforms, parameters, dangerous
    or catalog-qualified function calls."""
    for node in tree.walk():
        if isinstance(node, exp.Into):
            raise UnsafeSQL(say(SELECT_INTO, what=what))
        if isinstance(node, _STATEMENT_NODES):
            raise UnsafeSQL(say(READ_ONLY, what=what, found=_statement_phrase(node)))
        if isinstance(node, exp.QueryTransform):
            raise UnsafeSQL(say(NO_TRANSFORM, what=what))
        if isinstance(node, (exp.Parameter, exp.Placeholder)):
            raise UnsafeSQL(say(NO_PARAMETERS, what=what, found=node.sql(dialect=DIALECT)))
        if isinstance(node, exp.Func):
            _refuse_unlisted_function(node, what)
        if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Func):
            raise UnsafeSQL(say(PLAIN_FUNCTION_NAMES, what=what, found=_short_sql(node)))


def _refuse_unlisted_function(node: exp.Func, what: str) -> None:
    """Refuse a call to a function that is not on the allow-list (dq_engine/sql_functions.py)."""
    if not allowed_call(node):
        raise UnsafeSQL(_not_allowed(call_name(node), what))


def _not_allowed(name: str, what: str) -> str:
    return say(FUNCTION_NOT_ALLOWED, name=name, what=what)


def _function_names(node: exp.Func) -> set[str]:
    """Lower-case names a call may go by: as written for unknown functions, SQLGlot's names otherwise."""
    if isinstance(node, exp.Anonymous):
        return {node.name.lower()}
    try:
        return {name.lower() for name in type(node).sql_names()}
    except NotImplementedError:
        return set()


def _check_rendered(sql: str, what: str) -> None:
    """Last look at the SQL text Spark will receive.

    - no `${`: Spark substitutes `${...}` in SQL text (spark.sql.variable.substitute, e.g.
      `${env:SECRET}`), even inside string literals, and an escaped `'$\\{'` renders as `'${'`;
    - every word called as a function (followed by "(") is on the allow-list, in case SQLGlot models
      a call under a class whose rendering differs from what the tree check saw;
    - no bare session words (CURRENT_USER and the like render as keywords, without parentheses).
    """
    _check_substitution(sql, what)
    try:
        tokens = Spark().tokenize(sql)
    except SqlglotError:
        raise UnsafeSQL(say(NOT_RENDERED, what=what))
    for index, token in enumerate(tokens):
        kind = token.token_type.name
        word = token.text.lower()
        if kind.endswith("STRING") or kind == "IDENTIFIER" or not _WORD_RE.match(word):
            continue  # quoted text and quoted names (every identifier is quoted in the rendering)
        called = index + 1 < len(tokens) and tokens[index + 1].token_type.name == "L_PAREN"
        if called and word not in ALLOWED_FUNCTIONS and word not in _SYNTAX_BEFORE_PAREN:
            raise UnsafeSQL(_not_allowed(word, what))
        if word in _BARE_SESSION_NAMES:
            raise UnsafeSQL(_not_allowed(word, what))


_WORD_RE = re.compile(r"^[a-z_][a-z0-9_]*$")


def _check_substitution(sql: str, what: str) -> None:
    if "${" in sql:
        raise UnsafeSQL(say(NO_SUBSTITUTION, what=what))


def _drop_comments(tree: exp.Expression) -> None:
    """Remove comments from the tree, so no rendering of it can carry comment tricks to Spark."""
    for node in tree.walk():
        node.comments = None


def _table_display(table: exp.Table) -> str:
    """A table reference as the user would recognise it, without alias or sampling."""
    if isinstance(table.this, exp.Identifier):
        return ".".join(part.name for part in table.parts)
    return _short_sql(table.this)


def _short_sql(node: exp.Expression, limit: int = 80) -> str:
    """An expression's SQL, shortened for a message."""
    sql = node.sql(dialect=DIALECT, comments=False)
    return sql if len(sql) <= limit else sql[: limit - 3] + "..."
