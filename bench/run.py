"""Time the same 20 checks four ways, as ratios to Spark's scan floor.

- scan floor: read every column the checks touch once and discard it (Spark's `noop` sink);
  nothing that computes these checks can read less.
- fused: `dq_engine.run` on the row-level subset (one aggregate pass), then on the full set (plus
  the group-bys, the join and the custom SQL). No error-row sink: this times the statistics.
- per rule: DolphinScheduler's way: each check is its own Spark SQL query, written like its SQL
  templates, on a fresh read of the source (new DataFrame, `clearCache()` in between).
- embedded: `dq_engine.run` on the full set with every batch on the DuckDB engine (in-process,
  no JVM), on the same files.

- hand-written DuckDB SQL: the same 20 statistics in the fastest DuckDB SQL written by hand for
  them (bench/hand.py), the DuckDB engine's own limit.

Every way's numbers are checked against each other and against the counts the generator planted;
a mismatch fails the run (a benchmark that computes wrong numbers is worthless). The last line is
`row_level=<x> full_set=<y> per_rule=<z> embedded_full_set=<e> pushdown_speedup=<p>
duckdb_vs_hand=<d> pushdown_vs_hand=<h> profile_vs_summarize=<s> spark_profile=<q>`: the first four a ratio to Spark's scan floor
(`embedded_full_set`: the DuckDB engine on the same files, the full set); `duckdb_vs_hand` the
DuckDB engine's time over the hand-written DuckDB SQL's; the pushdown figures from bench/pushdown.py,
the table profiles' from bench/profile.py.

Run: `make bench`, or `BENCH_ROWS=10000000 .venv/bin/python -m bench.run [--repeat N] [--breakdown]`.
"""

from __future__ import annotations

import argparse
import ast
import functools
import os
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench import checks as bench_checks
from bench import generate as gen
from bench import hand
from bench.checks import CHECKS, BenchCheck

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SRC_VIEW, TARGET_VIEW = "bench_src", "bench_target"
DS_TIME_FORMAT = "yyyy-MM-dd HH:mm:ss"  # what DolphinScheduler's timeliness template parses with


# --- the session --------------------------------------------------------------------------------
def bench_session(master: str = "local[2]", driver_memory: str = "8g") -> SparkSession:
    """The engine's own session builder (same settings the worker uses), sized for the benchmark."""
    from dq_engine.spark.session import DEFAULT_JARS, build_spark

    # The JDBC drivers: the pushdown comparison (bench/pushdown.py) reads PostgreSQL through Spark.
    return build_spark(master=master, jars=DEFAULT_JARS, app_name="dq-bench", driver_memory=driver_memory)


def warm_up(spark: SparkSession, dataset: gen.Dataset) -> None:
    """Keep one-off costs out of every timing: JVM start, and the first run of each way's queries
    (Spark's code generation and the JVM's JIT, which made a first run up to 1.6x slower than a
    second), on the first part file only; then read the whole dataset once, so it sits in the OS
    page cache for all ways alike."""
    spark.range(1000).selectExpr("sum(id)").collect()
    first_part = replace(dataset, orders=sorted(dataset.orders.glob("part-*.parquet"))[0])
    scan_floor(spark, first_part)
    run_fused(spark, first_part, CHECKS)
    run_fused(spark, first_part, bench_checks.row_level_checks())
    run_per_rule(spark, first_part, CHECKS)
    run_fused(None, first_part, CHECKS, engine="duckdb")
    hand.run_duckdb_hand(first_part)
    scan_floor(spark, dataset)


# --- way 1: the scan floor ----------------------------------------------------------------------
def scan_floor(spark: SparkSession, dataset: gen.Dataset) -> None:
    """Read every column some check touches, once, and discard the rows."""
    for path, columns in (
        (dataset.orders, bench_checks.TOUCHED_ORDERS_COLUMNS),
        (dataset.customers, bench_checks.TOUCHED_CUSTOMERS_COLUMNS),
    ):
        spark.read.parquet(str(path)).select(*columns).write.format("noop").mode("overwrite").save()


# --- way 2: the fused engine --------------------------------------------------------------------
def run_fused(
    spark: SparkSession | None, dataset: gen.Dataset, checks: Iterable[BenchCheck], engine: str = "spark"
) -> dict[str, Any]:
    """`dq_engine.run` on a spec holding `checks`, every batch on `engine`; returns {check id: statistic}."""
    import dq_engine

    checks = tuple(checks)
    spec = bench_checks.full_set_spec(str(dataset.orders), str(dataset.customers), checks, engine=engine)
    return engine_statistics(dq_engine.run(spec, spark=spark), [c.id for c in checks])


