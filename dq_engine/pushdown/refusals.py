"""What the pushdown engine refuses from the spec alone (selection asks it in the web process,
which has no secrets): a batch the database would draw otherwise, a rule the database would read
otherwise."""

from __future__ import annotations

from dq_engine.pushdown.dialects import NOT_PUSHED
from dq_engine.rowchecks.compile import leaf_checks, zoned_time
from dq_engine.spec import Batch, CheckSpec


def reason_cannot_draw(batch: Batch, name: str) -> str | None:
    """A sampled batch or one limited to its first rows (a preview) is Spark's or DuckDB's: the
    database would draw other rows, and each of the batch's queries its own."""
    label = f"batch {name}" if name else "the batch"
    if batch.sample_fraction is not None and batch.sample_fraction != 1:
        return f"{NOT_PUSHED}: {label} is sampled, which Spark does (the database's sampling differs)."
    if batch.limit is not None:
        return f"{NOT_PUSHED}: {label} is limited to its first {batch.limit} rows, which Spark or DuckDB draw once."
    return None


def like_escape_problem(check: CheckSpec) -> str | None:
    """A row rule's like pattern holding a backslash: Spark's LIKE escape character, which the
    databases read with their own rules (a trailing or unknown escape: an error in Spark, a literal
    in the database); or a time with a zone offset, which Spark converts to its time zone. Such a
    rule set is Spark's (with this reason, naming the rule)."""
    if check.metric.kind != "row_rules":
        return None
    for _top, rule in leaf_checks(check.metric.get("rules")):
        pattern = (rule.get("args") or [None])[0]
        if zoned := zoned_time(rule):
            return (
                f"rule {rule.get('name')!r}: the time {zoned!r} has a zone offset, which Spark converts to its "
                "time zone and the database's cast reads otherwise; Spark runs it"
            )
        if rule.get("fn") == "like" and isinstance(pattern, str) and "\\" in pattern:
            return (
                f"rule {rule.get('name')!r}: the like pattern {pattern!r} holds a backslash, Spark's LIKE escape "
                "character, which the database reads otherwise; Spark runs it"
            )
    return None
