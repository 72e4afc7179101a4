"""The pushdown engine behind `dq_engine.run` (dq_engine/engines.py): a batch's checks computed by
the PostgreSQL or MySQL/MariaDB database holding its table, as SQL rendered by SQLGlot.

Per batch: ONE aggregate query (row count, every conditional count, aggregate, row rule and
schema contract's NULL count), one
`GROUP BY ... HAVING COUNT(*) > 1` per uniqueness key, one `NOT EXISTS` per accuracy mapping whose
target is in the same database, one query per custom SQL (render.py), each in a read-only
transaction under a statement timeout (connection.py); error rows fetched with the sink's LIMIT
and written as Parquet (error_rows.py), their exact count from the query's own count. Row rules'
error rows carry `_dq` and `_dq_failed_checks` (computed by the database), and their cleansed
output (every row with its marks) is streamed in chunks into Parquet (error_rows.py,
streaming.py); a schema contract's findings come from the catalog's types (catalog.py).

Failure is a value, as on Spark: a check that cannot be built is its own error; when the fused
aggregate query fails, the row count and every check run alone, so only the culprit errors; a
database that cannot be reached (or a table that does not exist) is the error of its batch's
checks, with the driver's reason and never the password.

Selection (per batch, before the run) asks `reason_cannot_read(source)` and, for what only the
checks tell, `reason_cannot_run(spec, batch, secrets)`: None when the engine can compute every
check of the batch as Spark would, else the first reason (a regular expression the database
reads otherwise, times held as text, accuracy across two databases, sampling, a function
with no known translation, a like pattern with a backslash). A check refused during a run
pinned to pushdown ends `error` with that reason.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from dq_engine import plan as planning
from dq_engine.databases import (
    DEFAULT_STATEMENT_TIMEOUT_SECONDS,
    Address,
    Table,
    address,
    connect,
    describe_table,
    stream,
)
from dq_engine.databases import Connection as Database
from dq_engine.databases import kind_of as dialect_of
from dq_engine.error_store import error_rows_path
from dq_engine.errors import BatchError, CheckError, describe
from dq_engine.pushdown import render
from dq_engine.pushdown.dialects import DIALECTS, NOT_PUSHED, fold_safe_casts
from dq_engine.pushdown.error_rows import write_error_rows, write_marked_batch
from dq_engine.query_checks import one_value
from dq_engine.result import new_outcome, new_stats, number, run_document, utc_now
from dq_engine.rowchecks.compile import leaf_checks, zoned_time
from dq_engine.spec import Batch, CheckSpec, JdbcSource, JobSpec
from dq_engine.sql_safety import UnsafeSQL, parse_select
from dq_engine.vocabulary import METRIC_KINDS, mapping_condition, row_metric
from dq_engine.vocabulary.metrics import JOIN, KEY_GROUP_BY, QUERY

CANCELLED = "The run was cancelled before this check finished."


class PushdownEngine:
    """- `statement_timeout`: seconds a statement may run (default: the spec's limit, else 15 min)."""

    key = "pushdown"

    def __init__(self, statement_timeout: int | None = None, **_other_engines_resources: Any):
        self.statement_timeout = statement_timeout

    # --- what selection asks ----------------------------------------------------------------------
    def reason_cannot_read(self, source: Any) -> str | None:
        if dialect_of(source) is None:
            return f"{NOT_PUSHED}: pushdown reads tables in PostgreSQL and MySQL/MariaDB, not this source."
        return None

    def reason_cannot_filter(self, batch: Batch) -> str | None:
        """Why the batch itself cannot be pushed down (decided from the spec alone), or None."""
        return reason_cannot_draw(batch, "")

    def reason_cannot_check(self, check: CheckSpec) -> str | None:
        """Why a check cannot be pushed down, decided from the spec alone (selection asks this in the
        web process, which has no secrets; what needs the table's catalog is `reason_cannot_run`'s)."""
        reason = like_escape_problem(check)
        return f"{NOT_PUSHED}: check {check.name!r}, {reason}" if reason else None

    def reason_cannot_run(self, spec: JobSpec, batch: str, secrets: Mapping[str, str] | None = None) -> str | None:
        """Why some check of `batch` cannot be pushed down (it reads the table's catalog), or None."""
        reason = self.reason_cannot_read(spec.sources[spec.batches[batch].source])
        if reason:
            return reason
        timeout = self._timeout(spec)
        with _Run(spec, secrets or {}, threading.Event(), timeout) as run:
            try:
                run.open(batch)
            except (BatchError, CheckError) as exc:
                return str(exc) if str(exc).startswith(NOT_PUSHED) else None  # unreadable: not a refusal
            for check in spec.checks:
                if batch not in (check.batch, check.target_batch):
                    continue
                try:
                    run.refusal(check)
                except CheckError as exc:
                    return f"Check {check.name}: {exc}"
                except BatchError:
                    continue
        return None

    # --- the run ------------------------------------------------------------------------------
    def run(
        self,
        spec: JobSpec | dict[str, Any],
        secrets: Mapping[str, str] | None = None,
        cancel: threading.Event | None = None,
    ) -> dict[str, Any]:
        job = spec if isinstance(spec, JobSpec) else JobSpec.from_dict(spec)
        planning.validate(job)
        started_at = utc_now()
        with _Run(job, secrets or {}, cancel or threading.Event(), self._timeout(job)) as run:
            run.execute()
        return run_document(job, self.key, started_at, (run.rows, run.errors), run.outcomes, {"batches": run.stats})

    def _timeout(self, spec: JobSpec) -> int:
        from_spec = spec.limits.statement_timeout_seconds
        return int(self.statement_timeout or from_spec or DEFAULT_STATEMENT_TIMEOUT_SECONDS)


def reason_cannot_draw(batch: Batch, name: str) -> str | None:
    """A sampled batch or one limited to its first rows (a preview) is Spark's or DuckDB's: the
    database would draw other rows, and each of the batch's queries its own."""
    label = f"batch {name}" if name else "the batch"
    if batch.sample_fraction is not None and batch.sample_fraction != 1:
        return f"{NOT_PUSHED}: {label} is sampled, which Spark does (the database's sampling differs)."
    if batch.limit is not None:
        return f"{NOT_PUSHED}: {label} is limited to its first {batch.limit} rows, which Spark or DuckDB draw once."
    return None


class _Run:
    """One run's connections, tables and outcomes (connections closed on exit)."""

    def __init__(self, spec: JobSpec, secrets: Mapping[str, str], cancel: threading.Event, timeout: int):
        self.spec, self.secrets, self.cancel, self.timeout = spec, secrets, cancel, timeout
        self.plans = planning.make_plan(spec)
        self.outcomes = {check.id: new_outcome(check) for check in spec.checks}
        self.done: set[str] = set()
        self.stats = {name: new_stats() for name in spec.batches}
        self.rows: dict[str, int | None] = {}
        self.errors: dict[str, str] = {}
        self.databases: dict[Address, Database] = {}
        self.tables: dict[str, Table] = {}
        self.filters: dict[str, exp.Expression | None] = {}
        self.used_secrets = [
            secrets[s.password_secret]
            for s in spec.sources.values()
            if isinstance(s, JdbcSource) and s.password_secret and secrets.get(s.password_secret)
        ]

    def __enter__(self) -> _Run:
        return self

    def __exit__(self, *exc: Any) -> None:
        for db in self.databases.values():
            db.close()

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

    def problem(self, check: CheckSpec) -> str | None:
        for name, prefix in ((check.batch, ""), (check.target_batch, "Target batch: ")):
            if name is None:
                continue
            try:
                self.open(name)
            except (BatchError, CheckError):
                return prefix + self.errors[name]
        return None

    # --- what cannot be pushed down -----------------------------------------------------------
    def refusal(self, check: CheckSpec) -> None:
        """CheckError when the check cannot be pushed down (the reason); builds it, runs nothing."""
        kind = METRIC_KINDS[check.metric.kind]
        if reason := like_escape_problem(check):
            raise CheckError(f"{NOT_PUSHED}: {reason}.")
        if check.target_batch is not None and check.target_batch != check.batch:
            self.open(check.target_batch)
            if address(self.source(check.batch)) != address(self.source(check.target_batch)):
                raise CheckError(
                    f"{NOT_PUSHED}: the check reads two datasources (different databases or users); Spark joins them."
                )
        if kind.row_level and check.metric.kind != "custom_sql":
            self.row_metric(check)
        elif kind.computed_by == KEY_GROUP_BY:
            self.key_column(check)
        elif kind.computed_by == JOIN:
            self.join_condition(check)
        elif kind.computed_by == QUERY:
            for field, what in (("sql", "query"), ("comparison_sql", "comparison query")):
                if check.metric.kind == "custom_sql" and field == "comparison_sql":
                    continue
                self.query_tree(check, check.metric.get(field), what)

    def row_metric(self, check: CheckSpec) -> _Built:
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
            return _Built(render.counts_where(fold_safe_casts(built.aggregate)), None, marks, built.findings)
        predicate = render.exact_order(fold_safe_casts(built.predicate), dialect)
        return _Built(render.count_where(predicate), predicate, marks, built.findings)

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

    def key_column(self, check: CheckSpec) -> str:
        column = self.tables[check.batch].column(check.metric.get("column"))
        return column.name

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
        return render.bound_query(parsed, relations, self.dialect(check.batch), what)

    # --- outcomes -----------------------------------------------------------------------------
    def say(self, exc: BaseException, batch: str | None = None) -> str:
        if batch is not None and batch in self.tables:
            return self.db(batch).say(exc) if not isinstance(exc, CheckError | BatchError) else str(exc)
        return describe(exc, self.used_secrets)

    def fail(self, check: CheckSpec, exc: BaseException) -> None:
        message = CANCELLED if self.cancel.is_set() else self.say(exc, check.batch)
        self.outcomes[check.id].update(status="error", statistic=None, comparison=None, message=message)
        self.done.add(check.id)

    def ok(self, check: CheckSpec, statistic: float | None, error_row_count: int | None = None) -> None:
        self.outcomes[check.id].update(status="ok", statistic=statistic, error_row_count=error_row_count)
        self.done.add(check.id)

    def ok_value(self, check: CheckSpec, value: Any, comparison: Any = None, compared: bool = False) -> None:
        statistic, why = number(value)
        self.ok(check, statistic)
        notes = [] if statistic is not None else [f"Statistic: {why}"]
        if compared:
            value2, why2 = number(comparison)
            self.outcomes[check.id]["comparison"] = value2
            if value2 is None:
                notes.append(f"Comparison: {why2}")
        self.outcomes[check.id]["message"] = " ".join(notes) or None

    def marked_batch(self, check: CheckSpec, path: str, select: exp.Select) -> None:
        """The cleansed layer (row_rules' `output`): every row of the batch with its marks, streamed
        from the database in chunks into Parquet in the new folder `path`; a failed write is a note
        on the check, whose statistic stands (as on Spark)."""
        db, table = self.db(check.batch), self.tables[check.batch]
        try:
            names, chunks = stream(db, render.render(select, db.where.dialect))
            try:
                write_marked_batch(path, names, chunks, {c.name: c for c in table.columns}, db.where.dialect)
            finally:
                chunks.close()  # ends the database's transaction when the write stopped early
        except Exception as exc:  # noqa: BLE001
            self.outcomes[check.id]["message"] = f"The marked rows could not be written to {path}: {db.say(exc)}"
            return
        self.stats[check.batch]["error_row_writes"] += 1
        self.outcomes[check.id]["output_path"] = path

    def error_rows(self, check: CheckSpec, count: int, select: Callable[[], exp.Select]) -> None:
        sink = self.spec.error_rows
        if not check.error_rows or sink is None:
            return
        outcome = self.outcomes[check.id]
        if count <= 0 or sink.limit <= 0:
            outcome["error_rows_written"] = 0
            return
        path = error_rows_path(sink.root, check.id)
        db = self.db(check.batch)
        try:
            query = select().limit(sink.limit)
            names, rows = db.fetch(render.render(query, db.where.dialect), limit=sink.limit)
            dialect = db.where.dialect
            categories = {c.name: c.spark_ref(dialect).category for c in self.tables[check.batch].columns}
            write_error_rows(path, names, rows, check.name, categories)
        except Exception as exc:  # noqa: BLE001 - the statistic stands; only the sample is missing
            outcome["message"] = f"Error rows could not be written to {path}: {db.say(exc)}"
            return
        self.stats[check.batch]["error_row_writes"] += 1
        outcome.update(error_rows_written=len(rows), error_rows_path=path)

    # --- the passes ---------------------------------------------------------------------------
    def execute(self) -> None:
        with self._cancel_watcher():
            for name in self.spec.batches:
                if self.cancel.is_set():
                    break
                try:
                    self.open(name)
                except (BatchError, CheckError):
                    continue
            for name in self.spec.batches:
                for step in (self.aggregate_pass, self.uniqueness, self.accuracy, self.queries):
                    if self.cancel.is_set():
                        break
                    step(name)
        for check in self.spec.checks:
            if check.id not in self.done:
                why = CANCELLED if self.cancel.is_set() else self.problem(check)
                self.fail(check, CheckError(why or "The engine did not evaluate this check."))

    @contextmanager
    def _cancel_watcher(self):
        """Stops the running statement when the run is cancelled (the next one does not start)."""
        finished = threading.Event()

        def watch() -> None:
            while not finished.is_set():
                if self.cancel.wait(0.2):
                    for db in list(self.databases.values()):
                        db.cancel()
                    return

        watcher = threading.Thread(target=watch, name="dq-pushdown-cancel", daemon=True)
        watcher.start()
        try:
            yield
        finally:
            finished.set()
            watcher.join(timeout=1)

    def runnable(self, checks: list[CheckSpec]) -> list[CheckSpec]:
        kept = []
        for check in checks:
            problem = self.problem(check)
            if problem:
                self.fail(check, BatchError(problem))
                continue
            try:
                self.refusal(check)
            except Exception as exc:  # noqa: BLE001 - a check that cannot be built is its own error
                self.fail(check, exc)
                continue
            kept.append(check)
        return kept

    def _value(self, batch: str, query: exp.Expression) -> list[tuple]:
        db = self.db(batch)
        return db.rows(render.render(query, db.where.dialect))

    def aggregate_pass(self, name: str) -> None:
        plan = self.plans[name]
        row_checks = [c for c in plan.row_checks if c.metric.kind != "custom_sql"]
        if name not in self.tables:
            self.runnable([*row_checks, *plan.count_checks])
            return
        metrics = [(check, self.row_metric(check)) for check in self.runnable(row_checks)]
        table, filter_ = self.tables[name], self.filters[name]
        self.stats[name]["fused_checks"] = len(metrics)
        try:
            values = list(
                self._value(name, render.aggregate_query(table, filter_, [m.aggregate for _, m in metrics]))[0]
            )
            self.stats[name]["aggregate_passes"] += 1
            rows, results = values[0], values[1:]
        except Exception as fused_error:  # noqa: BLE001 - isolate the culprit check by check
            if self.cancel.is_set():
                return
            try:
                rows = self._value(name, render.aggregate_query(table, filter_, []))[0][0]
                self.stats[name]["isolation_passes"] += 1
            except Exception:  # noqa: BLE001 - the batch itself fails
                self.errors[name] = f"Batch {name} could not be read: {self.say(fused_error, name)}"
                for check in [c for c, _ in metrics] + plan.count_checks:
                    self.fail(check, BatchError(self.errors[name]))
                return
            results = []
            for _, built in metrics:
                try:
                    results.append(self._value(name, render.aggregate_query(table, filter_, [built.aggregate]))[0][1])
                except Exception as exc:  # noqa: BLE001
                    results.append(_Failed(exc))
                self.stats[name]["isolation_passes"] += 1
        self.rows[name] = int(rows)
        for (check, built), value in zip(metrics, results, strict=True):
            if isinstance(value, _Failed):
                self.fail(check, value.exc)
                continue
            if built.predicate is not None:
                self.ok(check, float(value), error_row_count=int(value))
                self.error_rows(
                    check,
                    int(value),
                    lambda b=built: render.marked_rows(table, render.both(filter_, b.predicate), b.marks),
                )
                if built.marks and check.metric.get("output"):
                    self.marked_batch(check, check.metric["output"], render.marked_rows(table, filter_, built.marks))
            else:
                self.ok_value(check, value)
            if built.findings:
                self.outcomes[check.id]["findings"] = list(built.findings)
        for check in plan.count_checks:
            if check.id not in self.done:
                self.ok(check, float(rows))

    def uniqueness(self, name: str) -> None:
        checks = self.runnable(self.plans[name].uniqueness_checks)
        by_column: dict[str, list[CheckSpec]] = {}
        for check in checks:
            by_column.setdefault(self.key_column(check), []).append(check)
        table, filter_ = self.tables.get(name), self.filters.get(name)
        for column, group in by_column.items():
            try:
                values, rows = self._value(name, render.duplicates_query(table, filter_, column))[0]
                self.stats[name]["group_bys"] += 1
            except Exception as exc:  # noqa: BLE001
                for check in group:
                    self.fail(check, exc)
                continue
            offending = int(rows or 0)
            for check in group:
                self.ok(check, float(values), error_row_count=offending)
                self.error_rows(check, offending, lambda c=column: render.duplicate_rows(table, filter_, c))

    def accuracy(self, name: str) -> None:
        for (target, _mappings), checks in self.plans[name].joins.items():
            checks = self.runnable(checks)
            if not checks:
                continue
            condition = self.join_condition(checks[0])
            unmatched = render.unmatched_rows(
                self.tables[name], self.filters[name], self.tables[target], self.filters[target], condition
            )
            try:
                count = int(self._value(name, render.count_of(unmatched))[0][0])
                self.stats[name]["joins"] += 1
            except Exception as exc:  # noqa: BLE001
                for check in checks:
                    self.fail(check, exc)
                continue
            for check in checks:
                self.ok(check, float(count), error_row_count=count)
                self.error_rows(check, count, lambda u=unmatched: u)

    def queries(self, name: str) -> None:
        plan = self.plans[name]
        checks = [*plan.sql_checks, *(c for c in plan.row_checks if c.metric.kind == "custom_sql")]
        for check in self.runnable(checks):
            if self.cancel.is_set():
                return
            try:
                statistic = self.scalar(check, check.metric.get("sql"), "query")
                if check.metric.kind == "custom_sql":
                    self.stats[name]["sql_queries"] += 1
                    self.ok_value(check, statistic)
                else:
                    comparison = self.scalar(check, check.metric.get("comparison_sql"), "comparison query")
                    self.stats[name]["sql_queries"] += 2
                    self.ok_value(check, statistic, comparison, compared=True)
            except Exception as exc:  # noqa: BLE001
                self.fail(check, exc)

    def scalar(self, check: CheckSpec, text: Any, what: str) -> Any:
        tree = self.query_tree(check, text, what)
        db = self.db(check.batch)
        _, rows = db.fetch(render.render(tree, db.where.dialect), limit=2)
        return one_value(rows, what)


class _Failed:
    def __init__(self, exc: BaseException):
        self.exc = exc


@dataclass(frozen=True)
class _Built:
    """One check's share of the aggregate query, as the database's SQL trees: its aggregate, the
    condition of its rows (conditional counts, row rules), the marks its rows carry (row rules'
    `_dq`, `_dq_failed_checks`) and the schema's findings (schema contracts)."""

    aggregate: exp.Expression
    predicate: exp.Expression | None
    marks: tuple[tuple[str, exp.Expression], ...] = ()
    findings: tuple[str, ...] = ()


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
