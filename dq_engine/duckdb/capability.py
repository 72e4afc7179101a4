"""What the DuckDB engine answers as Spark does, decided from the spec alone (no DuckDB here):
used by `auto` selection (dq_engine/selection.py) in the web app and the worker, before any data
is read.

A check DuckDB could get wrong is Spark's, with the reason: a regular expression RE2 cannot run
with Java's answers (regex.py), a datetime format only Spark reads, custom SQL that is not
portable (sql.py). SQL that sql_safety refuses is not a reason: every engine refuses it alike.
"""

from __future__ import annotations

from dq_engine.duckdb.regex import java_to_re2
from dq_engine.duckdb.sql import NotPortable, check_portable, portable_query, spark_datetime_pattern
from dq_engine.errors import CheckError
from dq_engine.spec import Batch, CheckSpec
from dq_engine.sql_safety import UnsafeSQL, parse_filter
from dq_engine.vocabulary.metrics import spark_only_reason


def reason_cannot_check(check: CheckSpec) -> str | None:
    metric = check.metric
    if reason := spark_only_reason(metric.kind):
        return f"check {check.name!r}: {reason}"
    if metric.kind == "conditional_count" and metric.predicate == "regexp_mismatch":
        pattern = metric.get("pattern")
        if isinstance(pattern, str) and pattern and java_to_re2(pattern) is None:
            return (
                f"check {check.name!r}: the regular expression {pattern!r} needs Java's regex engine "
                "(DuckDB's RE2 lacks lookaround, backreferences, possessive quantifiers, \\p{..} classes, "
                "non-ASCII literals and flags, or answers them differently)"
            )
    if metric.kind == "conditional_count" and metric.predicate == "time_between":
        pattern = metric.get("format")
        if isinstance(pattern, str) and pattern:
            try:
                spark_datetime_pattern(pattern)
            except CheckError:
                return f"check {check.name!r}: the datetime format {pattern!r} is read by Spark only"
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
