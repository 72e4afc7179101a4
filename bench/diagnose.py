"""What a fused plan could reach: the building blocks of the full set, timed by hand (no engine).

`bench.run` times the engine as it is; this times the Spark work any fused plan for these checks
has to do, written directly, so the gap between the two is the engine's overhead, and the gap
between this and one query per rule is the most fusion can win on this machine:

- the row-level checks and aggregates as ONE aggregate pass (with and without the regexp check,
  and the regexp alone), against the scan floor;
- persisting the whole batch (what caching a Parquet batch costs) and a group-by on the cache;
- each uniqueness group-by; the accuracy join with `=` and with null-safe `<=>`; uniqueness on
  customer_id and accuracy sharing one shuffle (the grouped keys, not the rows, meet customers);
- the two custom SQL statistics.

Each block runs `--repeat` times (default 3) and reports the minimum. Same session settings and
warm-up as bench.run. Run: `BENCH_ROWS=5000000 .venv/bin/python -m bench.diagnose`.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from bench import checks as bench_checks
from bench import generate as gen
from bench import run as bench_run
from bench.checks import CHECKS

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ONE_PASS_KINDS = ("conditional_count", "row_count", "aggregate")


def one_pass_sql(checks: tuple[bench_checks.BenchCheck, ...], string_columns: set[str]) -> str:
    """One SELECT computing every given row-level check and aggregate (conditions as in bench.run)."""
    parts = ["COUNT(*)"]
    for check in checks:
        m = check.metric
        if m["kind"] == "conditional_count":
            parts.append(f"count_if({bench_run.condition_sql(m, string_columns)})")
        elif m["kind"] == "aggregate":
            parts.append(f"{m['function']}({bench_run.sql_ident(m['column'])})")
    return f"SELECT {', '.join(parts)} FROM {bench_run.SRC_VIEW}"  # noqa: S608 - built from bench/checks.py


def blocks(spark: SparkSession, dataset: gen.Dataset) -> dict[str, Callable[[], object]]:
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    def orders() -> DataFrame:
        frame = spark.read.parquet(str(dataset.orders))
        frame.createOrReplaceTempView(bench_run.SRC_VIEW)
        return frame

    def customer_keys() -> DataFrame:
        return spark.read.parquet(str(dataset.customers)).select(F.col("customer_id").alias("t"))

    strings = {f.name for f in orders().schema.fields if f.dataType.typeName() == "string"}
    one_pass = tuple(c for c in CHECKS if c.metric["kind"] in ONE_PASS_KINDS)
    regexp = tuple(c for c in one_pass if c.metric.get("predicate") == "regexp_mismatch")
    no_regexp = tuple(c for c in one_pass if c not in regexp)

    def query(sql_of: Callable[[], str]) -> Callable[[], object]:
        return lambda: (orders(), spark.sql(sql_of()).collect())

    def duplicates(frame: DataFrame, column: str) -> object:
        grouped = frame.where(F.col(column).isNotNull()).groupBy(column).agg(F.count(F.lit(1)).alias("n"))
        return grouped.where("n > 1").agg(F.count(F.lit(1)), F.sum("n")).collect()

    def persisted() -> object:
        frame = orders().persist(StorageLevel.MEMORY_AND_DISK)
        try:
            return frame.count(), duplicates(frame, "order_id")
        finally:
            frame.unpersist(blocking=True)

    def shared_customer_shuffle() -> object:
        grouped = orders().groupBy(F.col("customer_id").alias("k")).agg(F.count(F.lit(1)).alias("n"))
        joined = grouped.join(F.broadcast(customer_keys()), F.col("k") == F.col("t"), "left")
        unmatched = F.when(F.col("t").isNull() & F.col("k").isNotNull(), F.col("n"))
        return joined.agg(F.count_if((F.col("n") > 1) & F.col("k").isNotNull()), F.sum(unmatched)).collect()

    sqls = [
        c.metric["sql"].replace("${src_table}", bench_run.SRC_VIEW) for c in CHECKS if c.metric["kind"] == "custom_sql"
    ]
    return {
        "scan floor": lambda: bench_run.scan_floor(spark, dataset),
        f"one pass: {len(one_pass)} row-level checks + aggregates": query(lambda: one_pass_sql(one_pass, strings)),
        f"one pass without the regexp check ({len(no_regexp)})": query(lambda: one_pass_sql(no_regexp, strings)),
        "one pass: the regexp check alone": query(lambda: one_pass_sql(regexp, strings)),
        "persist(MEMORY_AND_DISK) + count + group-by order_id on it": persisted,
        "group-by order_id (uniqueness)": lambda: duplicates(orders(), "order_id"),
        "group-by customer_id (uniqueness)": lambda: duplicates(orders(), "customer_id"),
        "accuracy: left-anti join on =": lambda: (
            orders().join(customer_keys(), F.col("customer_id") == F.col("t"), "left_anti").count()
        ),
        "accuracy: left-anti join on <=> (null-safe)": lambda: (
            orders().join(customer_keys(), F.col("customer_id").eqNullSafe(F.col("t")), "left_anti").count()
        ),
        "uniqueness(customer_id) + accuracy, one shuffle": shared_customer_shuffle,
        "custom SQL x2": lambda: (orders(), [spark.sql(sql).collect() for sql in sqls]),
    }


def measure(spark: SparkSession, dataset: gen.Dataset, repeat: int, log=print) -> dict[str, float]:
    timings: dict[str, list[float]] = {}
    work = blocks(spark, dataset)
    for _ in range(repeat):  # interleaved, so a burst of load elsewhere hits one round, not one block
        for name, action in work.items():
            started = time.perf_counter()
            action()
            timings.setdefault(name, []).append(time.perf_counter() - started)
    best = {name: min(seconds) for name, seconds in timings.items()}
    floor = best["scan floor"]
    log(f"{'block (min of ' + str(repeat) + ')':<62}{'seconds':>9}{'x floor':>9}")
    for name, seconds in best.items():
        log(f"{name:<62}{seconds:>9.2f}{seconds / floor:>9.2f}")
    one_pass = next(v for k, v in best.items() if k.startswith("one pass: ") and "alone" not in k)
    rest = best["group-by order_id (uniqueness)"] + best["custom SQL x2"]
    plans = {
        "fused plan, no cache, separate join (=)": one_pass
        + rest
        + best["group-by customer_id (uniqueness)"]
        + best["accuracy: left-anti join on ="],
        "fused plan, no cache, customer_id shuffle shared": one_pass
        + rest
        + best["uniqueness(customer_id) + accuracy, one shuffle"],
    }
    log("")
    for name, seconds in plans.items():
        log(f"{name:<62}{seconds:>9.2f}{seconds / floor:>9.2f}")
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Time the building blocks of a fused plan by hand.")
    parser.add_argument("--rows", type=int, default=int(os.environ.get("BENCH_ROWS", "5000000")))
    parser.add_argument("--dir", type=Path, default=Path(os.environ.get("BENCH_DIR", gen.DEFAULT_DIR)))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    dataset = gen.generate(args.rows, args.dir)
    spark = bench_run.bench_session()
    try:
        bench_run.warm_up(spark, dataset)
        print(f"rows={dataset.rows:,}  master={spark.sparkContext.master}  load={os.getloadavg()[0]:.2f}")
        measure(spark, dataset, max(1, args.repeat))
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
