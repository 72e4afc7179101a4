"""The pushdown engine's statements, built as SQLGlot trees and rendered in the source's dialect.

Nothing here pastes text: table and column names are quoted identifiers from the catalog, values
are literal nodes, the filter and custom SQL are the trees sql_safety parsed and checked (Spark
SQL), re-rendered for the database. Functions SQLGlot does not know (`Anonymous` nodes: it would
pass their names through untranslated) are refused for pushdown, as are regular expressions the
database would read otherwise than Java (dialects.regex_problem).

Statements per batch (plan.py decides which):
- ONE aggregate query: `SELECT COUNT(*), COUNT(CASE WHEN <predicate> THEN 1 END), AVG(...)...`;
- per uniqueness key: `SELECT COUNT(*), SUM(n) FROM (SELECT k, COUNT(*) n ... GROUP BY k HAVING COUNT(*) > 1)`;
- per accuracy mapping (same database): `SELECT COUNT(*) FROM src s WHERE NOT EXISTS (SELECT 1 FROM tgt t WHERE ...)`;
- per custom SQL: the user's query with `${src_table}` bound to a CTE over the filtered table;
- error rows: the rows a condition selects, with a LIMIT (row rules': with their marks);
- row rules' cleansed output: every row with its marks, streamed.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlglot import exp

from dq_engine.errors import CheckError
from dq_engine.pushdown.catalog import Table
from dq_engine.pushdown.connection import POSTGRES
from dq_engine.pushdown.dialects import NOT_PUSHED, regex_problem
from dq_engine.sql_safety import ParsedSelect, parse_filter
from dq_engine.vocabulary.expressions import is_not_null

SOURCE_ALIAS, TARGET_ALIAS = "dq_s", "dq_t"


def render(tree: exp.Expression, dialect: str) -> str:
    return tree.sql(dialect=dialect, identify=True, comments=False)


def refuse_untranslatable(tree: exp.Expression, dialect: str, what: str) -> None:
    """CheckError (a pushdown refusal) for what the database would not read as Spark does."""
    for node in tree.walk():
        if isinstance(node, exp.Anonymous):
            raise CheckError(
                f"{NOT_PUSHED}: the {what} calls {node.name}(), a function with no known translation "
                "into the database's SQL; Spark runs it."
            )
        if isinstance(node, exp.RegexpLike | exp.RegexpILike | exp.RegexpExtract | exp.RegexpReplace):
            pattern = (
                node.expression if isinstance(node, exp.RegexpLike | exp.RegexpILike) else node.args.get("expression")
            )
            if not (isinstance(pattern, exp.Literal) and pattern.is_string):
                raise CheckError(
                    f"{NOT_PUSHED}: the {what} uses a regular expression that is not a literal; Spark runs it."
                )
            problem = regex_problem(pattern.this, dialect)
            if problem:
                raise CheckError(problem)


def batch_filter(text: str | None, table: Table, dialect: str) -> exp.Expression | None:
    """The batch's filter as a tree over the table's columns (catalog spelling), or None.
    Raises UnsafeSQL (refused) or CheckError (cannot be pushed down)."""
    if not text:
        return None
    tree = parse_filter(text, [c.name for c in table.columns])
    for column in list(tree.find_all(exp.Column)):
        if isinstance(column.this, exp.Star):
            continue
        resolved = table.column(column.parts[0].name)
        column.replace(exp.column(resolved.name, quoted=True))
    refuse_untranslatable(tree, dialect, "filter")
    return tree


def rows_of(table: Table, condition: exp.Expression | None) -> exp.Select:
    """SELECT * FROM table [WHERE condition]."""
    select = exp.select("*").from_(table.relation)
    return select.where(exp.Paren(this=condition)) if condition is not None else select


def marked_rows(
    table: Table, condition: exp.Expression | None, marks: tuple[tuple[str, exp.Expression], ...]
) -> exp.Select:
    """SELECT *, <mark> AS <name>, ... FROM table [WHERE condition]: the rows with the marks
    (row rules' `_dq`, `_dq_failed_checks`) beside their columns, as Spark's `select("*", *marks)`."""
    select = rows_of(table, condition)
    for name, expression in marks:
        select = select.select(exp.alias_(expression, name, quoted=True), append=True)
    return select


_ORDERINGS = (exp.GT, exp.GTE, exp.LT, exp.LTE)


def exact_order(tree: exp.Expression, dialect: str) -> exp.Expression:
    """Order comparisons of a text column with a text value (row rules' gt/lt/ge/le) in code-point
    order, as Spark compares strings: PostgreSQL compares by the column's collation (en_US puts
    'a' before 'B'), so the column is compared `COLLATE "C"` (bytewise, which in UTF-8 is code-point
    order). MariaDB's binary collations already order by code point; `_ci` ones are refused."""
    if dialect != POSTGRES:
        return tree

    def exact(node: exp.Expression) -> exp.Expression:
        if (
            isinstance(node, _ORDERINGS)
            and isinstance(node.this, exp.Column)
            and isinstance(node.expression, exp.Literal)
            and node.expression.is_string
        ):
            collated = exp.Collate(this=node.this.copy(), expression=exp.Identifier(this="C", quoted=True))
            return type(node)(this=collated, expression=node.expression.copy())
        return node

    return tree.transform(exact)


def both(*conditions: exp.Expression | None) -> exp.Expression | None:
    kept = [exp.Paren(this=c) for c in conditions if c is not None]
    if not kept:
        return None
    return exp.and_(*kept) if len(kept) > 1 else kept[0]


def count_where(condition: exp.Expression) -> exp.Expression:
    """COUNT(CASE WHEN condition THEN 1 END): 0 over no rows, in every dialect."""
    return exp.Count(this=exp.Case(ifs=[exp.If(this=condition, true=exp.Literal.number(1))]))


def counts_where(tree: exp.Expression) -> exp.Expression:
    """Every COUNT_IF(c) of an aggregate (a schema contract's NULL counts) as COUNT(CASE WHEN c THEN
    1 END): MySQL/MariaDB have no COUNT_IF, and SQLGlot would pass it through by name."""
    return tree.transform(lambda node: count_where(node.this) if isinstance(node, exp.CountIf) else node)


def aggregate_query(table: Table, filter_: exp.Expression | None, aggregates: Iterable[exp.Expression]) -> exp.Select:
    items = [exp.alias_(exp.Count(this=exp.Star()), "dq_rows", quoted=True)]
    items += [exp.alias_(a, f"dq_m{i}", quoted=True) for i, a in enumerate(aggregates)]
    select = exp.select(*items).from_(table.relation)
    return select.where(exp.Paren(this=filter_)) if filter_ is not None else select


def duplicated_keys(table: Table, filter_: exp.Expression | None, column: str) -> exp.Select:
    """The key values occurring more than once among the batch's rows, with their counts."""
    key = exp.column(column, quoted=True)
    return (
        exp.select(exp.alias_(key, "dq_key", quoted=True), exp.alias_(exp.Count(this=exp.Star()), "dq_n", quoted=True))
        .from_(table.relation)
        .where(both(filter_, is_not_null(key)))
        .group_by(key)
        .having(exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(1)))
    )


