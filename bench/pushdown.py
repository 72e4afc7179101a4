"""Pushdown against Spark on the same table: the bench's orders loaded into PostgreSQL, the
row-level set computed by PostgreSQL itself (the pushdown engine) and by the Spark engine reading
the table through JDBC (partitioned by `order_id`, which an index leads: dq_engine/databases/partitions.py).

`pushdown_speedup` = Spark engine's time ÷ pushdown's time, each the minimum of the repeats;
`pushdown_vs_hand` = pushdown's time ÷ that of ONE hand-written PostgreSQL query for the same 12
statistics (bench/hand.py), pushdown's own limit. Every way's statistics must equal the counts the
generator planted, or the run fails.

The table is `dq_bench.orders_<rows>` in the PostgreSQL database given by BENCH_PG_* (host, port,
user, password, database; the DQ_TEST_PG_* test server by default), loaded once with COPY from
the generated Parquet (pyarrow → CSV → psycopg's COPY FROM STDIN) and reused while its comment
names the same generator version, seed and row count.
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bench import checks as bench_checks
from bench import generate as gen
from bench import hand

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SCHEMA = "dq_bench"
COLUMNS = (
    ("order_id", "bigint"),
    ("customer_id", "bigint"),
    ("customer_email", "text"),
    ("status", "text"),
    ("currency", "text"),
    ("country_code", "text"),
    ("amount", "numeric(12,2)"),
    ("quantity", "integer"),
    ("created_at", "timestamp"),
)


def pg_params() -> dict[str, Any]:
    env = os.environ.get
    return {
        "host": env("BENCH_PG_HOST", env("DQ_TEST_PG_HOST", "127.0.0.1")),
        "port": int(env("BENCH_PG_PORT", env("DQ_TEST_PG_PORT", "5432"))),
        "user": env("BENCH_PG_USER", env("DQ_TEST_PG_USER", "postgres")),
        "password": env("BENCH_PG_PASSWORD", env("DQ_TEST_PG_PASSWORD", "")),
        "dbname": env("BENCH_PG_DB", env("DQ_TEST_PG_DB", "test")),
    }


def load_orders(dataset: gen.Dataset, log: Callable[[str], None] = print) -> str:
    """`dq_bench.orders_<rows>` holding the dataset's orders (loaded now unless already there)."""
    import psycopg
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    table = f"{SCHEMA}.orders_{dataset.rows}"
    stamp = f"dq-bench generator={gen.GENERATOR_VERSION} seed={dataset.manifest.get('seed')} rows={dataset.rows}"
    with psycopg.connect(**pg_params(), autocommit=True) as conn:
        found = conn.execute("SELECT obj_description(to_regclass(%s), 'pg_class')", (table,)).fetchone()
        if found and found[0] == stamp:
            return table
        log(f"loading {dataset.rows:,} orders into PostgreSQL {table} ...")
        started = time.perf_counter()
        conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute(f"CREATE TABLE {table} ({', '.join(f'{n} {t}' for n, t in COLUMNS)})")
        names = [n for n, _ in COLUMNS]
        with conn.cursor() as cur:
            for part in sorted(dataset.orders.glob("part-*.parquet")):
                buffer = io.BytesIO()
                pa_csv.write_csv(pq.read_table(part, columns=names), buffer)
                with cur.copy(f"COPY {table} ({', '.join(names)}) FROM STDIN (FORMAT csv, HEADER true)") as copy:
                    copy.write(buffer.getvalue())
        conn.execute(f"CREATE INDEX ON {table} (order_id)")
        conn.execute(f"ANALYZE {table}")
        conn.execute(f"COMMENT ON TABLE {table} IS '{stamp}'")
        log(f"  loaded in {time.perf_counter() - started:.1f} s")
    return table


def row_level_spec(
    table: str, engine: str, checks: tuple[bench_checks.BenchCheck, ...] | None = None
) -> dict[str, Any]:
    params = pg_params()
    spec = bench_checks.full_set_spec("unused", "unused", checks or bench_checks.row_level_checks())
    spec["sources"]["orders"] = {
        "kind": "jdbc",
        "url": f"jdbc:postgresql://{params['host']}:{params['port']}/{params['dbname']}",
        "driver": "org.postgresql.Driver",
        "table": table,
        "user": params["user"],
        "password_secret": "BENCH_PG_PASSWORD" if params["password"] else None,
        "options": {},
    }
    for batch in spec["batches"].values():
        batch["engine"] = engine
    return spec


