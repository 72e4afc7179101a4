"""The runner: job spec → readers → fused metric plan → error rows → result document.

`run(spec, spark, secrets)` is the engine's one entry point (exported as `dq_engine.run`). The
caller owns the SparkSession; the runner only caches its batches and names temp views for the
length of the run, and removes them before returning.

Flow per run:
1. open every batch: read the source (schema only), apply the filter (parsed and re-rendered by
   sql_safety, never pasted), sample if asked; a JDBC batch that more than one pass will touch is
   cached (the database is read once), a file batch never is (plan.py says why);
2. one aggregate pass per batch: row count + all conditional counts + all aggregates (a batch
   with no such check, e.g. an accuracy target, gets only its row count over the pruned scan);
3. one group-by per uniqueness key column; when an accuracy check maps that same single column
   (`=` or `<=>`) on the same batch, the group-by is shared: the source's and the target's keys are
   grouped together, and the unmatched rows are the counted source rows of the keys the target
   lacks (no join);
4. one left-anti join per (other) accuracy mapping;
5. custom SQL / value comparison queries against temp views of the batches (a custom SQL statistic
   that is a plain aggregate of its batch is computed in step 2 instead: plan.py);
each followed by the error-row writes of its checks (always from the batch's original rows).
Steps 2-5 are independent Spark jobs and run CONCURRENT_PASSES at a time (a cached batch's
aggregate pass first, as it builds the cache).

Failure is a value: the fused pass is analysed as a whole; when that fails, each check's
expression is analysed alone and a broken one (an unknown column, a wrong type) stays that
check's error; when the fused pass still fails at run time (e.g. ANSI overflow), every check is
evaluated separately to isolate the culprit. A batch that cannot be read makes every check on it
an error with the reason. A shared uniqueness + accuracy query that fails falls back to the
separate group-by and join, so each check gets its own error.

Accuracy NULL handling (DESIGN.md: "source rows with no target row matching all mapping
columns"): `=` is SQL equality, so a NULL matches nothing and a source row with a NULL in a mapped
column counts as unmatched. `<=>` is the null-safe option: a NULL source value matches a NULL
target value (NULL never matches ''). The other operators (`!=`, `<`, ...) follow SQL too.
When a pair compares a string column with a non-string one, both sides are compared as strings
(Spark's ANSI mode would otherwise cast the string to a number and fail on the first non-number).
"""

from __future__ import annotations

import functools
import logging
import re
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import reduce
from typing import TYPE_CHECKING, Any

from dq_engine import plan as planning
from dq_engine.error_rows import error_rows_path, write_error_rows
from dq_engine.errors import BatchError, CheckError, describe, quiet_pyspark_error_logs
from dq_engine.metrics import RowMetric, field_ref, quote_identifier, resolve_column, row_metric, to_column
from dq_engine.readers import describe_source, read_source
from dq_engine.result import new_outcome, number, utc_now
from dq_engine.spec import CheckSpec, FileSource, JdbcSource, JobSpec
from dq_engine.sql_safety import UnsafeSQL, filter_to_spark_sql, parse_filter, parse_select
from dq_engine.vocabulary import mapping_condition
from dq_engine.vocabulary.metrics import compared_as_text

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

logger = logging.getLogger(__name__)

# Passes (Spark jobs) run at the same time within one run; 1 runs them one after another.
CONCURRENT_PASSES = 3

# Key group-bys (uniqueness, uniqueness + accuracy) shuffle their rows into one partition per
# KEY_BYTES_PER_PARTITION of estimated key data, between one and KEY_PARTITIONS_PER_CORE per core:
# the reduce side builds a hash map of every distinct key, and small maps stay in the CPU cache
# (bench/README.md: at 5M rows on 2 cores, 32 partitions made the group-bys 15-40% faster than 4).
# An explicit repartition(n, key) is never coalesced by adaptive execution, hence the estimate: a
# small batch gets one partition per core, not hundreds of empty tasks.
KEY_BYTES_PER_PARTITION = 1 << 20
KEY_PARTITIONS_PER_CORE = 16

# Spark 4's switch for a single Complete-mode aggregation after the shuffle, without the pre-shuffle
# partial one. A uniqueness group-by is over a key expected to be (nearly) unique, where partial
# aggregation reduces nothing and only costs a hash map per task; after repartition(n, key) the
# partial and final aggregations would even run in the same task, hashing every row twice. The
# engine sets it only around its own group-by queries (see _without_partial_aggregation); it does
# not change any result.

