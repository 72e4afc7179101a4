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
from typing import Any

from sqlglot import exp

from dq_engine.databases import Column, Table, kind_named
from dq_engine.errors import CheckError
from dq_engine.pushdown.dialects import NOT_PUSHED, regex_problem
from dq_engine.sql_safety import ParsedSelect, parse_filter
from dq_engine.vocabulary import ColumnRef
from dq_engine.vocabulary.expressions import is_not_null

SOURCE_ALIAS, TARGET_ALIAS = "dq_s", "dq_t"


def render(tree: exp.Expression, dialect: str) -> str:
    return tree.sql(dialect=dialect, identify=True, comments=False)


def refuse_untranslatable(tree: exp.Expression, dialect: str, what: str) -> None:
    """CheckError (a pushdown refusal) for what the database would not read as Spark does."""
    kind = kind_named(dialect)
    for node in tree.walk():
        if problem := kind.function_problem(node):
            raise CheckError(problem)
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


# What a value means to these metrics depends on its type: on a column Spark's JDBC reader types
# otherwise (a MariaDB tinyint(1) is a boolean to Spark), they answer as Spark does, an error.
_TYPED_BY_SPARK = {("aggregate", None), ("conditional_count", "outside_range")}


def as_spark_reads(column: Column, metric: Any) -> ColumnRef:
    """The column a single-column metric is built on: as the database computes with it, but typed
    as Spark reads it where the type decides the answer (an average of a tinyint(1), which Spark
    reads as booleans, ends `error` saying so on every engine)."""
    typed = (metric.kind, metric.predicate if metric.kind == "conditional_count" else None) in _TYPED_BY_SPARK
    if typed and column.spark_reads_otherwise:
        spark = column.spark_ref()
        return ColumnRef(
            name=column.name, category=spark.category, type=spark.type, type_name=spark.type.sql("spark").lower()
        )
    return column.ref()


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
        column.replace(resolved.sql)  # compared as Spark compares (databases: `exact_text`)
    refuse_untranslatable(tree, dialect, "filter")
    return tree


def rows_of(table: Table, condition: exp.Expression | None) -> exp.Select:
    """SELECT * FROM table [WHERE condition]."""
    select = exp.select("*").from_(table.relation)
    return select.where(exp.Paren(this=condition)) if condition is not None else select


def exact_rows(table: Table, condition: exp.Expression | None) -> exp.Select:
    """The rows with every column as the database must read it to compare as Spark does (a user's
    query over them groups, joins and compares exactly); `SELECT *` when no column needs it."""
    if all(c.sql == exp.column(c.name, quoted=True) for c in table.columns):
        return rows_of(table, condition)
    select = exp.select(*(exp.alias_(c.sql, c.name, quoted=True) for c in table.columns)).from_(table.relation)
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


def exact_order(tree: exp.Expression, dialect: str) -> exp.Expression:
    """Order comparisons of a text column with a text value (row rules' gt/lt/ge/le) in code-point
    order, as Spark compares strings (the database kind's `exact_order`: PostgreSQL's `COLLATE "C"`;
    MariaDB's exact columns already order by code point)."""
    return kind_named(dialect).exact_order(tree)


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
    items += [exp.alias_(_as_spark(a, table), f"dq_m{i}", quoted=True) for i, a in enumerate(aggregates)]
    select = exp.select(*items).from_(table.relation)
    return select.where(exp.Paren(this=filter_)) if filter_ is not None else select


def _as_spark(aggregate: exp.Expression, table: Table) -> exp.Expression:
    """Each aggregate of a column computed as the database must to answer as Spark (MariaDB: AVG and
    STDDEV of exact numbers over DOUBLE)."""
    kind = table.kind
    if kind is None:
        return aggregate

    def spark(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.AggFunc) and isinstance(node.this, exp.Column):
            try:
                column = table.column(node.this.name)
            except CheckError:
                return node
            return kind.numeric_aggregate(node, column)
        return node

    return aggregate.transform(spark)