def engine_statistics(result: dict[str, Any], check_ids: list[str]) -> dict[str, Any]:
    """{check id: statistic} from the engine's result document (dq_engine.result); an error fails loudly."""
    values = {}
    for check_id in check_ids:
        outcome = result["checks"].get(check_id)
        if outcome is None:
            raise AssertionError(f"The engine returned no result for check {check_id!r}.")
        if outcome["status"] != "ok":
            raise AssertionError(f"The engine could not evaluate check {check_id!r}: {outcome['message']}")
        values[check_id] = outcome["statistic"]
    return values


# --- way 3: one query per rule, fresh read each time --------------------------------------------
def run_per_rule(
    spark: SparkSession, dataset: gen.Dataset, checks: Iterable[BenchCheck], timings: dict[str, float] | None = None
) -> dict[str, Any]:
    """Each check as its own query on a fresh read; returns {check id: statistic}."""
    string_columns = {
        f.name for f in spark.read.parquet(str(dataset.orders)).schema.fields if f.dataType.typeName() == "string"
    }
    values = {}
    for check in checks:
        started = time.perf_counter()
        spark.catalog.clearCache()
        spark.read.parquet(str(dataset.orders)).createOrReplaceTempView(SRC_VIEW)
        if check.target_batch:
            spark.read.parquet(str(dataset.customers)).createOrReplaceTempView(TARGET_VIEW)
        values[check.id] = spark.sql(per_rule_sql(check, string_columns)).collect()[0][0]
        if timings is not None:
            timings[check.id] = time.perf_counter() - started
    return values


def per_rule_sql(check: BenchCheck, string_columns: set[str]) -> str:
    """The check as DolphinScheduler's templates would write it (MIDDLE items view, then COUNT(*)).

    SQL text is pasted here on purpose: this is the way being measured against. Every input comes
    from bench/checks.py; identifiers are backtick-quoted and literals escaped all the same."""
    m, src = check.metric, SRC_VIEW
    kind = m["kind"]
    if kind == "row_count":
        return f"SELECT COUNT(*) AS total FROM {src}"  # noqa: S608
    if kind == "conditional_count":
        return f"SELECT COUNT(*) FROM (SELECT * FROM {src} WHERE {condition_sql(m, string_columns)}) items"  # noqa: S608
    if kind == "aggregate":
        return f"SELECT {m['function']}({sql_ident(m['column'])}) FROM {src}"  # noqa: S608
    if kind == "duplicate_values":
        col = sql_ident(m["column"])
        return f"SELECT COUNT(*) FROM (SELECT {col} FROM {src} GROUP BY {col} HAVING count(*) > 1) duplicate_items"  # noqa: S608
    if kind == "unmatched_rows":
        on = " AND ".join(
            f"s.{sql_ident(p['source'])} {p['operator']} t.{sql_ident(p['target'])}" for p in m["mappings"]
        )
        missing = " AND ".join(f"t.{sql_ident(p['target'])} IS NULL" for p in m["mappings"])
        joined = f"SELECT s.* FROM {src} s LEFT JOIN {TARGET_VIEW} t ON {on} WHERE {missing}"  # noqa: S608
        return f"SELECT COUNT(*) FROM ({joined}) miss_items"  # noqa: S608
    if kind == "custom_sql":
        return m["sql"].replace("${src_table}", src)
    raise ValueError(f"No per-rule SQL for metric kind {kind!r}; add it to bench/run.py:per_rule_sql.")