BYPASS_PARTIAL_AGGREGATION = "spark.sql.execution.bypassPartialAggregation"
_bypass_lock = threading.Lock()
_bypass_users: dict[int, tuple[int, str | None]] = {}  # id(session) -> (queries inside, value before)

# How often the cancel watcher looks at the run's cancel event (seconds).
CANCEL_POLL_SECONDS = 0.2

CANCELLED = "The run was cancelled before this check finished."

# A sampled batch is read by several passes (file batches are not cached); a fixed seed keeps the
# sample the same across those passes.
SAMPLE_SEED = 20261130


class SparkEngine:
    """The Spark engine (dq_engine/engines.py): reads every source kind the spec has.

    - `spark`: a SparkSession, or a zero-argument callable returning one, called only when a run
      needs it (a worker starts Spark only for a batch that needs it); None takes the process's
      active session, or builds one with the engine's defaults (dq_engine.session.build_spark).
      Whoever creates the session owns its life: the engine never stops it.
    - `job_group`: the Spark job group for the run's jobs; one is made up when omitted. The
      caller's own group and job description are restored afterwards.
    """

    key = "spark"

    def __init__(
        self, spark: SparkSession | Callable[[], SparkSession] | None = None, job_group: str | None = None, **_
    ):
        self._spark = spark
        self.job_group = job_group

    def reason_cannot_read(self, source: JdbcSource | FileSource) -> str | None:
        if isinstance(source, JdbcSource | FileSource):
            return None
        return f"Spark reads JDBC tables and files, not {type(source).__name__}."

    @property
    def spark(self) -> SparkSession:
        if self._spark is None:
            from pyspark.sql import SparkSession

            from dq_engine.session import build_spark

            self._spark = SparkSession.getActiveSession() or build_spark()
        elif not hasattr(self._spark, "sparkContext"):  # a factory: start Spark now
            self._spark = self._spark()
        return self._spark

    def run(
        self,
        spec: JobSpec | dict[str, Any],
        secrets: Mapping[str, str] | None = None,
        cancel: threading.Event | None = None,
    ) -> dict[str, Any]:
        """Run every check of the spec and return the result document (see dq_engine.result).

        - `secrets`: password values by the names the spec's JDBC sources give (`password_secret`);
          the CLI passes os.environ. Nothing from it is logged or copied into the result.
        - `cancel`: once set, the run's Spark jobs are cancelled, no further pass starts, and every
          check not finished by then ends `error` ("The run was cancelled ...").

        Raises SpecError for a malformed spec; every other failure is reported inside the document.
        """
        job = spec if isinstance(spec, JobSpec) else JobSpec.from_dict(spec)
        planning.validate(job)
        spark = self.spark
        started_at = utc_now()
        group = self.job_group or f"dq-engine-{_slug(job.run_id)}-{uuid.uuid4().hex[:8]}"
        cancel = cancel or threading.Event()
        execution = _Execution(job, spark, secrets or {}, cancel)
        with (
            quiet_pyspark_error_logs(),
            _job_group(spark, group, f"dq-engine run {job.run_id}") as count_jobs,
            _cancel_watcher(spark, group, cancel),
        ):
            try:
                execution.execute()
            finally:
                execution.cleanup()
        return {
            "run_id": job.run_id,
            "spark_application_id": spark.sparkContext.applicationId,
            "started_at": started_at,
            "finished_at": utc_now(),
            "batches": {
                name: {"rows": execution.rows.get(name), "error": execution.batch_errors.get(name), "engine": self.key}
                for name in job.batches
            },
            "checks": execution.outcomes,
            "plan": {"batches": execution.stats, "spark_jobs": count_jobs(), "job_group": group},
        }


