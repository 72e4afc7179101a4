"""Engine test fixtures: ONE SparkSession for the whole test run, small tables with planted defects.

The `orders` table (8 rows) plants NULLs, empty strings, unicode values, a unicode column name,
duplicates, unparseable dates and out-of-range amounts; `customers` is the accuracy target. The
same rows are served as Parquet, CSV, PostgreSQL and MariaDB tables, and every statistic the tests
expect is computed by hand in test_metrics.py from these rows.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from conftest import MYSQL, PG

NOTE = "Ünïcode note"
ORDER_COLUMNS = ["order_id", "customer_email", "status", "amount", "created_at", "paid_on", NOTE]
ORDERS = [
    (1, "a@example.com", "paid", Decimal("10.50"), datetime(2026, 11, 1, 10, 0), "01/11/2026 10:00", "ok"),
    (2, None, "paid", Decimal("-3.00"), datetime(2026, 11, 2, 11, 0), "02/11/2026 11:00", "négatif"),
    (3, "", "void", Decimal("7.25"), datetime(2026, 11, 3, 12, 0), "garbage", None),
    (4, "b@example", "paid", Decimal("120.00"), datetime(2026, 11, 4, 13, 0), "04/11/2026 13:00", "Zoë"),
    (5, "a@example.com", "refunded", None, None, None, ""),
    (
        6,
        "c@example.com",
        "PAID",
        Decimal("55.00"),
        datetime(2026, 10, 31, 23, 59, 59),
        "31/10/2026 23:59",
        "über long note",
    ),
    (7, "b@example", None, Decimal("0.00"), datetime(2026, 11, 30, 23, 59, 59), "30/11/2026 23:59", "x"),
    (8, "d@example.com", "paid", Decimal("99.99"), datetime(2026, 12, 1, 0, 0), "01/12/2026 00:00", "ok"),
]
ORDERS_FILTER = "order_id <= 7"  # the batch the statistics are computed on: rows 1..7
CUSTOMER_COLUMNS = ["email", "active"]
CUSTOMERS = [("a@example.com", 1), ("c@example.com", 1), (None, 1), ("b@example", 0)]
CUSTOMERS_FILTER = "active = 1"

# The test servers' addresses come from the root conftest (DQ_TEST_PG_* / DQ_TEST_MYSQL_*).
SCHEMA = "dq_engine_test"  # PostgreSQL schema and MariaDB database, created and dropped here


@pytest.fixture(scope="session")
def spark():
    """The one SparkSession of the test run: local[2], UI off, JDBC jars."""
    from dq_engine.spark.session import build_spark

    session = build_spark(master="local[2]", app_name="dq-engine-tests")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("dq_engine_data")


@pytest.fixture(scope="session")
def parquet_sources(data_dir) -> dict[str, dict[str, Any]]:
    """orders/ as a directory of two part files (pyarrow), customers as one file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    orders_dir = data_dir / "parquet" / "orders"
    orders_dir.mkdir(parents=True)
    schema = pa.schema(
        [
            ("order_id", pa.int32()),
            ("customer_email", pa.string()),
            ("status", pa.string()),
            ("amount", pa.decimal128(10, 2)),
            ("created_at", pa.timestamp("us")),
            ("paid_on", pa.string()),
            (NOTE, pa.string()),
        ]
    )
    columns = list(zip(*ORDERS, strict=True))
    table = pa.table([pa.array(c, type=f.type) for c, f in zip(columns, schema, strict=True)], schema=schema)
    pq.write_table(table.slice(0, 4), orders_dir / "part-0.parquet")
    pq.write_table(table.slice(4), orders_dir / "part-1.parquet")
    customers = data_dir / "parquet" / "customers.parquet"
    pq.write_table(
        pa.table({"email": [c[0] for c in CUSTOMERS], "active": pa.array([c[1] for c in CUSTOMERS], pa.int32())}),
        customers,
    )
    return {
        "orders": {"kind": "file", "format": "parquet", "path": str(orders_dir)},
        "customers": {"kind": "file", "format": "parquet", "path": str(customers)},
    }


@pytest.fixture(scope="session")
def csv_sources(data_dir) -> dict[str, dict[str, Any]]:
    """CSV with a header; NULL is written as NULL and '' as "" (the source's nullValue option)."""
    base = data_dir / "csv"
    base.mkdir()
    _write_csv(base / "orders.csv", ORDER_COLUMNS, ORDERS)
    _write_csv(base / "customers.csv", CUSTOMER_COLUMNS, CUSTOMERS)
    options = {"nullValue": "NULL"}
    return {
        "orders": {"kind": "file", "format": "csv", "path": str(base / "orders.csv"), "options": options},
        "customers": {"kind": "file", "format": "csv", "path": str(base / "customers.csv"), "options": options},
    }


