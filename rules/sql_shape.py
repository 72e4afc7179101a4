"""What a custom statistic query will do at run time, told from its SQLGlot tree at save time.

- `unknown_columns`: the columns it names that the live catalog's tables do not have (names its
  own aliases and CTEs give are known too). Spark compares names case-insensitively, so do we.
- `several_rows`: why it returns more than one row, judged from its shape alone (no data read):
  an aggregate without GROUP BY returns one row; a GROUP BY returns one per group; a column
  outside an aggregate one per table row; a UNION one per branch. `LIMIT 1` and a query without
  FROM return one row. A shape it cannot judge is left to the run.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlglot import exp

ONE_NUMBER = "a statistic is one number: aggregate without GROUP BY, e.g. SELECT count(*) FROM ${src_table} WHERE …"


def unknown_columns(tree: exp.Expression, catalog_columns: Iterable[str]) -> list[str]:
    """The column names the query uses that neither the tables nor the query itself define."""
    known = {name.lower() for name in catalog_columns}
    known |= {alias.alias.lower() for alias in tree.find_all(exp.Alias) if alias.alias}
    for alias in tree.find_all(exp.TableAlias):  # a CTE's or subquery's column list: WITH t(a, b)
        known |= {column.name.lower() for column in alias.args.get("columns") or []}
    unknown: list[str] = []
    for column in tree.find_all(exp.Column):
        name = column.name
        if isinstance(column.this, exp.Star) or not name or name.lower() in known or name in unknown:
            continue
        unknown.append(name)
    return unknown


def several_rows(tree: exp.Expression) -> str | None:
    """Why the query returns several rows, in words; None when it returns one (or the shape
    cannot tell)."""
    if isinstance(tree, exp.Subquery):
        return several_rows(tree.this)
    if isinstance(tree, exp.Union):
        return f"it is a UNION, which returns a row for each of its SELECTs; {ONE_NUMBER}"
    if isinstance(tree, (exp.Intersect, exp.Except)):
        return several_rows(tree.this)  # at most the rows of its first SELECT
    if not isinstance(tree, exp.Select):
        return None
    limit = tree.args.get("limit")
    if limit is not None and _is_one(limit.expression):
        return None
    group = tree.args.get("group")
    if group is not None:
        by = ", ".join(e.sql(dialect="spark") for e in group.expressions) or "its groups"
        return f"it groups by {by}, which returns one row per group; {ONE_NUMBER}"
    if tree.args.get("from_", tree.args.get("from")) is None:  # the key's name differs between SQLGlot releases
        return None
    for projection in tree.expressions:
        if not _aggregates(projection):
            shown = projection.sql(dialect="spark")
            return f"it selects {shown} outside an aggregate, which returns one row per table row; {ONE_NUMBER}"
    return None


def _aggregates(projection: exp.Expression) -> bool:
    """Whether the projection is one value for the whole table: every column it reads is inside
    an aggregate function (not a window) or a scalar subquery."""
    value = projection.this if isinstance(projection, exp.Alias) else projection
    if isinstance(value, exp.Subquery):
        return True
    if value.find(exp.Window) is not None:
        return False
    for column in value.find_all(exp.Column):
        inside = column.find_ancestor(exp.AggFunc, exp.Subquery)
        if inside is None:
            return False
    return value.find(exp.AggFunc) is not None or not any(True for _ in value.find_all(exp.Column))


def _is_one(value: exp.Expression | None) -> bool:
    return isinstance(value, exp.Literal) and not value.is_string and value.this == "1"