@contextmanager
def _cancel_watcher(spark: SparkSession, group: str, cancel: threading.Event) -> Iterator[None]:
    """While the run lasts, a thread waits for `cancel`; from then on it cancels the run's job group
    (the passes' threads inherit it) every CANCEL_POLL_SECONDS, so a job that was still being
    planned when the run was cancelled is stopped as soon as it starts."""
    finished = threading.Event()

    def watch() -> None:
        while not finished.is_set():
            if cancel.wait(CANCEL_POLL_SECONDS) and not finished.is_set():
                spark.sparkContext.cancelJobGroup(group)
                finished.wait(CANCEL_POLL_SECONDS)

    watcher = threading.Thread(target=watch, name="dq-engine-cancel", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()


def _slug(value: Any) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", str(value))[:40] or "run"


@contextmanager
def _job_group(spark: SparkSession, group: str, description: str) -> Iterator[Callable[[], int]]:
    """Tag this thread's Spark jobs with the run's group; yield a counter of the jobs it ran."""
    context = spark.sparkContext
    keys = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")
    previous = {key: context.getLocalProperty(key) for key in keys}
    tracker = context.statusTracker()
    before = set(tracker.getJobIdsForGroup(group))
    context.setJobGroup(group, description, interruptOnCancel=True)
    try:
        yield lambda: len(set(tracker.getJobIdsForGroup(group)) - before)
    finally:
        for key, value in previous.items():
            context.setLocalProperty(key, value)  # None removes the property


@contextmanager
def _without_partial_aggregation(spark: SparkSession) -> Iterator[None]:
    """Plan and run the queries inside without pre-shuffle partial aggregation (the setting is the
    session's, so concurrent runs count their users and the last one out restores the value)."""
    key = id(spark)
    with _bypass_lock:
        users, before = _bypass_users.get(key, (0, None))
        if users == 0:
            try:
                before = spark.conf.get(BYPASS_PARTIAL_AGGREGATION, None)
                spark.conf.set(BYPASS_PARTIAL_AGGREGATION, "true")
            except Exception:  # noqa: BLE001 - a Spark without the setting: run as is
                logger.debug("Cannot set %s; partial aggregation stays on.", BYPASS_PARTIAL_AGGREGATION)
        _bypass_users[key] = (users + 1, before)
    try:
        yield
    finally:
        with _bypass_lock:
            users, before = _bypass_users.pop(key)
            if users > 1:
                _bypass_users[key] = (users - 1, before)
            else:
                try:
                    if before is None:
                        spark.conf.unset(BYPASS_PARTIAL_AGGREGATION)
                    else:
                        spark.conf.set(BYPASS_PARTIAL_AGGREGATION, before)
                except Exception:  # noqa: BLE001
                    logger.debug("Cannot restore %s.", BYPASS_PARTIAL_AGGREGATION)


class _Failed:
    """A value that could not be computed, in the list of isolated results."""

    def __init__(self, exc: BaseException):
        self.exc = exc


class _Execution:
    """The state of one run: batches, outcomes, plan statistics."""

    def __init__(self, spec: JobSpec, spark: SparkSession, secrets: Mapping[str, str], cancel: threading.Event):
        self.spec, self.spark, self.secrets, self.cancel = spec, spark, secrets, cancel
        self.plans = planning.make_plan(spec)
        self.frames: dict[str, DataFrame] = {}
        self.batch_errors: dict[str, str] = {}
        self.rows: dict[str, int | None] = {}
        self.outcomes: dict[str, dict[str, Any]] = {check.id: new_outcome(check) for check in spec.checks}
        self.done: set[str] = set()
        self.views: dict[str, str] = {}
        self.cached: list[DataFrame] = []
        self.shared_joins: set[tuple[str, tuple[str, planning.MappingKey]]] = set()  # answered by step 3
        self.token = uuid.uuid4().hex[:10]
        self.lock = threading.Lock()  # stats counters and temp views, shared by concurrent passes
        self.stats = {
            name: {
                "aggregate_passes": 0,
                "isolation_passes": 0,
                "group_bys": 0,
                "joins": 0,
                "sql_queries": 0,
                "error_row_writes": 0,
                "cached": False,
                "fused_checks": 0,
                "fused_sql_checks": 0,
            }
            for name in spec.batches
        }
        # Only the secrets this run uses are redacted from messages (the CLI's mapping is os.environ).
        self.used_secrets = [
            secrets[s.password_secret]
            for s in spec.sources.values()
            if isinstance(s, JdbcSource) and s.password_secret and secrets.get(s.password_secret)
        ]

    # --- flow ------------------------------------------------------------------------------------
    def execute(self) -> None:
        for name in self.spec.batches:
            if self.cancel.is_set():
                break
            self._open(name)
        if not self.cancel.is_set():
            self._run_passes()
        for check in self.spec.checks:  # a check no step reached (cancelled, or a bug): say so
            if check.id not in self.done:
                why = CANCELLED if self.cancel.is_set() else self._problem(check)
                self._fail(check, CheckError(why or "The engine did not evaluate this check."))

    def _run_passes(self) -> None:
        units: list[Callable[[], None]] = []
        for name in self.spec.batches:
            if self.stats[name]["cached"]:  # builds the cache before any other pass reads the batch
                self._unless_cancelled(functools.partial(self._aggregate_pass, name))()
            else:
                units.append(functools.partial(self._aggregate_pass, name))
        for name in self.spec.batches:
            units += self._uniqueness_units(name)  # claims the accuracy joins it answers
        for name in self.spec.batches:
            units += self._accuracy_units(name)
        for name in self.spec.batches:
            units += self._query_units(name)
        self._run_units(units)

    def _run_units(self, units: list[Callable[[], None]]) -> None:
        """Run the passes, CONCURRENT_PASSES at a time (each records its own checks' outcomes).

        Concurrent jobs keep every core busy: a pass's last wave of tasks (5 files on 2 cores is 3
        waves) and its driver-side planning leave cores idle that the next pass's tasks fill. The
        threads inherit this run's job group (pinned thread mode), so cancelling it stops them all."""
        units = [self._unless_cancelled(unit) for unit in units]
        workers = min(CONCURRENT_PASSES, len(units))
        if workers <= 1:
            for unit in units:
                unit()
            return
        from concurrent.futures import ThreadPoolExecutor

        from pyspark.util import inheritable_thread_target

        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dq-engine") as pool:
            futures = [pool.submit(inheritable_thread_target(self.spark)(unit)) for unit in units]
            for future in futures:
                future.result()

    def _unless_cancelled(self, unit: Callable[[], None]) -> Callable[[], None]:
        """The unit, skipped when the run is cancelled before it starts."""

        def guarded() -> None:
            if not self.cancel.is_set():
                unit()

        return guarded

    def _count(self, name: str, what: str, n: int = 1) -> None:
        with self.lock:
            self.stats[name][what] += n

    def cleanup(self) -> None:
        for view in self.views.values():
            try:
                self.spark.catalog.dropTempView(view)
            except Exception:  # noqa: BLE001 - cleanup must not hide the run's result
                logger.warning("Could not drop temp view %s", view)
        for frame in self.cached:
            try:
                frame.unpersist()
            except Exception:  # noqa: BLE001
                logger.warning("Could not unpersist a cached batch")

    # --- batches -----------------------------------------------------------------------------------
    def _open(self, name: str) -> None:
        batch = self.spec.batches[name]
        source = self.spec.sources[batch.source]
        try:
            frame = read_source(self.spark, source, self.secrets)
        except Exception as exc:  # noqa: BLE001 - any reader failure is this batch's error
            self.batch_errors[name] = f"Batch {name} could not be read ({describe_source(source)}): {self._say(exc)}"
            return
        if batch.filter:
            try:
                frame = frame.where(filter_to_spark_sql(parse_filter(batch.filter, frame.columns)))
            except UnsafeSQL as exc:
                self.batch_errors[name] = f"The filter of batch {name} was refused: {self._say(exc)}"
                return
            except Exception as exc:  # noqa: BLE001 - Spark's analysis of the filter
                self.batch_errors[name] = f"The filter of batch {name} cannot be applied: {self._say(exc)}"
                return
        if batch.sample_fraction is not None:
            fraction = batch.sample_fraction
            if isinstance(fraction, bool) or not isinstance(fraction, int | float) or not 0 < fraction <= 1:
                self.batch_errors[name] = f"Batch {name}: sample_fraction must be a number in (0, 1]; got {fraction!r}."
                return
            if fraction < 1:
                frame = frame.sample(fraction=float(fraction), seed=SAMPLE_SEED)
        if self.plans[name].needs_cache:  # JDBC only, and only when more than one pass reads it
            from pyspark import StorageLevel

            frame = frame.persist(StorageLevel.MEMORY_AND_DISK)
            self.cached.append(frame)
            self.stats[name]["cached"] = True
        self.frames[name] = frame

    def _problem(self, check: CheckSpec) -> str | None:
        """Why a check cannot run because of its batches, or None."""
        if check.batch in self.batch_errors:
            return self.batch_errors[check.batch]
        if check.target_batch and check.target_batch in self.batch_errors:
            return f"Target batch: {self.batch_errors[check.target_batch]}"
        return None

    def _runnable(self, checks: list[CheckSpec]) -> list[CheckSpec]:
        """The checks whose batches are fine; the others get their batch's error."""
        kept = []
        for check in checks:
            problem = self._problem(check)
            if problem:
                self._fail(check, BatchError(problem))
            else:
                kept.append(check)
        return kept

    # --- 2. the fused aggregate pass ------------------------------------------------------------
    def _aggregate_pass(self, name: str) -> None:
        from pyspark.sql import functions as F

        plan = self.plans[name]
        if name in self.batch_errors:
            self._runnable([*plan.row_checks, *plan.count_checks])
            return
        frame = self.frames[name]
        metrics: list[tuple[CheckSpec, RowMetric]] = []
        for check in plan.row_checks:
            try:
                if check.id in plan.folded_sql:
                    metrics.append((check, RowMetric(aggregate=F.expr(plan.folded_sql[check.id]), predicate=None)))
                else:
                    metrics.append((check, row_metric(frame, check.metric, self.spark)))
            except Exception as exc:  # noqa: BLE001
                self._fail(check, exc)
        row_count = F.count(F.lit(1))

        def fused_pass() -> DataFrame:  # analysed when built (classic PySpark)
            return frame.agg(row_count, *(m.aggregate.alias(f"__dq_m{i}") for i, (_, m) in enumerate(metrics)))

        try:
            fused = fused_pass()
        except Exception:  # noqa: BLE001 - some check does not analyse: find it, keep it out of the pass
            metrics = self._analysable(name, frame, metrics)
            fused = None
        self.stats[name]["fused_checks"] = len(metrics)
        self.stats[name]["fused_sql_checks"] = sum(1 for check, _ in metrics if check.id in plan.folded_sql)
        try:
            values = list((fused if fused is not None else fused_pass()).collect()[0])
            self._count(name, "aggregate_passes")
            rows, results = values[0], values[1:]
        except Exception as fused_error:  # noqa: BLE001 - isolate the culprit check by check
            logger.info("Fused pass over batch %s failed (%s); isolating checks.", name, describe(fused_error))
            try:
                rows = frame.agg(row_count).collect()[0][0]
                self._count(name, "isolation_passes")
            except Exception as exc:  # noqa: BLE001 - the batch itself fails at run time
                self.batch_errors[name] = f"Batch {name} could not be read: {self._say(exc)}"
                self._runnable([c for c, _ in metrics] + plan.count_checks)
                return
            results = [self._isolated(frame, metric) for _, metric in metrics]
            self._count(name, "isolation_passes", len(metrics))
        self.rows[name] = int(rows)
        for (check, metric), value in zip(metrics, results, strict=True):
            if isinstance(value, _Failed) and check.id in plan.folded_sql:
                self._query(name, check)  # as written: its own error message, or its value after all
            elif isinstance(value, _Failed):
                self._fail(check, value.exc)
            elif check.id in plan.folded_sql:
                try:
                    self._ok_value(check, _query_value(value, "query"))
                except CheckError as exc:
                    self._fail(check, exc)
            elif check.metric.kind == "conditional_count":
                self._ok(check, float(value), error_row_count=int(value))
                self._error_rows(check, int(value), lambda m=metric: frame.where(m.predicate))
            else:
                self._ok_value(check, value)
        for check in plan.count_checks:
            self._ok(check, float(rows))

    def _analysable(
        self, name: str, frame: DataFrame, metrics: list[tuple[CheckSpec, RowMetric]]
    ) -> list[tuple[CheckSpec, RowMetric]]:
        """The metrics whose aggregate analyses alone; the others become their check's error (a
        folded custom SQL statistic runs as written instead, which reports its own error)."""
        kept = []
        for check, metric in metrics:
            try:
                frame.agg(metric.aggregate).schema  # noqa: B018 - analysis only, no Spark job
            except Exception as exc:  # noqa: BLE001
                if check.id in self.plans[name].folded_sql:
                    self._query(name, check)
                else:
                    self._fail(check, exc)
                continue
            kept.append((check, metric))
        return kept

    def _isolated(self, frame: DataFrame, metric: RowMetric) -> Any:
        try:
            return frame.agg(metric.aggregate).collect()[0][0]
        except Exception as exc:  # noqa: BLE001
            return _Failed(exc)

    # --- 3. uniqueness: one group-by per key column ----------------------------------------------------
    def _uniqueness_units(self, name: str) -> list[Callable[[], None]]:
        checks = self._runnable(self.plans[name].uniqueness_checks)
        if not checks:
            return []
        by_column: dict[str, list[CheckSpec]] = {}
        for check in checks:
            try:
                field, _ = resolve_column(self.frames[name], check.metric.get("column"))
            except CheckError as exc:
                self._fail(check, exc)
                continue
            by_column.setdefault(field.name, []).append(check)
        shareable = self._shareable_joins(name)
        units: list[Callable[[], None]] = []
        for column_name, group in by_column.items():
            join = shareable.get(column_name)
            if join is None:
                units.append(functools.partial(self._duplicates, name, column_name, group))
            else:
                self.shared_joins.add((name, (join[0], join[1])))  # step 4 leaves this join to the unit
                units.append(functools.partial(self._uniqueness_with_accuracy, name, column_name, group, join))
        return units

    def _duplicates(self, name: str, column_name: str, group: list[CheckSpec]) -> None:
        from pyspark.sql import functions as F

        frame = self.frames[name]
        column = F.col(quote_identifier(column_name))
        try:
            keys = frame.where(column.isNotNull()).select(column.alias("__dq_key"))
            duplicated = self._group_keys(keys, F.count(F.lit(1)).alias("__dq_n")).where(F.col("__dq_n") > 1)
            with _without_partial_aggregation(self.spark):
                values, rows = duplicated.agg(F.count(F.lit(1)), F.sum("__dq_n")).collect()[0]
            self._count(name, "group_bys")
        except Exception as exc:  # noqa: BLE001
            for check in group:
                self._fail(check, exc)
            return
        offending = int(rows or 0)
        for check in group:
            self._ok(check, float(values), error_row_count=offending)
            self._error_rows(
                check,
                offending,
                lambda c=column, d=duplicated: frame.join(d.select("__dq_key"), c == F.col("__dq_key"), "left_semi"),
            )

    def _group_keys(self, keys: DataFrame, *aggregates: Column) -> DataFrame:
        """keys grouped by __dq_key, shuffled into _key_partitions partitions (run the result
        inside _without_partial_aggregation: the repartition already placed each key)."""
        return keys.repartition(self._key_partitions(keys), "__dq_key").groupBy("__dq_key").agg(*aggregates)

    def _key_partitions(self, keys: DataFrame) -> int:
        """Shuffle partitions for a group-by of these keys (see KEY_BYTES_PER_PARTITION)."""
        floor = max(1, self.spark.sparkContext.defaultParallelism)
        ceiling = KEY_PARTITIONS_PER_CORE * floor
        try:
            estimate = int(keys._jdf.queryExecution().optimizedPlan().stats().sizeInBytes().toString())
        except Exception:  # noqa: BLE001 - no estimate: the session's setting
            return floor
        return max(floor, min(ceiling, estimate // KEY_BYTES_PER_PARTITION))

    def _shareable_joins(self, name: str) -> dict[str, tuple[str, planning.MappingKey, list[CheckSpec]]]:
        """{source column: (target, mappings, checks)} for the accuracy joins on one `=`/`<=>` column
        whose batches are fine and whose columns resolve (the first such join per column)."""
        shareable: dict[str, tuple[str, planning.MappingKey, list[CheckSpec]]] = {}
        for (target, mappings), checks in self.plans[name].joins.items():
            if len(mappings) != 1 or mappings[0][1] not in ("=", "<=>") or not checks or self._problem(checks[0]):
                continue
            source_name, _, target_name = mappings[0]
            try:
                source_field, _ = resolve_column(self.frames[name], source_name)
                resolve_column(self.frames[target], target_name)
            except CheckError:
                continue  # the separate join reports it
            shareable.setdefault(source_field.name, (target, mappings, checks))
        return shareable

    def _uniqueness_with_accuracy(
        self,
        name: str,
        column_name: str,
        uniqueness: list[CheckSpec],
        join: tuple[str, planning.MappingKey, list[CheckSpec]],
    ) -> None:
        """Uniqueness of a column and accuracy on that same column from ONE group-by, with no join:
        the source's keys and the target's keys are shuffled together and grouped; per key, the
        source rows are counted and whether the target has it is noted. Duplicates are the keys the
        source has more than once; unmatched rows are the source rows whose key the target lacks
        (under `=` also every row whose key is NULL, since NULL matches nothing; under `<=>` a NULL
        key matches a NULL in the target). When the shared query fails, both run apart (so each
        check gets its own error)."""
        from pyspark.sql import functions as F

        target, mappings, accuracy = join
        frame = self.frames[name]
        (_, operator, target_name) = mappings[0]
        key, n, hit = F.col("__dq_key"), F.col("__dq_n"), F.col("__dq_hit")
        try:
            source_field, column = resolve_column(frame, column_name)
            target_field, right_in_target = _mapped_column(self.frames[target], target_name, "target")
            left, right = column, right_in_target
            if compared_as_text(field_ref(source_field), field_ref(target_field)):
                left, right = left.cast("string"), right.cast("string")
            source_keys = frame.select(left.alias("__dq_key"), F.lit(1).alias("__dq_s"), F.lit(0).alias("__dq_t"))
            target_keys = self.frames[target].select(
                right.alias("__dq_key"), F.lit(0).alias("__dq_s"), F.lit(1).alias("__dq_t")
            )
            keys = source_keys.unionAll(target_keys)  # Spark widens the two key types as `=` would
            grouped = self._group_keys(keys, F.sum("__dq_s").alias("__dq_n"), F.max("__dq_t").alias("__dq_hit"))
            repeated = key.isNotNull() & (n > 1)
            unmatched = (hit == 0) | key.isNull() if operator == "=" else hit == 0
            with _without_partial_aggregation(self.spark):
                values, rows, missing = grouped.agg(
                    F.count_if(repeated), F.sum(F.when(repeated, n)), F.sum(F.when(unmatched, n))
                ).collect()[0]
            duplicated = grouped.where(repeated)
        except Exception as exc:  # noqa: BLE001 - the separate group-by and join will say which check fails
            logger.info("Shared uniqueness/accuracy query on %s.%s failed (%s).", name, column_name, describe(exc))
            self._duplicates(name, column_name, uniqueness)
            self._join(name, target, mappings, accuracy)
            return
        self._count(name, "group_bys")
        self._count(name, "joins")
        offending = int(rows or 0)
        for check in uniqueness:
            self._ok(check, float(values), error_row_count=offending)
            self._error_rows(
                check,
                offending,
                lambda c=left, d=duplicated: frame.join(d.select(key), c == key, "left_semi"),
            )
        missing = int(missing or 0)
        for check in accuracy:
            self._ok(check, float(missing), error_row_count=missing)
            self._error_rows(check, missing, lambda: self._unmatched(frame, self.frames[target], mappings))

    # --- 4. accuracy: one left-anti join per (source, target, mappings) --------------------------------
    def _accuracy_units(self, name: str) -> list[Callable[[], None]]:
        units: list[Callable[[], None]] = []
        for (target, mappings), checks in self.plans[name].joins.items():
            if (name, (target, mappings)) in self.shared_joins:
                continue  # answered with the uniqueness group-by on the same column
            checks = self._runnable(checks)
            if checks:
                units.append(functools.partial(self._join, name, target, mappings, checks))
        return units

    def _join(self, name: str, target: str, mappings: planning.MappingKey, checks: list[CheckSpec]) -> None:
        try:
            unmatched = self._unmatched(self.frames[name], self.frames[target], mappings)
            count = unmatched.count()
            self._count(name, "joins")
        except Exception as exc:  # noqa: BLE001
            for check in checks:
                self._fail(check, exc)
            return
        for check in checks:
            self._ok(check, float(count), error_row_count=int(count))
            self._error_rows(check, int(count), lambda u=unmatched: u)

    def _unmatched(self, source: DataFrame, target: DataFrame, mappings: planning.MappingKey) -> DataFrame:
        """Source rows with no target row matching every pair (target columns renamed to avoid clashes)."""

        from sqlglot import exp

        conditions = []
        projected: list[Column] = []
        for index, (source_name, operator, target_name) in enumerate(mappings):
            source_field, _ = _mapped_column(source, source_name, "source")
            target_field, right_in_target = _mapped_column(target, target_name, "target")
            alias = f"__dq_t{index}"
            projected.append(right_in_target.alias(alias))
            conditions.append(
                mapping_condition(
                    field_ref(source_field), operator, field_ref(target_field), exp.column(alias, quoted=True)
                )
            )
        condition = reduce(lambda a, b: exp.and_(a, b), conditions)
        return source.join(target.select(*projected), to_column(condition), "left_anti")

    # --- 5. custom SQL and value comparison ---------------------------------------------------------
    def _query_units(self, name: str) -> list[Callable[[], None]]:
        return [functools.partial(self._query, name, check) for check in self._runnable(self.plans[name].sql_checks)]

    def _query(self, name: str, check: CheckSpec) -> None:
        try:
            if check.metric.kind == "custom_sql":
                statistic = self._scalar(check.metric.get("sql"), ("src_table",), check)
                self._count(name, "sql_queries")
                self._ok_value(check, statistic)
            else:
                places = ("src_table", "target_table")
                statistic = self._scalar(check.metric.get("sql"), places, check)
                comparison = self._scalar(check.metric.get("comparison_sql"), places, check, "comparison query")
                self._count(name, "sql_queries", 2)
                self._ok_value(check, statistic, comparison)
        except Exception as exc:  # noqa: BLE001
            self._fail(check, exc)

    def _scalar(self, text: Any, placeholders: tuple[str, ...], check: CheckSpec, what: str = "query") -> Any:
        """Run a user's one-value SELECT against the batches' views and return the value."""
        if not isinstance(text, str):
            raise CheckError(f"The {what} is missing.")
        try:
            query = parse_select(text, placeholders)
        except UnsafeSQL as exc:
            raise CheckError(f"The {what} was refused: {exc}")
        batches = {"src_table": check.batch, "target_table": check.target_batch}
        sql = query.to_spark_sql({placeholder: self._view(batches[placeholder]) for placeholder in query.tables_used})
        rows = self.spark.sql(sql).limit(2).collect()
        if not rows:
            raise CheckError(f"The {what} returned no rows; it must return one row holding one number.")
        if len(rows) > 1:
            raise CheckError(f"The {what} returned more than one row; it must return one row holding one number.")
        return _query_value(rows[0][0], what)

    def _view(self, batch: str) -> str:
        with self.lock:
            if batch not in self.views:
                view = f"dq_{self.token}_{len(self.views)}"
                self.frames[batch].createOrReplaceTempView(view)
                self.views[batch] = view
            return self.views[batch]

    # --- outcomes ------------------------------------------------------------------------------------
    def _say(self, exc: BaseException) -> str:
        return describe(exc, self.used_secrets)

    def _fail(self, check: CheckSpec, exc: BaseException) -> None:
        outcome = self.outcomes[check.id]
        message = CANCELLED if self.cancel.is_set() else self._say(exc)  # a cancelled job's error says only that
        outcome.update(status="error", statistic=None, comparison=None, message=message)
        self.done.add(check.id)

    def _ok(self, check: CheckSpec, statistic: float | None, error_row_count: int | None = None) -> None:
        self.outcomes[check.id].update(status="ok", statistic=statistic, error_row_count=error_row_count)
        self.done.add(check.id)

    def _ok_value(self, check: CheckSpec, value: Any, comparison: Any = "absent") -> None:
        """An aggregate or query value: a number, or NULL (ok, with a message saying so)."""
        statistic, message = number(value)
        self._ok(check, statistic)
        notes = [] if statistic is not None else [f"Statistic: {message}"]
        if comparison != "absent":
            compared, why = number(comparison)
            self.outcomes[check.id]["comparison"] = compared
            if compared is None:
                notes.append(f"Comparison: {why}")
        self.outcomes[check.id]["message"] = " ".join(notes) or None

    def _error_rows(self, check: CheckSpec, count: int, rows: Callable[[], DataFrame]) -> None:
        """Write a check's offending rows when it asks for them and the spec has a sink."""
        sink = self.spec.error_rows
        if not check.error_rows or sink is None:
            return
        outcome = self.outcomes[check.id]
        if count <= 0 or sink.limit <= 0:
            outcome["error_rows_written"] = 0
            return
        path = error_rows_path(sink.root, check.id)
        try:
            write_error_rows(rows(), path, check.name, sink.limit)
        except Exception as exc:  # noqa: BLE001 - the statistic stands; only the sample is missing
            outcome["message"] = f"Error rows could not be written to {path}: {self._say(exc)}"
            return
        self._count(check.batch, "error_row_writes")
        outcome.update(error_rows_written=min(count, sink.limit), error_rows_path=path)


def _query_value(value: Any, what: str) -> Any:
    """A statistic query's value: a number or NULL; anything else is the check's error."""
    if value is not None and number(value)[0] is None:
        raise CheckError(f"The {what} must return a number; {number(value)[1]}")
    return value


def _mapped_column(frame: DataFrame, name: str, side: str) -> tuple[Any, Column]:
    try:
        return resolve_column(frame, name)
    except CheckError as exc:
        raise CheckError(f"Mapping {side} column: {exc}")