def condition_sql(m: dict[str, Any], string_columns: set[str]) -> str:
    col, predicate = sql_ident(m["column"]), m["predicate"]
    if predicate == "null_or_empty":
        return f"({col} IS NULL OR {col} = '')" if m["column"] in string_columns else f"{col} IS NULL"
    if predicate == "regexp_mismatch":
        return f"{col} NOT RLIKE {sql_literal(m['pattern'])}"
    if predicate == "not_in_list_or_null":
        return f"({col} NOT IN ({', '.join(sql_literal(v) for v in m['values'])}) OR {col} IS NULL)"
    if predicate == "length_compare":
        return f"length({col}) {m['operator']} {int(m['length'])}"
    if predicate == "time_between":
        fmt = sql_literal(m.get("format") or DS_TIME_FORMAT)
        value = f"to_unix_timestamp({col}, {fmt})"
        return (
            f"({value} - to_unix_timestamp({sql_literal(m['end'])}, {fmt}) <= 0) AND "
            f"({value} - to_unix_timestamp({sql_literal(m['begin'])}, {fmt}) >= 0)"
        )
    if predicate == "outside_range":
        bounds = [
            f"{col} < {m['min']!r}" if m.get("min") is not None else None,
            f"{col} > {m['max']!r}" if m.get("max") is not None else None,
        ]
        return f"{col} IS NOT NULL AND ({' OR '.join(b for b in bounds if b)})"
    raise ValueError(f"No per-rule SQL for predicate {predicate!r}.")


def sql_ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def sql_literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return repr(value)


# --- correctness --------------------------------------------------------------------------------
def same_value(a: Any, b: Any) -> bool:
    """Counts must be equal; decimals/floats (avg) equal to 1e-9 relative (summation order differs)."""
    if a is None or b is None:
        return a is None and b is None
    x, y = Decimal(str(a)), Decimal(str(b))
    return x == y or abs(x - y) <= Decimal("1e-9") * max(abs(x), abs(y))


def mismatches(checks: Iterable[BenchCheck], planted: dict[str, Any], **ways: dict[str, Any]) -> list[str]:
    """Lines naming every check where some way disagrees with the planted truth."""
    problems = []
    for check in checks:
        truth = planted[check.planted]
        for way, values in ways.items():
            if check.id in values and not same_value(values[check.id], truth):
                problems.append(f"{check.id}: {way} = {values[check.id]!r}, planted = {truth!r}")
    return problems


def assert_agree(checks: Iterable[BenchCheck], planted: dict[str, Any], **ways: dict[str, Any]) -> None:
    problems = mismatches(checks, planted, **ways)
    if problems:
        raise AssertionError("The ways disagree (no timing is worth reporting):\n  " + "\n  ".join(problems))


# --- the benchmark ------------------------------------------------------------------------------
@dataclass
class Way:
    label: str
    action: Callable[[], Any]
    seconds: list[float] = field(default_factory=list)
    values: list[Any] = field(default_factory=list)

    def run_once(self) -> None:
        started = time.perf_counter()
        self.values.append(self.action())
        self.seconds.append(time.perf_counter() - started)

    @property
    def best(self) -> float:
        return min(self.seconds)


def benchmark(
    spark: SparkSession,
    dataset: gen.Dataset,
    repeat: int = 1,
    breakdown: bool = False,
    log: Callable[[str], None] = print,
) -> dict[str, float]:
    """Time the ways, verify their numbers, print the table; returns {way: ratio to the scan floor}."""
    row_level = bench_checks.row_level_checks()
    rule_seconds: dict[str, float] = {}
    ways = {
        "floor": Way("scan floor (read touched columns, discard)", lambda: scan_floor(spark, dataset)),
        "row_level": Way(
            f"fused engine, row-level subset ({len(row_level)} checks)", lambda: run_fused(spark, dataset, row_level)
        ),
        "full_set": Way(f"fused engine, full set ({len(CHECKS)} checks)", lambda: run_fused(spark, dataset, CHECKS)),
        "per_rule": Way(
            f"one query per rule, fresh reads ({len(CHECKS)} queries)",
            lambda: run_per_rule(spark, dataset, CHECKS, rule_seconds),
        ),
        # The embedded engine on the same files (no JVM): its time over Spark's scan floor.
        "embedded_full_set": Way(
            f"DuckDB engine, full set ({len(CHECKS)} checks)",
            lambda: run_fused(None, dataset, CHECKS, engine="duckdb"),
        ),
        # The DuckDB engine's own limit: the same 20 statistics in the fastest SQL written by hand
        # for DuckDB (bench/hand.py); `duckdb_vs_hand` = the engine's time over this one's.
        "duckdb_hand": Way(
            f"hand-written DuckDB SQL, full set ({len(CHECKS)} statistics)", lambda: hand.run_duckdb_hand(dataset)
        ),
    }
    log(f"warming up on {dataset.rows:,} rows ...")
    load_before = os.getloadavg()[0]
    warm_up(spark, dataset)
    for attempt in range(repeat):
        for name, way in ways.items():
            way.run_once()
            log(f"  [{attempt + 1}/{repeat}] {name}: {way.seconds[-1]:.2f} s")
    for attempt in range(repeat):
        assert_agree(
            CHECKS,
            dataset.planted,
            per_rule=ways["per_rule"].values[attempt],
            full_set=ways["full_set"].values[attempt],
            row_level=ways["row_level"].values[attempt],
            embedded_full_set=ways["embedded_full_set"].values[attempt],
            duckdb_hand=ways["duckdb_hand"].values[attempt],
        )
    log(f"all {len(CHECKS)} statistics agree across the ways and with the planted counts")
    if breakdown:
        _print_breakdown(spark, dataset, ways["floor"].best, rule_seconds, log)
    ratios = {name: way.best / ways["floor"].best for name, way in ways.items()}
    ratios["duckdb_vs_hand"] = ways["embedded_full_set"].best / ways["duckdb_hand"].best
    _print_table(dataset, repeat, ways, ratios, spark, log, (load_before, os.getloadavg()[0]))
    return ratios


