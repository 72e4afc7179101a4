"""PostgreSQL and MySQL/MariaDB as a backend of the one way of running checks (dq_engine/passes/):
a batch is its table (its catalog read by dq_engine/databases/) and its filter; a check's share of
the combined aggregate, its key group, its join and its query are SQL trees rendered by SQLGlot
for the database (render.py), each run in a read-only transaction under a statement timeout
(dq_engine/databases/). Error rows are fetched with the sink's LIMIT and written as Parquet, the marked
batch streamed in chunks (error_rows.py). What the database would answer otherwise
than Spark is refused per check (`refusal`), with the reason.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from dq_engine import plan as planning
from dq_engine.databases import Address, Table, address, connect, describe_table, stream
from dq_engine.databases import Connection as Database
from dq_engine.errors import BatchError, CheckError, describe
from dq_engine.passes.backend import Found, Metric, Unit, run_in_order
from dq_engine.plan import MappingKey
from dq_engine.pushdown import render
from dq_engine.pushdown.dialects import DIALECTS, NOT_PUSHED, fold_safe_casts
from dq_engine.pushdown.error_rows import write_error_rows, write_marked_batch
from dq_engine.pushdown.refusals import like_escape_problem, reason_cannot_draw
from dq_engine.query_checks import one_value
from dq_engine.rowchecks.compile import leaf_checks
from dq_engine.spec import CheckSpec, JdbcSource, JobSpec
from dq_engine.sql_safety import UnsafeSQL, parse_select
from dq_engine.vocabulary import METRIC_KINDS, mapping_condition, row_metric
from dq_engine.vocabulary.metrics import JOIN, KEY_GROUP_BY, QUERY

_DRIVERS = ("psycopg", "pymysql")


class PushdownBackend:
    """One run's connections and tables (connections closed by `close`)."""

    key = "pushdown"
    folds_sql = False  # a folded custom SQL statistic is Spark SQL: it runs as written, rendered

    def __init__(self, spec: JobSpec, secrets: Mapping[str, str], timeout: int):
        self.spec, self.secrets, self.timeout = spec, secrets, timeout
        self.errors: dict[str, str] = {}
        self.databases: dict[Address, Database] = {}
        self.tables: dict[str, Table] = {}
        self.filters: dict[str, exp.Expression | None] = {}
        self.used_secrets = [
            secrets[s.password_secret]
            for s in spec.sources.values()
            if isinstance(s, JdbcSource) and s.password_secret and secrets.get(s.password_secret)
        ]

    def __enter__(self) -> PushdownBackend:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- batches ------------------------------------------------------------------------------
    def source(self, batch: str) -> JdbcSource:
        return self.spec.sources[self.spec.batches[batch].source]  # type: ignore[return-value]

    def db(self, batch: str) -> Database:
        source = self.source(batch)
        where = address(source)
        if where not in self.databases:
            self.databases[where] = connect(source, self.secrets, self.timeout)
        return self.databases[where]

    def dialect(self, batch: str) -> str:
        return self.db(batch).where.dialect

    def open(self, name: str) -> None:
        """Connect, read the table's catalog, parse the filter. Raises BatchError / CheckError."""
        if name in self.tables:
            return
        if name in self.errors:
            raise BatchError(self.errors[name])
        batch = self.spec.batches[name]
        source = self.source(name)
        try:
            refused = reason_cannot_draw(batch, name)
            if refused:
                raise CheckError(refused)
            db = self.db(name)
            try:
                table = describe_table(db, source.table)
            except BatchError:
                raise
            except Exception as exc:  # noqa: BLE001 - the catalog query failed
                raise BatchError(f"Batch {name}: the catalog of {source.table} could not be read: {db.say(exc)}")
            try:
                self.filters[name] = render.batch_filter(batch.filter, table, db.where.dialect)
            except UnsafeSQL as exc:
                raise BatchError(f"The filter of batch {name} was refused: {exc}")
            self.tables[name] = table
        except (BatchError, CheckError) as exc:
            self.errors[name] = describe(exc, self.used_secrets)
            raise

    # --- what cannot be pushed down -----------------------------------------------------------
    def refusal(self, check: CheckSpec) -> None:
        """CheckError when the check cannot be pushed down (the reason); builds it, runs nothing."""
        kind = METRIC_KINDS[check.metric.kind]
        if reason := like_escape_problem(check):
            raise CheckError(f"{NOT_PUSHED}: {reason}.")
        # Selection asks about one batch at a time; a check across two reads both tables' catalogs.
        self.open(check.batch)
        if check.target_batch is not None and check.target_batch != check.batch:
            self.open(check.target_batch)
            if address(self.source(check.batch)) != address(self.source(check.target_batch)):
                raise CheckError(
                    f"{NOT_PUSHED}: the check reads two datasources (different databases or users); Spark joins them."
                )
        if kind.row_level and check.metric.kind != "custom_sql":
            self.row_metric(check)
        elif kind.computed_by == KEY_GROUP_BY:
            self.key_column(check.batch, check)
        elif kind.computed_by == JOIN:
            self.join_condition(check)
        elif kind.computed_by == QUERY:
            for field, what in (("sql", "query"), ("comparison_sql", "comparison query")):
                if check.metric.kind == "custom_sql" and field == "comparison_sql":
                    continue
                self.query_tree(check, check.metric.get(field), what)

    def row_metric(self, check: CheckSpec) -> Metric:
        dialect, table = self.dialect(check.batch), self.tables[check.batch]
        if check.metric.kind == "schema_contract":  # types as Spark's JDBC reader gives them
            column, columns = None, {c.name: c.spark_ref(dialect) for c in table.columns}
        elif METRIC_KINDS[check.metric.kind].reads_columns:
            self._rules_compare_exactly(check)
            column, columns = None, {c.name: c.ref(dialect) for c in table.columns}
        else:
            found = table.column(check.metric.get("column"))
            column, columns = render.as_spark_reads(found, check.metric), None
        built = row_metric(check.metric.kind, column, check.metric.fields, DIALECTS[dialect](), columns)
        marks = tuple((name, render.exact_order(fold_safe_casts(sql), dialect)) for name, sql in built.marks)
        if built.predicate is None:
            return Metric(render.counts_where(fold_safe_casts(built.aggregate)), None, marks, built.findings)
        predicate = render.exact_order(fold_safe_casts(built.predicate), dialect)
        return Metric(render.count_where(predicate), predicate, marks, built.findings)

    def _rules_compare_exactly(self, check: CheckSpec) -> None:
        """A value rule on a column Spark reads as another type (a tinyint(1) is a boolean to Spark)
        is refused (the rule's fields resolved as compile.py resolves them). String columns compare
        exactly whatever their collation (the database kind's `exact_text`)."""
        table = self.tables[check.batch]
        for _top, rule in leaf_checks(check.metric.get("rules")):
            for field in rule.get("fields") or []:
                try:
                    column = table.column(field)
                except CheckError:
                    continue  # compile_checks reports the unknown column, naming the check
                if column.spark_reads_otherwise and rule.get("fn") not in ("notNull", "notNullIfSet"):
                    spark_type = column.spark_ref(self.dialect(check.batch)).category
                    raise CheckError(
                        f"{NOT_PUSHED}: rule {rule.get('name')!r}: Spark reads column {column.name} "
                        f"({column.column_type or column.sql_type}) as {spark_type}; Spark runs this check."
                    )

    def key_column(self, name: str, check: CheckSpec) -> str:
        return self.tables[check.batch].column(check.metric.get("column")).name

    def join_condition(self, check: CheckSpec) -> exp.Expression:
        source, target = self.tables[check.batch], self.tables[check.target_batch]
        conditions = []
        for source_name, operator, target_name in planning.mapping_key(check):
            try:
                left = source.column(source_name)
            except CheckError as exc:
                raise CheckError(f"Mapping source column: {exc}")
            try:
                right = target.column(target_name)
            except CheckError as exc:
                raise CheckError(f"Mapping target column: {exc}")
            dialect = self.dialect(check.batch)
            target_sql = exp.column(right.name, table=render.TARGET_ALIAS, quoted=True)
            conditions.append(mapping_condition(left.ref(dialect), operator, right.ref(dialect), target_sql))
        return exp.and_(*conditions) if len(conditions) > 1 else conditions[0]

    def query_tree(self, check: CheckSpec, text: Any, what: str) -> exp.Expression:
        if not isinstance(text, str):
            raise CheckError(f"The {what} is missing.")
        places = ("src_table",) if check.metric.kind == "custom_sql" else ("src_table", "target_table")
        try:
            parsed = parse_select(text, places)
        except UnsafeSQL as exc:
            raise CheckError(f"The {what} was refused: {exc}")
        batches = {"src_table": check.batch, "target_table": check.target_batch}
        relations = {p: (self.tables[batches[p]], self.filters[batches[p]]) for p in parsed.tables_used}
        # COUNT_IF as COUNT(CASE ...): 0 over no rows as on Spark, and MySQL/MariaDB have no COUNT_IF.
        return render.counts_where(render.bound_query(parsed, relations, self.dialect(check.batch), what))

    # --- the backend's share of the passes ---------------------------------------------------
    def cached(self, name: str) -> bool:
        return False

    def metric(self, name: str, check: CheckSpec, folded: str | None) -> Metric:
        return self.row_metric(check)

    def bind(self, name: str, metrics: Sequence[Metric]) -> None:
        return None  # the database binds when it runs; a failing combined query is isolated then

    def _value(self, batch: str, query: exp.Expression) -> list[tuple]:
        db = self.db(batch)
        return db.rows(render.render(query, db.where.dialect))

    def aggregate(self, name: str, metrics: Sequence[Metric]) -> Sequence[Any]:
        query = render.aggregate_query(self.tables[name], self.filters[name], [m.aggregate for m in metrics])
        return self._value(name, query)[0]

    def offending_rows(self, name: str, metric: Metric) -> _Rows:
        where = render.both(self.filters[name], metric.predicate)
        return _Rows(name, render.marked_rows(self.tables[name], where, metric.marks))

    def marked_rows(self, name: str, metric: Metric) -> _Rows:
        return _Rows(name, render.marked_rows(self.tables[name], self.filters[name], metric.marks))

    def duplicates(self, name: str, column: str) -> Found:
        table, filter_ = self.tables[name], self.filters[name]
        values, rows = self._value(name, render.duplicates_query(table, filter_, column))[0]
        return Found(values, rows, lambda: _Rows(name, render.duplicate_rows(table, filter_, column)))

    def unmatched(self, name: str, target: str, mappings: MappingKey, check: CheckSpec) -> Found:
        condition = self.join_condition(check)
        rows = render.unmatched_rows(
            self.tables[name], self.filters[name], self.tables[target], self.filters[target], condition
        )
        count = int(self._value(name, render.count_of(rows))[0][0])
        return Found(count, count, lambda: _Rows(name, rows))

    def scalar(self, check: CheckSpec, text: Any, placeholders: tuple[str, ...], what: str) -> Any:
        tree = self.query_tree(check, text, what)
        db = self.db(check.batch)
        _, rows = db.fetch(render.render(tree, db.where.dialect), limit=2)
        return one_value(rows, what)

    def write_error_rows(self, rows: _Rows, path: str, check: CheckSpec, limit: int, count: int) -> int:
        db = self.db(rows.batch)
        names, fetched = db.fetch(render.render(rows.select.limit(limit), db.where.dialect), limit=limit)
        categories = {c.name: c.spark_ref(db.where.dialect).category for c in self.tables[rows.batch].columns}
        write_error_rows(path, names, fetched, check.name, categories)
        return len(fetched)

    def write_marked_rows(self, rows: _Rows, path: str, check: CheckSpec) -> None:
        """Every row of the batch with its marks, streamed from the database in chunks into Parquet."""
        db, table = self.db(rows.batch), self.tables[rows.batch]
        names, chunks = stream(db, render.render(rows.select, db.where.dialect))
        try:
            write_marked_batch(path, names, chunks, {c.name: c for c in table.columns}, db.where.dialect)
        finally:
            chunks.close()  # ends the database's transaction when the write stopped early

    def run_units(self, units: list[Unit], cancel: threading.Event) -> None:
        run_in_order(units, cancel)

    def interrupt(self) -> None:
        for db in list(self.databases.values()):
            db.cancel()

    def explain(self, exc: BaseException) -> str:
        """The database driver's own message (PyMySQL's (code, message), psycopg's first line)."""
        if (type(exc).__module__ or "").startswith(_DRIVERS):
            for db in self.databases.values():
                return db.kind.driver_message(exc)
        return ""

    def plan_extras(self) -> dict[str, Any]:
        return {}

    def close(self) -> None:
        for db in self.databases.values():
            db.close()


@dataclass(frozen=True)
class _Rows:
    """Rows of a batch's table, as the SELECT the database runs to give them."""

    batch: str
    select: exp.Select
