"""Table profiles against each engine's own floor, on the bench's orders.

- `profile_vs_summarize` = the DuckDB engine's profile of the orders (`dq_engine.profiling`, every
  row: the row guard above the table's rows) ÷ DuckDB's own `SUMMARIZE` of the same files (min,
  max, approx_unique, avg, std, q25/q50/q75, count, null share of every column, in one scan) on a
  connection of the same in-memory kind. Target ≤ 1.2: the profile is the row count from the
  Parquet footers, ONE aggregate over every column and ONE scan of `histogram()` aggregates
  (histograms, top values, e-mail shapes).
- `spark_profile` = the Spark engine's profile of the orders ÷ Spark's scan floor of the orders
  (every column read once and discarded). Target ≤ 2.0: the row count, then ONE pass of the
  engine's JVM functions over the scan's column batches (the orders are beyond the exact limit).

Both profiles' figures are checked against what the generator planted (`check_profile`) before a
time is reported; a wrong figure fails the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from bench import generate as gen

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def profile_spec(dataset: gen.Dataset, engine: str) -> dict[str, Any]:
    return {
        "source": {"kind": "file", "format": "parquet", "path": str(dataset.orders)},
        "datasource": "bench",
        "table": "orders",
        "engine": engine,
        "row_guard": dataset.rows,  # every row: the figures must equal the planted counts
    }


def run_profile(dataset: gen.Dataset, engine: str, spark: SparkSession | None = None) -> dict[str, Any]:
    from dq_engine.profiling import profile

    return profile(profile_spec(dataset, engine), spark=spark)


def summarize(dataset: gen.Dataset) -> list[tuple]:
    """DuckDB's SUMMARIZE of the orders' files, on an in-memory connection of its own."""
    import duckdb

    from dq_engine.duckdb.readers import table_function
    from dq_engine.spec import FileSource

    reading = table_function(FileSource(format="parquet", path=str(dataset.orders)))
    with duckdb.connect(":memory:") as con:
        return con.execute(f"SUMMARIZE SELECT * FROM {reading}").fetchall()  # noqa: S608 - paths as SQL literals


def orders_floor(spark: SparkSession, dataset: gen.Dataset) -> None:
    """Spark reads every column of the orders once and discards the rows."""
    spark.read.parquet(str(dataset.orders)).write.format("noop").mode("overwrite").save()


def check_profile(document: dict[str, Any], planted: dict[str, Any], rows: int) -> list[str]:
    """The profile's figures that disagree with the generator's planted counts (empty: all agree)."""
    if document.get("error"):
        return [f"the profile failed: {document['error']}"]
    columns = {c["name"]: c for c in document["columns"]}
    problems = [f"{c['name']}: {c['error']}" for c in document["columns"] if "error" in c]
    if problems:
        return problems

    def top(name: str) -> dict[str, int]:
        return {item["value"]: item["count"] for item in columns[name]["top_values"] or []}

    status, currency = top("status"), top("currency")
    email, country, amount = columns["customer_email"], columns["country_code"], columns["amount"]
    figures = {
        "rows": (document["row_count"], rows),
        "sample rows": (document["sample"]["rows"], rows),
        "order_id nulls": (columns["order_id"]["nulls"], planted["order_id_null"]),
        "customer_email nulls + empty": (email["nulls"] + email["empty"], planted["email_null_or_empty"]),
        "status nulls + unknown values": (
            columns["status"]["nulls"] + sum(status.get(s, 0) for s in gen.UNKNOWN_STATUSES),
            planted["status_not_in_list_or_null"],
        ),
        "unknown currencies": (
            sum(currency.get(c, 0) for c in gen.UNKNOWN_CURRENCIES),
            planted["currency_not_in_list_or_null"],
        ),
        "country_code nulls + empty": (country["nulls"] + country["empty"], planted["country_null_or_empty"]),
        "amount max": (Decimal(str(amount["max"])), Decimal(planted["amount_max"])),
        "quantity sum": (columns["quantity"]["sum"], planted["quantity_sum"]),
        "customer_id min": (columns["customer_id"]["min"] >= 1, True),
    }
    problems = [f"{name}: profile {got!r}, planted {want!r}" for name, (got, want) in figures.items() if got != want]
    mean, avg = Decimal(str(amount["mean"])), Decimal(planted["amount_avg"])
    if abs(mean - avg) > Decimal("0.000001") * abs(avg) + Decimal("0.0000005"):  # the plant is rounded to 6 places
        problems.append(f"amount mean: profile {mean}, planted {avg}")
    countries = planted["distinct_country_codes"]
    if abs(country["distinct"] - countries) > (0 if country["distinct_exact"] else max(1, countries // 20)):
        problems.append(f"country_code distinct: profile {country['distinct']}, planted {countries}")
    histogram = sum(amount["histogram"]["counts"])
    if histogram != rows - amount["nulls"]:
        problems.append(f"amount histogram: {histogram} values in its bins, {rows - amount['nulls']} non-NULL amounts")
    return problems


def assert_profile(document: dict[str, Any], dataset: gen.Dataset, way: str) -> None:
    problems = check_profile(document, dataset.planted, dataset.rows)
    if problems:
        raise AssertionError(f"The {way} profile disagrees with the planted counts:\n  " + "\n  ".join(problems))


def profile_benchmark(
    spark: SparkSession, dataset: gen.Dataset, repeat: int = 3, log: Callable[[str], None] = print
) -> dict[str, float]:
    """{"profile_vs_summarize", "spark_profile"}: each the minimum of `repeat` interleaved runs."""
    ways: dict[str, Callable[[], Any]] = {
        "duckdb_profile": lambda: run_profile(dataset, "duckdb"),
        "summarize": lambda: summarize(dataset),
        "spark_profile": lambda: run_profile(dataset, "spark", spark),
        "orders_floor": lambda: orders_floor(spark, dataset),
    }
    for action in ways.values():  # warm-up: code generation, the JIT, the page cache
        action()
    seconds: dict[str, list[float]] = {name: [] for name in ways}
    for attempt in range(repeat):
        for name, action in ways.items():
            started = time.perf_counter()
            answer = action()
            seconds[name].append(time.perf_counter() - started)
            if name.endswith("_profile"):
                assert_profile(answer, dataset, name.replace("_", " "))
            log(f"  [{attempt + 1}/{repeat}] {name}: {seconds[name][-1]:.2f} s")
    log(f"both profiles' figures agree with the planted counts ({dataset.rows:,} rows)")
    best = {name: min(times) for name, times in seconds.items()}
    for name, label in (
        ("duckdb_profile", "DuckDB engine's profile of the orders"),
        ("summarize", "DuckDB's SUMMARIZE of the orders"),
        ("spark_profile", "Spark engine's profile of the orders"),
        ("orders_floor", "Spark's scan floor of the orders (every column)"),
    ):
        log(f"{label:<58}{best[name]:>9.2f}")
    figures = {
        "profile_vs_summarize": best["duckdb_profile"] / best["summarize"],
        "spark_profile": best["spark_profile"] / best["orders_floor"],
    }
    log(
        f"DuckDB profile / SUMMARIZE = {figures['profile_vs_summarize']:.2f} (target <= 1.2); "
        f"Spark profile / scan floor = {figures['spark_profile']:.2f} (target <= 2.0)"
    )
    return figures