def _print_table(dataset, repeat, ways, ratios, spark, log, load: tuple[float, float]) -> None:
    log("")
    log(
        f"rows={dataset.rows:,}  master={spark.sparkContext.master}  cpus={os.cpu_count()}  "
        f"repeat={repeat} (min reported)  spark={spark.version}"
    )
    # Other processes on the machine skew every number: say how busy it was (1-minute load average).
    log(f"load average (1 min): {load[0]:.2f} before the warm-up, {load[1]:.2f} at the end (the bench adds ~2)")
    log(f"{'way':<58}{'seconds':>9}{'x floor':>9}")
    for name, way in ways.items():
        log(f"{way.label:<58}{way.best:>9.2f}{ratios[name]:>9.2f}")
    log(
        f"per rule / full set = {ways['per_rule'].best / ways['full_set'].best:.2f}x "
        f"(target >= 2); row-level / floor = {ratios['row_level']:.2f} (target <= 1.3); "
        f"DuckDB full set / Spark floor = {ratios['embedded_full_set']:.2f} (target <= 2); "
        f"DuckDB engine / hand-written DuckDB SQL = {ratios['duckdb_vs_hand']:.2f} (target <= 1.1)"
    )


def _print_breakdown(spark, dataset, floor: float, rule_seconds: dict[str, float], log) -> None:
    """Where the time goes: one extra fused run of each subset, its Spark SQL executions by the
    engine line that started them, then each per-rule query. The rest is driver time (planning,
    analysis, Python)."""
    import dq_engine

    for label, checks in (("row-level subset", bench_checks.row_level_checks()), ("full set", CHECKS)):
        spec = bench_checks.full_set_spec(str(dataset.orders), str(dataset.customers), checks)
        started = time.perf_counter()
        document = dq_engine.run(spec, spark=spark)
        total = time.perf_counter() - started
        steps = engine_steps(spark, document["plan"]["job_group"])
        log("")
        log(f"{'fused ' + label + ' (extra run), by engine step':<58}{'queries':>8}{'seconds':>9}{'x floor':>9}")
        for step, (queries, seconds) in steps.items():
            log(f"{step:<58}{queries:>8}{seconds:>9.2f}{seconds / floor:>9.2f}")
        outside = total - sum(seconds for _, seconds in steps.values())
        log(f"{'driver time outside Spark queries':<58}{'':>8}{outside:>9.2f}{outside / floor:>9.2f}")
        log(f"{'total':<58}{'':>8}{total:>9.2f}{total / floor:>9.2f}")
    log("")
    log(f"{'one query per rule (last repetition)':<58}{'':>8}{'seconds':>9}{'x floor':>9}")
    for check_id, seconds in rule_seconds.items():
        log(f"{check_id:<58}{'':>8}{seconds:>9.2f}{seconds / floor:>9.2f}")