# The row-level set, and the same without its regexp check: PostgreSQL's regex engine costs about
# 1 us of CPU a value here (its lazy DFA is rebuilt on every call), more than the other ten checks
# together, where Spark runs the pattern through the precompiled automaton. The second figure shows
# what the rest of the set gains by pushdown; only the first is `pushdown_speedup`.
REGEXP_CHECKS = ("email_regexp",)


def pushdown_benchmark(
    spark: SparkSession, dataset: gen.Dataset, repeat: int = 3, log: Callable[[str], None] = print
) -> dict[str, float]:
    """{"pushdown_speedup": Spark engine ÷ pushdown on PostgreSQL, "pushdown_vs_hand": pushdown ÷ one
    hand-written query}, both on the row-level set; prints the times (and those of the set without
    its regexp check)."""
    import dq_engine
    from bench.run import assert_agree, engine_statistics

    table = load_orders(dataset, log)
    sets = {
        "row-level subset": bench_checks.row_level_checks(),
        "row-level subset without the regexp": tuple(
            c for c in bench_checks.row_level_checks() if c.id not in REGEXP_CHECKS
        ),
    }
    secrets = {"BENCH_PG_PASSWORD": pg_params()["password"]}
    ways = [(name, engine) for name in sets for engine in ("pushdown", "spark")]
    seconds: dict[tuple[str, str], list[float]] = {way: [] for way in ways}
    values: dict[tuple[str, str], Any] = {}
    # Pushdown's own limit: the row-level set as ONE query written by hand (bench/hand.py).
    hand_way = ("row-level subset", "hand")
    seconds[hand_way] = []
    for name, engine in ways[:2]:  # warm-up: Spark's code generation, PostgreSQL's buffers
        dq_engine.run(row_level_spec(table, engine, sets[name]), secrets, spark=spark)
    hand.run_pg_hand(table, pg_params())
    for attempt in range(repeat):
        for name, engine in [*ways[:1], hand_way, *ways[1:]]:
            started = time.perf_counter()
            if engine == "hand":
                values[hand_way] = hand.run_pg_hand(table, pg_params())
            else:
                document = dq_engine.run(row_level_spec(table, engine, sets[name]), secrets, spark=spark)
                values[(name, engine)] = engine_statistics(document, [c.id for c in sets[name]])
            seconds[(name, engine)].append(time.perf_counter() - started)
            log(f"  [{attempt + 1}/{repeat}] {engine} on PostgreSQL, {name}: {seconds[(name, engine)][-1]:.2f} s")
    for name, checks in sets.items():
        assert_agree(checks, dataset.planted, pushdown=values[(name, "pushdown")], spark_jdbc=values[(name, "spark")])
    assert_agree(sets["row-level subset"], dataset.planted, pg_hand=values[hand_way])
    if sorted(values[hand_way]) != sorted(c.id for c in sets["row-level subset"]):
        raise AssertionError("The hand-written PostgreSQL query does not answer the row-level set.")
    best = {way: min(times) for way, times in seconds.items()}
    speedups = {}
    for name in sets:
        log(f"{'pushdown into PostgreSQL, ' + name:<58}{best[(name, 'pushdown')]:>9.2f}")
        log(f"{'Spark engine through JDBC, ' + name:<58}{best[(name, 'spark')]:>9.2f}")
        speedups[name] = best[(name, "spark")] / best[(name, "pushdown")]
    log(f"{'one hand-written PostgreSQL query, row-level subset':<58}{best[hand_way]:>9.2f}")
    speedup = speedups["row-level subset"]
    vs_hand = best[("row-level subset", "pushdown")] / best[hand_way]
    log(f"Spark engine / pushdown = {speedup:.2f}x (no target: see bench/README.md)")
    log(f"Spark engine / pushdown without the regexp check = {speedups['row-level subset without the regexp']:.2f}x")
    log(f"pushdown / hand-written PostgreSQL query = {vs_hand:.2f} (target <= 1.1)")
    return {"pushdown_speedup": speedup, "pushdown_vs_hand": vs_hand}


def main() -> None:
    """`python -m bench.pushdown`: only this comparison (BENCH_ROWS, BENCH_DIR, BENCH_REPEAT)."""
    from bench.run import bench_session

    dataset = gen.generate(int(os.environ.get("BENCH_ROWS", "5000000")), gen.DEFAULT_DIR)
    spark = bench_session(os.environ.get("BENCH_MASTER", "local[2]"), os.environ.get("BENCH_DRIVER_MEMORY", "8g"))
    try:
        figures = pushdown_benchmark(spark, dataset, repeat=int(os.environ.get("BENCH_REPEAT", "3")))
    finally:
        spark.stop()
    print(" ".join(f"{key}={value:.2f}" for key, value in figures.items()))


if __name__ == "__main__":
    main()
