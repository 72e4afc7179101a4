"""The SQL the DuckDB engine runs, rendered by SQLGlot (dialect "duckdb") from the same trees the
Spark engine renders: the vocabulary's predicates and metrics, and the user's filters and custom
SQL as sql_safety parsed and checked them (in Spark SQL, the language users write).

User SQL is only run on DuckDB when it is *portable*: every node of its tree is one whose meaning
is the same in Spark SQL and DuckDB (the allow-list below: columns, literals, arithmetic,
comparisons, boolean logic, CASE, COALESCE, CAST, the common aggregates, ...), and SQLGlot renders
it without an "unsupported" warning. Anything else (RLIKE, LIKE with escapes, date functions,
window functions, functions SQLGlot does not know) raises NotPortable with a reason, and the batch
is read by Spark instead (dq_engine/selection.py). This is deliberately conservative: a query that
runs on DuckDB with a different answer would be worse than a slower run on Spark.

The engine's hooks for what dialects mean differently (`DuckDBDialect`): Java regexes only as RE2
patterns with Java's answers (regex.py), Spark datetime patterns only the numeric fields whose
widths both engines read alike.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import sqlglot
from sqlglot import ErrorLevel, exp
from sqlglot.errors import SqlglotError

from dq_engine.duckdb.regex import java_to_re2
from dq_engine.errors import CheckError
from dq_engine.sql_safety import ParsedSelect, UnsafeSQL, parse_filter
from dq_engine.vocabulary import Dialect
from dq_engine.vocabulary.expressions import string
from dq_engine.words import gettext_noop, say

# The messages (dq_engine/words.py: the platform translates them).
MISSING = gettext_noop("The %(what)s is missing.")
REFUSED = gettext_noop("The %(what)s was refused: %(why)s")
NEEDS_JAVA_REGEX = gettext_noop(
    "The regular expression %(pattern)s needs Java's regex engine (DuckDB's RE2 may answer it differently); "
    "run it on Spark."
)
SPARK_ONLY_FORMAT = gettext_noop(
    "The datetime format %(pattern)s uses %(letter)s, which only Spark reads; run it on Spark."
)
EMPTY_FORMAT = gettext_noop("The datetime format %(pattern)s is empty.")

DIALECT = "duckdb"


class NotPortable(CheckError):
    """User SQL (or a pattern) DuckDB would not answer as Spark does; the message says what, in
    words a user reads as they are (a check error, never "NotPortable: ...")."""


# Nodes whose meaning is the same in Spark SQL and DuckDB for the values a check sees.
_PORTABLE: tuple[type[exp.Expression], ...] = (
    exp.Select,
    exp.From,
    exp.Where,
    exp.Group,
    exp.Having,
    exp.Order,
    exp.Ordered,
    exp.Limit,
    exp.Distinct,
    exp.Subquery,
    exp.Table,
    exp.TableAlias,
    exp.Alias,
    exp.Column,
    exp.Identifier,
    exp.Star,
    exp.Literal,
    exp.Null,
    exp.Boolean,
    exp.Paren,
    exp.Neg,
    exp.Not,
    exp.And,
    exp.Or,
    exp.Add,
    exp.Sub,
    exp.Mul,
    exp.Div,
    exp.EQ,
    exp.NEQ,
    exp.GT,
    exp.GTE,
    exp.LT,
    exp.LTE,
    exp.NullSafeEQ,
    exp.Is,
    exp.In,
    exp.Between,
    exp.Case,
    exp.If,
    exp.Coalesce,
    exp.Nullif,
    exp.Count,
    exp.CountIf,
    exp.Sum,
    exp.Avg,
    exp.Min,
    exp.Max,
    exp.Filter,
    exp.Abs,
    exp.Lower,
    exp.Upper,
    exp.Length,
    exp.Cast,
    exp.TryCast,
    exp.DataType,
    exp.DataTypeParam,
    exp.With,
    exp.CTE,
    exp.Union,
    exp.Join,
)
# Types a CAST may target: the same conversion in both engines for the values checks hold.
_PORTABLE_TYPES = {
    exp.DataType.Type.TINYINT,
    exp.DataType.Type.SMALLINT,
    exp.DataType.Type.INT,
    exp.DataType.Type.BIGINT,
    exp.DataType.Type.DECIMAL,
    exp.DataType.Type.DOUBLE,
    exp.DataType.Type.FLOAT,
    exp.DataType.Type.VARCHAR,
    exp.DataType.Type.TEXT,
    exp.DataType.Type.CHAR,
    exp.DataType.Type.DATE,
    exp.DataType.Type.BOOLEAN,
}


def check_portable(tree: exp.Expression, what: str) -> None:
    """Raise NotPortable when some node of the tree may mean something else on DuckDB."""
    for node in tree.walk():
        if not isinstance(node, _PORTABLE):
            shown = node.sql(dialect="spark")[:60] if not isinstance(node, exp.Func) else type(node).__name__
            name = node.name if isinstance(node, exp.Anonymous) else shown
            raise NotPortable(f"The {what} uses {name!r}, which DuckDB may not compute as Spark does.")
        if isinstance(node, exp.DataType) and node.this not in _PORTABLE_TYPES:
            raise NotPortable(f"The {what} casts to {node.sql(dialect='spark')}, which DuckDB may convert differently.")
        if isinstance(node, exp.Join) and (node.args.get("kind") or "").upper() in ("SEMI", "ANTI"):
            raise NotPortable(f"The {what} uses a {node.args['kind']} join.")


def render(tree: exp.Expression, what: str) -> str:
    """DuckDB SQL for a portable tree (identifiers quoted); NotPortable otherwise."""
    check_portable(tree, what)
    try:
        return zero_over_no_rows(tree).sql(
            dialect=DIALECT, identify=True, comments=False, unsupported_level=ErrorLevel.RAISE
        )
    except SqlglotError as exc:
        raise NotPortable(f"The {what} does not translate to DuckDB SQL: {exc}")


def zero_over_no_rows(tree: exp.Expression) -> exp.Expression:
    """Every COUNT_IF(c) as COUNT(CASE WHEN c THEN 1 END): DuckDB's COUNT_IF over no rows is NULL,
    Spark's (and every database's COUNT) 0."""
    return tree.transform(
        lambda node: (
            exp.Count(this=exp.Case(ifs=[exp.If(this=node.this, true=exp.Literal.number(1))]))
            if isinstance(node, exp.CountIf)
            else node
        )
    )


def filter_sql(text: str, columns: list[str] | None = None) -> str:
    """A batch filter (Spark SQL, checked by sql_safety) as DuckDB SQL; UnsafeSQL or NotPortable."""
    return render(parse_filter(text, columns), "filter")


def select_sql(query: ParsedSelect, view_names: Mapping[str, str]) -> str:
    """A checked custom query with its placeholders bound to the batches' views, as DuckDB SQL."""
    from dq_engine.sql_safety import _placeholder_of

    bound = query.expression.copy()
    for ident in list(bound.find_all(exp.Identifier)):
        placeholder = _placeholder_of(ident.name)
        if placeholder is not None:
            ident.replace(exp.to_identifier(view_names[placeholder], quoted=True))
    return render(bound, "query")