def _key(table: Table, column: str) -> exp.Expression:
    """A key column as grouped and matched exactly ('A' and 'a', 'x' and 'x ' distinct keys)."""
    return table.column(column).sql


def _key_rows(table: Table, filter_: exp.Expression | None, column: str) -> exp.Expression | None:
    """The batch's rows with a key: where the key is read exactly (a MariaDB `_ci` column read
    COLLATE ..._nopad_bin), only those whose value is duplicated under the column's own collation
    too. Values equal exactly are equal under any collation, so no exact duplicate is lost, and the
    database finds the candidates with the column's index: grouping the exact form of every row
    cannot use it (a temporary table: 3 s, against 0.1 s this way, over 200,000 near-unique keys)."""
    plain = exp.column(column, quoted=True)
    key = _key(table, column)
    if key == plain:
        return both(filter_, is_not_null(key))
    candidates = (
        exp.select(plain)
        .from_(table.relation)
        .where(both(filter_, is_not_null(plain)))
        .group_by(plain)
        .having(exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(1)))
    )
    # Not wrapped in a derived table: MariaDB then materializes the candidates once (a semi-join),
    # where a derived table is probed row by row.
    return both(filter_, is_not_null(key), plain.isin(candidates))


def duplicated_keys(table: Table, filter_: exp.Expression | None, column: str) -> exp.Select:
    """The key values occurring more than once among the batch's rows, with their counts."""
    key = _key(table, column)
    return (
        exp.select(exp.alias_(key, "dq_key", quoted=True), exp.alias_(exp.Count(this=exp.Star()), "dq_n", quoted=True))
        .from_(table.relation)
        .where(_key_rows(table, filter_, column))
        .group_by(key)
        .having(exp.GT(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(1)))
    )


def duplicates_query(table: Table, filter_: exp.Expression | None, column: str) -> exp.Select:
    inner = duplicated_keys(table, filter_, column).subquery("dq_d")
    return exp.select(exp.Count(this=exp.Star()), exp.Sum(this=exp.column("dq_n", quoted=True))).from_(inner)


def duplicate_rows(table: Table, filter_: exp.Expression | None, column: str) -> exp.Select:
    key = _key(table, column)
    keys = (
        exp.select(exp.alias_(key, column, quoted=True))
        .from_(table.relation)
        .where(_key_rows(table, filter_, column))
        .group_by(key)
    )
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

    def exact_target(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Column) and node.table == TARGET_ALIAS and not isinstance(node.parent, exp.Collate):
            exact = target.column(node.name).sql
            return exact.transform(
                lambda n: exp.column(n.name, table=TARGET_ALIAS, quoted=True) if isinstance(n, exp.Column) else n
            )
        return node

    correlated = condition.transform(exact_target).transform(qualify)
    target_rows = (
        exp.alias_(exp.Subquery(this=rows_of(target, target_filter)), TARGET_ALIAS, quoted=True)
        if target_filter is not None
        else exp.alias_(target.relation, TARGET_ALIAS, quoted=True)
    )
    exists = exp.Exists(this=exp.select(exp.Literal.number(1)).from_(target_rows).where(correlated))
    # A source needing exact columns is read through them: MariaDB's subquery cache keys a correlated
    # subquery's result by the outer column in the column's own collation, so under a `_ci` one
    # 'PAID' would reuse the answer computed for 'paid'; the derived column's collation is exact.
    exact_source = exact_rows(source, None)
    source_rows = exp.alias_(
        source.relation if exact_source.find(exp.Star) else exact_source.subquery(), SOURCE_ALIAS, quoted=True
    )
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
        tree = _as_spark(tree, table)
        tree = tree.with_(
            exp.to_identifier(names[placeholder], quoted=True), as_=exact_rows(table, filter_), append=True
        )
    ctes = (tree.args.get("with_") or tree.args.get("with")).expressions
    ours = [cte for cte in ctes if cte.alias in names.values()]
    ctes[:] = ours + [cte for cte in ctes if cte.alias not in names.values()]  # the user's CTEs read ours
    return tree