def _write_csv(path: Path, header: list[str], rows: list[tuple]) -> None:
    lines = [",".join(header)] + [",".join(_csv_field(v) for v in row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _csv_field(value: Any) -> str:
    """NULL for None; "" for the empty string (Spark reads an unquoted empty field as NULL)."""
    if value is None:
        return "NULL"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    text = str(value)
    if text == "" or any(ch in text for ch in ',"\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


@pytest.fixture(scope="session")
def pg_sources(shared_servers_lock) -> dict[str, dict[str, Any]]:
    """Schema dq_engine_test in the PostgreSQL test database (trust auth), dropped at the end."""
    import psycopg

    try:
        conn = psycopg.connect(**PG, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(
            f"PostgreSQL unreachable at {PG['host']}:{PG['port']} ({exc}); run scripts/services.sh.", pytrace=False
        )
    conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    conn.execute(f"CREATE SCHEMA {SCHEMA}")
    conn.execute(
        f"CREATE TABLE {SCHEMA}.orders (order_id integer, customer_email text, status text, amount numeric(10,2), "
        f'created_at timestamp, paid_on varchar(20), "{NOTE}" varchar(40))'
    )
    with conn.cursor() as cur:
        cur.executemany(f"INSERT INTO {SCHEMA}.orders VALUES (%s, %s, %s, %s, %s, %s, %s)", ORDERS)
        conn.execute(f"CREATE TABLE {SCHEMA}.customers (email text, active integer)")
        cur.executemany(f"INSERT INTO {SCHEMA}.customers VALUES (%s, %s)", CUSTOMERS)
    url = f"jdbc:postgresql://{PG['host']}:{PG['port']}/{PG['dbname']}"
    jdbc = {"kind": "jdbc", "url": url, "driver": "org.postgresql.Driver", "user": PG["user"]}
    yield {"orders": {**jdbc, "table": f"{SCHEMA}.orders"}, "customers": {**jdbc, "table": f"{SCHEMA}.customers"}}
    conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    conn.close()


@pytest.fixture(scope="session")
def mariadb_sources(shared_servers_lock) -> dict[str, dict[str, Any]]:
    """Database dq_engine_test on the MariaDB test server (root, no password), dropped at the end."""
    import pymysql

    try:
        conn = pymysql.connect(**MYSQL, autocommit=True, connect_timeout=5, charset="utf8mb4")
    except pymysql.MySQLError as exc:
        pytest.fail(
            f"MariaDB unreachable at {MYSQL['host']}:{MYSQL['port']} ({exc}); run scripts/services.sh.", pytrace=False
        )
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {SCHEMA}")
        cur.execute(f"CREATE DATABASE {SCHEMA} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        cur.execute(
            f"CREATE TABLE {SCHEMA}.orders (order_id INT, customer_email VARCHAR(100), status VARCHAR(20), "
            f"amount DECIMAL(10,2), created_at DATETIME, paid_on VARCHAR(20), `{NOTE}` VARCHAR(40))"
        )
        cur.executemany(f"INSERT INTO {SCHEMA}.orders VALUES (%s, %s, %s, %s, %s, %s, %s)", ORDERS)
        cur.execute(f"CREATE TABLE {SCHEMA}.customers (email VARCHAR(100), active INT)")
        cur.executemany(f"INSERT INTO {SCHEMA}.customers VALUES (%s, %s)", CUSTOMERS)
    url = f"jdbc:mariadb://{MYSQL['host']}:{MYSQL['port']}/{SCHEMA}"
    jdbc = {"kind": "jdbc", "url": url, "driver": "org.mariadb.jdbc.Driver", "user": MYSQL["user"]}
    yield {"orders": {**jdbc, "table": f"{SCHEMA}.orders"}, "customers": {**jdbc, "table": f"{SCHEMA}.customers"}}
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {SCHEMA}")
    conn.close()


def make_spec(sources: dict[str, dict[str, Any]], checks: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """A spec with batch `b` = orders filtered to rows 1..7 and batch `t` = active customers."""
    return {
        "run_id": extra.pop("run_id", f"test-{uuid.uuid4().hex[:6]}"),
        "sources": {"orders": sources["orders"], "customers": sources["customers"]},
        "batches": {
            "b": {"source": "orders", "filter": extra.pop("filter", ORDERS_FILTER)},
            "t": {"source": "customers", "filter": CUSTOMERS_FILTER},
        },
        "checks": checks,
        **extra,
    }


def check(check_id: str, kind: str, target: str | None = None, error_rows: bool = False, **fields: Any) -> dict:
    """A check on batch b; `kind` is a metric kind or a conditional_count predicate."""
    from dq_engine.vocabulary import PREDICATES

    metric = {"kind": "conditional_count", "predicate": kind} if kind in PREDICATES else {"kind": kind}
    return {
        "id": check_id,
        "name": f"check {check_id}",
        "batch": "b",
        "target_batch": target,
        "metric": {**metric, **fields},
        "error_rows": error_rows,
    }


def spark_work(spark, job_group: str) -> dict[str, int]:
    """Jobs a job group ran, and the rows its stages read from their sources (the input records).

    PySpark has no SparkListener, so this reads Spark's status store: the status tracker lists the
    group's jobs, and each job's stages report how many records they read from a data source (a
    stage that reads a cached batch or a shuffle, or that was skipped, reads none from the source).
    """
    tracker = spark.sparkContext.statusTracker()
    store = spark.sparkContext._jsc.sc().statusStore()
    jobs = list(tracker.getJobIdsForGroup(job_group))
    records = 0
    for job in jobs:
        for stage in tracker.getJobInfo(job).stageIds:
            records += int(store.lastStageAttempt(stage).inputRecords())
    return {"jobs": len(jobs), "input_records": records}
