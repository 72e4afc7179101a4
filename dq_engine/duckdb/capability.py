"""What the DuckDB engine answers as Spark does, decided from the spec alone (no DuckDB here):
used by `auto` selection (dq_engine/selection.py) in the web app and the worker, before any data
is read.

A check DuckDB could get wrong is Spark's, with the reason: a regular expression RE2 cannot run
with Java's answers (regex.py), a datetime format only Spark reads, custom SQL that is not
portable (sql.py); in a row rule set (nested chains too), a `re` rule RE2 cannot run as Java and a
`like` pattern holding a backslash (Spark's LIKE escapes with it, DuckDB's LIKE has no escape) and
a time with a zone offset (Spark converts it, DuckDB's cast drops it).
SQL that sql_safety refuses is not a reason: every engine refuses it alike.
"""

from __future__ import annotations

from dq_engine.duckdb.regex import java_to_re2
from dq_engine.duckdb.sql import NotPortable, check_portable, portable_query, spark_datetime_pattern
from dq_engine.errors import CheckError
from dq_engine.rowchecks.compile import leaf_checks, zoned_time
from dq_engine.spec import Batch, CheckSpec
from dq_engine.sql_safety import UnsafeSQL, parse_filter
from dq_engine.words import fragment, gettext_noop, say

# The reasons (dq_engine/words.py: the platform translates them where they fill a refusal's `problem`).
JAVA_ONLY_REGEX = fragment(
    gettext_noop(
        "check %(check)s: the regular expression %(pattern)s needs Java's regex engine (DuckDB's RE2 lacks "
        "lookaround, backreferences, possessive quantifiers, \\p{..} classes, non-ASCII literals and flags, or "
        "answers them differently)"
    ),
    "problem",
)
SPARK_ONLY_FORMAT = fragment(
    gettext_noop("check %(check)s: the datetime format %(pattern)s is read by Spark only"), "problem"
)


def reason_cannot_check(check: CheckSpec) -> str | None:
    metric = check.metric
    if metric.kind == "row_rules":
        return _rules_reason(check)
    if metric.kind == "conditional_count" and metric.predicate == "regexp_mismatch":
        pattern = metric.get("pattern")
        if isinstance(pattern, str) and pattern and java_to_re2(pattern) is None:
            return say(JAVA_ONLY_REGEX, check=repr(check.name), pattern=repr(pattern))
    if metric.kind == "conditional_count" and metric.predicate == "time_between":
        pattern = metric.get("format")
        if isinstance(pattern, str) and pattern:
            try:
                spark_datetime_pattern(pattern)
            except CheckError:
                return say(SPARK_ONLY_FORMAT, check=repr(check.name), pattern=repr(pattern))
    if metric.kind in ("custom_sql", "value_comparison"):
        places = ("src_table",) if metric.kind == "custom_sql" else ("src_table", "target_table")
        for field in ("sql", "comparison_sql") if metric.kind == "value_comparison" else ("sql",):
            try:
                portable_query(metric.get(field), places)
            except NotPortable as exc:
                return f"check {check.name!r}: {_lower_first(str(exc))}"
            except CheckError:
                pass  # refused on every engine: the engine reports it as the check's error
    return None


def _rules_reason(check: CheckSpec) -> str | None:
    """The first rule of the set (nested chains walked) DuckDB would answer otherwise than Spark."""
    for top, rule in leaf_checks(check.metric.get("rules")):
        args = rule.get("args") or []
        pattern = args[0] if args else None
        where = f"{check.name!r}, rule {rule.get('name')!r}" + (f" of {top!r}" if top != rule.get("name") else "")
        if zoned := zoned_time(rule):
            return f"check {where}: the time {zoned!r} has a zone offset, which Spark converts and DuckDB drops"
        if not isinstance(pattern, str):
            continue
        if rule.get("fn") == "re" and pattern and java_to_re2(pattern) is None:
            return say(JAVA_ONLY_REGEX, check=where, pattern=repr(pattern))
        if rule.get("fn") == "like" and "\\" in pattern:
            return (
                f"check {where}: the like pattern {pattern!r} holds a backslash, Spark's LIKE escape character "
                "(DuckDB's LIKE has none)"
            )
    return None


def reason_cannot_filter(batch: Batch) -> str | None:
    if not batch.filter:
        return None
    try:
        check_portable(parse_filter(batch.filter), "filter")
    except UnsafeSQL:
        return None  # refused on every engine
    except NotPortable as exc:
        return _lower_first(str(exc))
    return None


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]