def portable_query(text: object, placeholders: tuple[str, ...], what: str = "query") -> ParsedSelect:
    """A custom query parsed, checked and known to be portable; CheckError (refused) or NotPortable."""
    from dq_engine.sql_safety import parse_select

    if not isinstance(text, str):
        raise CheckError(say(MISSING, what=what))
    try:
        parsed = parse_select(text, placeholders)
    except UnsafeSQL as exc:
        raise CheckError(say(REFUSED, what=what, why=exc))
    check_portable(parsed.expression, what)
    return parsed


def folded_sql(spark_text: str) -> str:
    """A custom statistic folded into the aggregate pass (plan.py gives it as Spark SQL) as DuckDB SQL."""
    try:
        tree = sqlglot.parse_one(spark_text, read="spark")
    except SqlglotError as exc:
        raise NotPortable(f"The folded query does not parse: {exc}")
    return render(tree, "query")


# --- the dialect hooks -----------------------------------------------------------------------------
class DuckDBDialect(Dialect):
    name = DIALECT

    def regex_find(self, text: exp.Expression, pattern: str) -> exp.Expression:
        translated = java_to_re2(pattern)
        if translated is None:
            raise CheckError(say(NEEDS_JAVA_REGEX, pattern=repr(pattern)))
        return exp.Anonymous(this="regexp_matches", expressions=[text, string(translated)])

    def parse_timestamp(self, text: exp.Expression, pattern: str | None) -> exp.Expression:
        if pattern is None:
            guard, parsed = _DEFAULT_TIMESTAMP, exp.TryCast(this=text, to=exp.DataType.build("timestamp"), safe=True)
        else:
            strftime, guard = spark_datetime_pattern(pattern)
            parsed = exp.Anonymous(this="try_strptime", expressions=[text, string(strftime)])
        matches = exp.Anonymous(this="regexp_full_match", expressions=[text, string(guard)])
        return exp.If(this=matches, true=parsed, false=exp.Null())


# Spark's default cast of text to a timestamp, in the forms DuckDB's cast reads the same way:
# yyyy-[m]m-[d]d, optionally with [h]h:[m]m[:[s]s[.fraction]] after a space or a T. Other forms
# Spark also reads (a year alone, a zone suffix) are NULL here (README, "Engines").
_DEFAULT_TIMESTAMP = r"\d{4}-\d{1,2}-\d{1,2}(?:[ T]\d{1,2}:\d{1,2}(?::\d{1,2}(?:\.\d{1,6})?)?)?"

# Spark datetime pattern letters whose fixed-width numeric reading DuckDB's strptime matches.
_FIELDS = {
    "yyyy": ("%Y", r"\d{4}"),
    "MM": ("%m", r"\d{2}"),
    "dd": ("%d", r"\d{2}"),
    "HH": ("%H", r"\d{2}"),
    "mm": ("%M", r"\d{2}"),
    "ss": ("%S", r"\d{2}"),
    "SSSSSS": ("%f", r"\d{6}"),
    "SSS": ("%g", r"\d{3}"),
}
_TOKEN = re.compile(r"'([^']*)'|(yyyy|MM|dd|HH|mm|ss|SSSSSS|SSS)|([A-Za-z])|(.)", re.DOTALL)


def spark_datetime_pattern(pattern: str) -> tuple[str, str]:
    """(DuckDB strptime format, a regex of the text it accepts) for a Spark datetime pattern built
    of yyyy MM dd HH mm ss SSS SSSSSS and literal punctuation; CheckError for anything else."""
    strftime, guard = [], []
    for quoted, field, letter, other in _TOKEN.findall(pattern):
        if letter:
            raise CheckError(say(SPARK_ONLY_FORMAT, pattern=repr(pattern), letter=repr(letter)))
        if field:
            strftime.append(_FIELDS[field][0])
            guard.append(_FIELDS[field][1])
        else:
            literal = quoted if quoted or other == "" else other
            strftime.append(literal.replace("%", "%%"))
            guard.append("".join(c if c.isalnum() and c.isascii() else f"\\x{{{ord(c):X}}}" for c in literal))
    if not strftime:
        raise CheckError(say(EMPTY_FORMAT, pattern=repr(pattern)))
    return "".join(strftime), "".join(guard)