def engine_steps(spark: SparkSession, group: str) -> dict[str, tuple[int, float]]:
    """{step: (SQL executions, wall seconds)} for the Spark SQL executions that ran jobs in `group`.

    A step is named after the Python line whose action started it ("aggregate_pass.py:63 aggregate_pass
    (collect)"), or after the JVM action when PySpark recorded no Python call site (e.g. `count`).
    Read from Spark's status stores, so it needs no change to the engine."""
    jvm = spark.sparkContext._jvm
    as_java = jvm.scala.jdk.javaapi.CollectionConverters.asJava
    job_list = spark.sparkContext._jsc.sc().statusStore().jobsList(None)
    names = {}
    for index in range(job_list.size()):
        job = job_list.apply(index)
        if job.jobGroup().isDefined() and job.jobGroup().get() == group:
            names[job.jobId()] = job.name()
    executions = spark._jsparkSession.sharedState().statusStore().executionsList()
    steps: dict[str, tuple[int, float]] = {}
    for index in range(executions.size()):
        execution = executions.apply(index)
        jobs = [job_id for job_id in as_java(execution.jobs()).keySet() if job_id in names]
        if not jobs or not execution.completionTime().isDefined():
            continue
        seconds = (execution.completionTime().get().getTime() - execution.submissionTime()) / 1000
        step = _step_name([names[job_id] for job_id in jobs], execution.details())
        count, total = steps.get(step, (0, 0.0))
        steps[step] = (count + 1, total + seconds)
    return dict(sorted(steps.items(), key=lambda item: -item[1][1]))


def _step_name(job_names: list[str], details: str) -> str:
    """'collect at /x/dq_engine/spark/aggregate_pass.py:63' -> 'aggregate_pass.py:63 aggregate_pass (collect)'."""
    for name in job_names:
        match = re.fullmatch(r"(\w+) at (.+\.py):(\d+)", name)
        if match:
            action, path, line = match.group(1), match.group(2), int(match.group(3))
            return f"{Path(path).name}:{line} {_function_at(path, line)} ({action})"
    action = re.search(r"\.(\w+)\(", details.splitlines()[0] if details else "")
    return f"Dataset.{action.group(1) if action else '?'} (no Python call site recorded)"


@functools.cache
def _functions_in(path: str) -> list[tuple[int, int, str]]:
    try:
        tree = ast.parse(Path(path).read_text())
    except (OSError, SyntaxError):
        return []
    return [
        (node.lineno, node.end_lineno or node.lineno, node.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _function_at(path: str, line: int) -> str:
    holding = [(first, name) for first, last, name in _functions_in(path) if first <= line <= last]
    return max(holding)[1] if holding else "?"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fused engine vs one query per rule vs the scan floor.")
    parser.add_argument("--rows", type=int, default=int(os.environ.get("BENCH_ROWS", "5000000")))
    parser.add_argument("--dir", type=Path, default=Path(os.environ.get("BENCH_DIR", gen.DEFAULT_DIR)))
    parser.add_argument(
        "--repeat",
        type=int,
        default=int(os.environ["BENCH_REPEAT"]) if os.environ.get("BENCH_REPEAT") else None,
        help="runs of each way, interleaved; the minimum is reported (default 3: one run's noise on a shared machine moves a ratio by 10-20%%)",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        default=os.environ.get("BENCH_BREAKDOWN") == "1",
        help="also list the fused full set's Spark queries by engine step, and each per-rule query's time",
    )
    parser.add_argument("--master", default=os.environ.get("BENCH_MASTER", "local[2]"))
    parser.add_argument("--driver-memory", default=os.environ.get("BENCH_DRIVER_MEMORY", "8g"))
    args = parser.parse_args(argv)
    dataset = gen.generate(args.rows, args.dir)
    spark = bench_session(args.master, args.driver_memory)
    extra: dict[str, float] = {}
    try:
        repeat = max(1, args.repeat or 3)
        ratios = benchmark(spark, dataset, repeat=repeat, breakdown=args.breakdown)
        if os.environ.get("BENCH_PUSHDOWN", "1") != "0":
            from bench.pushdown import pushdown_benchmark

            extra.update(pushdown_benchmark(spark, dataset, repeat=repeat))
        if os.environ.get("BENCH_PROFILE", "1") != "0":
            from bench.profile import profile_benchmark

            extra.update(profile_benchmark(spark, dataset, repeat=repeat))
    finally:
        spark.stop()
    print(last_line({**ratios, **extra}))


# The keys of the last line, in order (each a ratio, 2 decimals); a way adds its key here.
LAST_LINE_KEYS = (
    "row_level",
    "full_set",
    "per_rule",
    "embedded_full_set",
    "pushdown_speedup",
    "duckdb_vs_hand",
    "pushdown_vs_hand",
    "profile_vs_summarize",
    "spark_profile",
)


def last_line(ratios: dict[str, float]) -> str:
    return " ".join(f"{key}={ratios[key]:.2f}" for key in LAST_LINE_KEYS if key in ratios)


if __name__ == "__main__":
    main()