def duplicates_query(table: Table, filter_: exp.Expression | None, column: str) -> exp.Select:
    inner = duplicated_keys(table, filter_, column).subquery("dq_d")
    return exp.select(exp.Count(this=exp.Star()), exp.Sum(this=exp.column("dq_n", quoted=True))).from_(inner)


def duplicate_rows(table: Table, filter_: exp.Expression | None, column: str) -> exp.Select:
    key = exp.column(column, quoted=True)
    keys = exp.select(key).from_(table.relation).where(both(filter_, is_not_null(key))).group_by(key)
    keys = keys.having(exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(1)))
    # A derived table around the IN list: MySQL cannot read the table it filters in its subquery otherwise.
    listed = exp.select(exp.column(column, quoted=True)).from_(keys.subquery("dq_k"))
    return rows_of(table, both(filter_, key.isin(listed)))


def unmatched_rows(
    source: Table,
    source_filter: exp.Expression | None,
    target: Table,
    target_filter: exp.Expression | None,
    condition: exp.Expression,
) -> exp.Select:
    """Source rows with no target row meeting `condition` (unqualified columns are the source's,
    those qualified with TARGET_ALIAS the target's)."""

    def qualify(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and not node.table:
            return exp.column(node.name, table=SOURCE_ALIAS, quoted=True)
        return node

    correlated = condition.transform(qualify)
    target_rows = (
        exp.alias_(exp.Subquery(this=rows_of(target, target_filter)), TARGET_ALIAS, quoted=True)
        if target_filter is not None
        else exp.alias_(target.relation, TARGET_ALIAS, quoted=True)
    )
    exists = exp.Exists(this=exp.select(exp.Literal.number(1)).from_(target_rows).where(correlated))
    source_rows = exp.alias_(source.relation, SOURCE_ALIAS, quoted=True)
    select = exp.select(exp.column(exp.Star(), table=SOURCE_ALIAS)).from_(source_rows)
    return select.where(both(_qualified(source_filter), exp.Not(this=exists)))


def _qualified(condition: exp.Expression | None) -> exp.Expression | None:
    if condition is None:
        return None
    return condition.transform(
        lambda n: (
            exp.column(n.name, table=SOURCE_ALIAS, quoted=True) if isinstance(n, exp.Column) and not n.table else n
        )
    )


def count_of(select: exp.Select) -> exp.Select:
    return exp.select(exp.Count(this=exp.Star())).from_(select.subquery("dq_c"))


def bound_query(
    parsed: ParsedSelect, relations: dict[str, tuple[Table, exp.Expression | None]], dialect: str, what: str
) -> exp.Expression:
    """The user's query with each placeholder bound to a CTE over its (filtered) table."""
    names = {placeholder: f"dq_{placeholder}" for placeholder in parsed.tables_used}
    tree = parsed.bound(names)
    refuse_untranslatable(tree, dialect, what)
    if not isinstance(tree, exp.Query):
        raise CheckError(f"The {what} is not a query the database can run.")
    for placeholder in sorted(parsed.tables_used):
        table, filter_ = relations[placeholder]
        tree = tree.with_(exp.to_identifier(names[placeholder], quoted=True), as_=rows_of(table, filter_), append=True)
    ctes = (tree.args.get("with_") or tree.args.get("with")).expressions
    ours = [cte for cte in ctes if cte.alias in names.values()]
    ctes[:] = ours + [cte for cte in ctes if cte.alias not in names.values()]  # the user's CTEs read ours
    return tree
