"""What a user sees, on every source and every engine that reads it, against plain Python.

One mixed run per (source, engine): every built-in rule template, a check.yaml rule set and a
schema contract, on three batches of the same table (all rows, some rows, and a filter that keeps
none), in ONE `dq_engine.run(spec)` call, as the platform sends a run. Every statistic, status and
error-row set is compared with a truth computed here in plain Python over the fixture rows (the
Python list ROWS): counts with comprehensions, regular expressions with `re` (patterns that mean
the same in Java), lengths with `len`, standard deviation and median with `statistics`.

The rows hold what breaks engines: an empty batch beside non-empty ones, all-NULL columns, a
boolean column, integer standard deviation, dates and timestamps as range bounds, unicode
('É' / 'é', emoji), trailing spaces ('paid ' vs 'paid') and case variants ('PAID' vs 'paid').
Text compares as Spark compares it: exactly (case-sensitive, 'x ' != 'x'), on every engine and
on MariaDB with its default case-insensitive collation (utf8mb4_general_ci) too.

A numeric aggregate or a value range on a boolean column (MariaDB's tinyint(1) is one to Spark's
JDBC reader) ends `error` on every engine, with a message that says the column is boolean.
"""

from __future__ import annotations

import csv
import json
import math
import re
import statistics
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import MYSQL, PG
from dq_engine.rowchecks.spec_checks import with_rule_checks
from dq_engine.vocabulary import engine_metric

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = "dq_matrix"

# --- the rows --------------------------------------------------------------------------------------
COLUMNS = ["id", "status", "name", "amount", "qty", "flag", "day", "at", "customer_id", "none_text", "none_num"]
_ROWS = [
    # id, status, name, amount, qty, flag, day, at, customer_id
    (1, "paid", "Émile", "10.50", 1, True, date(2026, 1, 1), datetime(2026, 1, 1, 8, 0), 1),
    (2, "PAID", "émile", "20.00", 2, False, date(2026, 1, 15), datetime(2026, 1, 15, 12, 30), 2),
    (3, "paid ", "x ", "-5.00", 3, None, date(2026, 2, 1), datetime(2026, 2, 1, 0, 0), 3),
    (4, "void", "x", "0.00", 4, True, date(2025, 12, 31), datetime(2025, 12, 31, 23, 59, 59), 9),
    (5, "", "😀 fun", "99.99", 5, False, None, None, None),
    (6, None, "Zoë", None, None, True, date(2026, 3, 10), datetime(2026, 3, 10, 10, 0), 1),
    (7, "paid", "a😀b", "100.01", 7, False, date(2026, 1, 31), datetime(2026, 1, 31, 23, 59, 59), 2),
    (8, "É", None, "7.25", 7, None, date(2026, 1, 20), datetime(2026, 1, 20, 0, 0), 5),
    (9, "é", "ÉMILE", "3.00", 1, True, date(2026, 1, 10), datetime(2026, 1, 10, 0, 0), 4),
    (10, "paid", "emile", "1.00", 2, False, date(2026, 1, 5), datetime(2026, 1, 5, 6, 0), 2),
    (11, "void ", "VOID", "50.00", 3, True, date(2026, 1, 2), datetime(2026, 1, 2, 0, 0), 3),
    (12, "Paid", "", "12.00", 8, False, date(2026, 1, 3), datetime(2026, 1, 3, 0, 0), None),
]
ROWS: list[dict[str, Any]] = [
    dict(zip(COLUMNS, (*r[:3], None if r[3] is None else Decimal(r[3]), *r[4:], None, None), strict=True))
    for r in _ROWS
]
CUSTOMER_COLUMNS = ["customer_id", "code"]
CUSTOMERS = [
    {"customer_id": c, "code": code}
    for c, code in [(1, "paid"), (2, "PAID"), (3, None), (4, "void"), (5, "É"), (None, "x")]
]

# The batches of orders: (spec filter, the same filter in Python).
BATCHES: dict[str, tuple[str | None, Callable[[dict], bool]]] = {
    "all": (None, lambda r: True),
    "some": ("qty > 2", lambda r: r["qty"] is not None and r["qty"] > 2),
    "none": ("id < 0", lambda r: False),  # the empty batch
}
TARGETS: dict[str, tuple[str | None, Callable[[dict], bool]]] = {
    "customers": (None, lambda r: True),
    "customers_low": ("customer_id < 5", lambda r: r["customer_id"] is not None and r["customer_id"] < 5),
}

# --- the checks: (id, template, params, truth) ------------------------------------------------------
RULES_YAML = """checks:
  - amount >= 0
  - status in ('paid', 'void')
  - name: name_set
    fn: notNull
    fields: [name]
  - qty < 8
"""
RULES_PY = [  # each rule's failing rows (value rules pass on NULL)
    lambda r: r["amount"] is not None and r["amount"] < 0,
    lambda r: r["status"] is not None and r["status"] not in ("paid", "void"),
    lambda r: r["name"] is None,
    lambda r: r["qty"] is not None and r["qty"] >= 8,
]
CONTRACT_YAML = """columns:
  - {name: id, type: integer, nullable: false}
  - {name: status, type: string, nullable: false}
  - {name: flag, type: boolean}
  - {name: ghost, type: string}
"""


@dataclass
class Truth:
    """What plain Python says a check gives on a batch: `ok` with a statistic (None: a NULL
    aggregate), the error rows' ids (None: the check stores none), `comparison` for value
    comparisons; or `error` with words its message must hold."""

    statistic: float | None = None
    ids: list[int] | None = None
    comparison: float | None = None
    error: str | None = None
    within: float = 0.0  # an absolute tolerance beyond rel 1e-9, where the README documents one


@dataclass
class Case:
    id: str
    template: str
    params: dict[str, Any]
    truth: Callable[[list[dict], str], Truth]  # (the batch's rows as the source reads them, source kind)
    batches: tuple[str, ...] = ("all", "some", "none")
    target: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _count(pred: Callable[[dict], bool]) -> Callable[[list[dict], str], Truth]:
    def truth(rows: list[dict], kind: str) -> Truth:
        hits = [r["id"] for r in rows if pred(r)]
        return Truth(len(hits), hits)

    return truth


def _duplicates(column: str) -> Callable[[list[dict], str], Truth]:
    def truth(rows: list[dict], kind: str) -> Truth:
        counts = Counter(r[column] for r in rows if r[column] is not None)
        repeated = {v for v, n in counts.items() if n > 1}
        return Truth(len(repeated), [r["id"] for r in rows if r[column] in repeated])

    return truth


def _aggregate(column: str, fn: Callable[[list], float]) -> Callable[[list[dict], str], Truth]:
    def truth(rows: list[dict], kind: str) -> Truth:
        values = [r[column] for r in rows if r[column] is not None]
        return Truth(float(fn(values)) if values else None)

    return truth


def _decimal_average(column: str) -> Callable[[list[dict], str], Truth]:
    """The mean of a decimal(10,2) column: Spark's answer is a decimal(14,6), rounded to 6 places
    (README, "Where the answers may differ"); a database may keep more digits."""
    exact = _aggregate(column, lambda v: sum(v) / len(v))

    def truth(rows: list[dict], kind: str) -> Truth:
        return Truth(exact(rows, kind).statistic, within=5e-7)

    return truth


def _boolean_error(rows: list[dict], kind: str) -> Truth:
    return Truth(error="boolean")


def _regex_mismatch(column: str, pattern: str) -> Callable[[dict], bool]:
    compiled = re.compile(pattern)
    return lambda r: r[column] is not None and compiled.search(str(r[column])) is None


def _outside(column: str, low: Any, high: Any) -> Callable[[dict], bool]:
    return lambda r: (
        r[column] is not None and ((low is not None and r[column] < low) or (high is not None and r[column] > high))
    )


def _accuracy(source: str, target_column: str, target: str) -> Callable[[list[dict], str], Truth]:
    keep = TARGETS[target][1]

    def truth(rows: list[dict], kind: str) -> Truth:
        keys = {c[target_column] for c in CUSTOMERS if keep(c) and c[target_column] is not None}
        hits = [r["id"] for r in rows if r[source] is None or r[source] not in keys]
        return Truth(len(hits), hits)

    return truth


def _row_rules(rows: list[dict], kind: str) -> Truth:
    hits = [r["id"] for r in rows if any(rule(r) for rule in RULES_PY)]
    return Truth(len(hits), hits)


def _contract(rows: list[dict], kind: str) -> Truth:
    # the missing column `ghost`, plus one per non-nullable column holding a NULL (status)
    return Truth(1 + (1 if any(r["status"] is None for r in rows) else 0))


def _sql(statistic: Callable[[list[dict]], float | None]) -> Callable[[list[dict], str], Truth]:
    return lambda rows, kind: Truth(statistic(rows))


def _non_null(rows: list[dict], column: str) -> list:
    return [r[column] for r in rows if r[column] is not None]


def _stdev(rows: list[dict]) -> float | None:
    values = _non_null(rows, "qty")
    return statistics.stdev(values) if len(values) > 1 else None


def _median(rows: list[dict]) -> float | None:
    values = _non_null(rows, "qty")
    return float(statistics.median(values)) if values else None


def _value_comparison(rows: list[dict], kind: str) -> Truth:
    return Truth(len(rows), comparison=sum(1 for c in CUSTOMERS if c["code"] is not None))


DAY_LOW, DAY_HIGH = date(2026, 1, 1), date(2026, 1, 31)
AT_LOW, AT_HIGH = datetime(2026, 1, 1, 0, 0), datetime(2026, 1, 31, 23, 59, 59)
NAME_PATTERN = r"^[A-Za-z ]+$"

CASES: list[Case] = [
    Case("null_status", "null_check", {"src_field": "status"}, _count(lambda r: r["status"] in (None, ""))),
    Case("null_all_null_text", "null_check", {"src_field": "none_text"}, _count(lambda r: True)),
    Case("null_boolean", "null_check", {"src_field": "flag"}, _count(lambda r: r["flag"] is None)),
    Case("row_count", "table_count_check", {}, lambda rows, kind: Truth(len(rows))),
    Case("unique_status", "uniqueness_check", {"src_field": "status"}, _duplicates("status")),
    Case("unique_name", "uniqueness_check", {"src_field": "name"}, _duplicates("name")),
    Case(
        "regexp_status",
        "regexp_check",
        {"src_field": "status", "regexp_pattern": "^paid$"},
        _count(_regex_mismatch("status", "^paid$")),
    ),
    Case(
        "regexp_unicode_name",
        "regexp_check",
        {"src_field": "name", "regexp_pattern": NAME_PATTERN},
        _count(_regex_mismatch("name", NAME_PATTERN)),
    ),
    Case(
        "enum_status",
        "enumeration_check",
        {"src_field": "status", "enum_list": ["paid", "void"]},
        _count(lambda r: r["status"] not in ("paid", "void")),
    ),
    Case(
        "length_name_over_4",
        "field_length_check",
        {"src_field": "name", "logic_operator": ">", "field_length": 4},
        _count(lambda r: r["name"] is not None and len(r["name"]) > 4),
    ),
    Case(
        "length_status_is_5",
        "field_length_check",
        {"src_field": "status", "logic_operator": "=", "field_length": 5},
        _count(lambda r: r["status"] is not None and len(r["status"]) == 5),
    ),
    Case(
        "range_amount",
        "value_range_check",
        {"src_field": "amount", "min_value": 0, "max_value": 100},
        _count(_outside("amount", 0, 100)),
    ),
    Case(
        "range_day_dates",
        "value_range_check",
        {"src_field": "day", "min_value": "2026-01-01", "max_value": "2026-01-31"},
        _count(_outside("day", DAY_LOW, DAY_HIGH)),
    ),
    Case(
        "range_at_timestamps",
        "value_range_check",
        {"src_field": "at", "min_value": "2026-01-01 00:00:00", "max_value": "2026-01-31 23:59:59"},
        _count(_outside("at", AT_LOW, AT_HIGH)),
    ),
    Case("range_boolean", "value_range_check", {"src_field": "flag", "min_value": 0}, _boolean_error),
    Case(
        "timeliness_at",
        "timeliness_check",
        {"src_field": "at", "begin_time": "2026-01-01 00:00:00", "deadline": "2026-01-31 23:59:59"},
        _count(lambda r: r["at"] is not None and AT_LOW <= r["at"] <= AT_HIGH),
    ),
    Case(
        "avg_amount",
        "column_aggregate_check",
        {"src_field": "amount", "aggregate": "avg"},
        _decimal_average("amount"),
    ),
    Case("sum_qty", "column_aggregate_check", {"src_field": "qty", "aggregate": "sum"}, _aggregate("qty", sum)),
    Case(
        "max_amount", "column_aggregate_check", {"src_field": "amount", "aggregate": "max"}, _aggregate("amount", max)
    ),
    Case(
        "avg_all_null",
        "column_aggregate_check",
        {"src_field": "none_num", "aggregate": "avg"},
        _aggregate("none_num", lambda v: sum(v) / len(v)),
    ),
    Case("avg_boolean", "column_aggregate_check", {"src_field": "flag", "aggregate": "avg"}, _boolean_error),
    Case(
        "sql_stddev_int",
        "custom_sql",
        {"statistics_name": "sd", "statistics_execute_sql": "SELECT stddev_samp(qty) FROM ${src_table}"},
        _sql(_stdev),
    ),
    Case(
        "sql_median",
        "custom_sql",
        {"statistics_name": "med", "statistics_execute_sql": "SELECT median(qty) FROM ${src_table}"},
        _sql(_median),
    ),
    Case(
        "sql_paid_exact",
        "custom_sql",
        {
            "statistics_name": "paid",
            "statistics_execute_sql": "SELECT count(*) FROM ${src_table} WHERE status = 'paid'",
        },
        _sql(lambda rows: sum(1 for r in rows if r["status"] == "paid")),
    ),
    Case(
        "sql_distinct_status",
        "custom_sql",
        {"statistics_name": "kinds", "statistics_execute_sql": "SELECT count(DISTINCT status) FROM ${src_table}"},
        _sql(lambda rows: len({r["status"] for r in rows if r["status"] is not None})),
    ),
    Case(
        "accuracy_customer",
        "multi_table_accuracy",
        {"mapping_columns": [{"src_field": "customer_id", "operator": "=", "target_field": "customer_id"}]},
        _accuracy("customer_id", "customer_id", "customers"),
        target="customers",
    ),
    Case(
        "accuracy_customer_filtered_target",
        "multi_table_accuracy",
        {"mapping_columns": [{"src_field": "customer_id", "operator": "=", "target_field": "customer_id"}]},
        _accuracy("customer_id", "customer_id", "customers_low"),
        batches=("all",),
        target="customers_low",
    ),
    Case(
        "accuracy_status_text",
        "multi_table_accuracy",
        {"mapping_columns": [{"src_field": "status", "operator": "=", "target_field": "code"}]},
        _accuracy("status", "code", "customers"),
        target="customers",
    ),
    Case(
        "value_comparison",
        "multi_table_value_comparison",
        {
            "statistics_name": "orders",
            "statistics_execute_sql": "SELECT count(*) FROM ${src_table}",
            "comparison_name": "coded_customers",
            "comparison_execute_sql": "SELECT count(*) FROM ${target_table} WHERE code IS NOT NULL",
        },
        _value_comparison,
        batches=("all", "none"),
        target="customers",
    ),
    Case("rules", "row_level_check", {"checks_yaml": RULES_YAML}, _row_rules),
    Case("contract", "schema_contract_check", {"contract_yaml": CONTRACT_YAML}, _contract),
]
# Checks a source's reader cannot type for the check (it then ends `error` on every engine, saying
# so): JSON holds dates and times as text; an all-empty CSV or JSON column is text to its readers.
UNTYPED_CASES: dict[str, dict[str, str]] = {
    "json": {"range_day_dates": "date", "range_at_timestamps": "timestamp", "avg_all_null": "numeric"},
    "csv": {"avg_all_null": "numeric"},
}


# Checks an engine declines to answer because its database has no equivalent of Spark's function:
# the check ends `error` saying Spark runs it (auto sends the batch to Spark, which the auto rows of
# the matrix check). DuckDB's declines are its own `reason_cannot_check` (declined_by).
DECLINED_AT_RUN: dict[tuple[str, str], set[str]] = {("mariadb", "pushdown"): {"sql_median"}}


def declined_by(engine: str, spec: dict[str, Any]) -> set[str]:
    """The cases a pinned DuckDB declines before reading (the platform refuses such a pin with a
    400 naming `engine`; auto sends the batch to Spark)."""
    if engine != "duckdb":
        return set()
    from dq_engine.engines import make_engine
    from dq_engine.spec import JobSpec

    reader = make_engine(engine)
    return {c.id.split("@")[0] for c in JobSpec.from_dict(spec).checks if reader.reason_cannot_check(c)}


def _truth(case: Case, rows: list[dict], kind: str, declined: set[str] = frozenset()) -> Truth:
    if case.id in declined:
        return Truth(error="Spark")
    words = UNTYPED_CASES.get(kind, {}).get(case.id)
    return Truth(error=words) if words else case.truth(rows, kind)


def _rule_truths(case: Case, rows: list[dict]) -> dict[str, Truth]:
    """The per-rule spec checks of a rule set ("<id>#<n>") and the NULL counts of a contract's
    non-nullable columns: the result's details."""
    if case.template == "row_level_check":
        return {f"#{n}": Truth(sum(1 for r in rows if rule(r))) for n, rule in enumerate(RULES_PY)}
    if case.template == "schema_contract_check":
        return {
            "#0": Truth(sum(1 for r in rows if r["id"] is None)),
            "#1": Truth(sum(1 for r in rows if r["status"] is None)),
        }
    return {}


# --- the sources ------------------------------------------------------------------------------------
def rows_as_read(kind: str) -> list[dict]:
    """The rows as the source kind holds them: CSV has no empty string (an empty field is NULL to
    every reader); JSON has numbers, not decimals, and dates and times as text."""
    if kind == "csv":
        return [{k: (None if v == "" else v) for k, v in r.items()} for r in ROWS]
    return ROWS


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


@pytest.fixture(scope="module")
def file_sources(tmp_path_factory) -> dict[str, dict[str, dict[str, Any]]]:
    """{"parquet"|"csv"|"json": {"orders": source, "customers": source}}."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    base = tmp_path_factory.mktemp("matrix_files")
    types = {
        "id": pa.int64(),
        "status": pa.string(),
        "name": pa.string(),
        "amount": pa.decimal128(10, 2),
        "qty": pa.int64(),
        "flag": pa.bool_(),
        "day": pa.date32(),
        "at": pa.timestamp("us"),
        "customer_id": pa.int64(),
        "none_text": pa.string(),
        "none_num": pa.int64(),
        "code": pa.string(),
    }
    out: dict[str, dict[str, dict[str, Any]]] = {"parquet": {}, "csv": {}, "json": {}}
    for table, columns, rows in (("orders", COLUMNS, ROWS), ("customers", CUSTOMER_COLUMNS, CUSTOMERS)):
        arrow = pa.table({c: pa.array([r[c] for r in rows], types[c]) for c in columns})
        (base / "parquet" / table).mkdir(parents=True)
        half = len(rows) // 2  # two part files, as a writer leaves them
        pq.write_table(arrow.slice(0, half), base / "parquet" / table / "part-0.parquet")
        pq.write_table(arrow.slice(half), base / "parquet" / table / "part-1.parquet")
        out["parquet"][table] = {"kind": "file", "format": "parquet", "path": str(base / "parquet" / table)}

        (base / "csv").mkdir(exist_ok=True)
        with open(base / "csv" / f"{table}.csv", "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(columns)
            writer.writerows([["" if r[c] is None else _text(r[c]) for c in columns] for r in rows])
        out["csv"][table] = {"kind": "file", "format": "csv", "path": str(base / "csv" / f"{table}.csv")}

        (base / "json" / table).mkdir(parents=True)
        lines = [json.dumps({c: _json(r[c]) for c in columns}, ensure_ascii=False) for r in rows]
        (base / "json" / table / "part-0.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
        out["json"][table] = {"kind": "file", "format": "json", "path": str(base / "json" / table)}
    return out


def _json(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, date):
        return _text(value)
    return value


@pytest.fixture(scope="module")
def postgresql_sources(shared_servers_lock) -> dict[str, dict[str, Any]]:
    import psycopg

    with psycopg.connect(**PG, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        conn.execute(
            f"CREATE TABLE {SCHEMA}.orders (id integer, status text, name text, amount numeric(10,2), qty integer, "
            "flag boolean, day date, at timestamp, customer_id integer, none_text text, none_num integer)"
        )
        conn.execute(f"CREATE TABLE {SCHEMA}.customers (customer_id integer, code text)")
        with conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {SCHEMA}.orders VALUES ({', '.join(['%s'] * len(COLUMNS))})",
                [tuple(r[c] for c in COLUMNS) for r in ROWS],
            )
            cur.executemany(f"INSERT INTO {SCHEMA}.customers VALUES (%s, %s)", [tuple(c.values()) for c in CUSTOMERS])
        url = f"jdbc:postgresql://{PG['host']}:{PG['port']}/{PG['dbname']}"
        jdbc = {"kind": "jdbc", "url": url, "driver": "org.postgresql.Driver", "user": PG["user"]}
        yield {t: {**jdbc, "table": f"{SCHEMA}.{t}"} for t in ("orders", "customers")}
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


@pytest.fixture(scope="module")
def mariadb_sources(shared_servers_lock) -> dict[str, dict[str, Any]]:
    """MariaDB's default collation, case- and trailing-space-insensitive: 'PAID' = 'paid ' there."""
    import pymysql

    conn = pymysql.connect(**MYSQL, autocommit=True, connect_timeout=5, charset="utf8mb4")
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {SCHEMA}")
        cur.execute(f"CREATE DATABASE {SCHEMA} CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci")
        cur.execute(
            f"CREATE TABLE {SCHEMA}.orders (id INT, status VARCHAR(20), name VARCHAR(40), amount DECIMAL(10,2), "
            "qty INT, flag BOOLEAN, day DATE, at DATETIME, customer_id INT, none_text VARCHAR(20), none_num INT)"
        )
        cur.execute(f"CREATE TABLE {SCHEMA}.customers (customer_id INT, code VARCHAR(20))")
        cur.executemany(
            f"INSERT INTO {SCHEMA}.orders VALUES ({', '.join(['%s'] * len(COLUMNS))})",
            [tuple(r[c] for c in COLUMNS) for r in ROWS],
        )
        cur.executemany(f"INSERT INTO {SCHEMA}.customers VALUES (%s, %s)", [tuple(c.values()) for c in CUSTOMERS])
    url = f"jdbc:mariadb://{MYSQL['host']}:{MYSQL['port']}/{SCHEMA}"
    jdbc = {"kind": "jdbc", "url": url, "driver": "org.mariadb.jdbc.Driver", "user": MYSQL["user"]}
    yield {t: {**jdbc, "table": f"{SCHEMA}.{t}"} for t in ("orders", "customers")}
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {SCHEMA}")
    conn.close()


# (source kind, engine): every engine that reads the kind, and auto.
MATRIX = [
    *((kind, engine) for kind in ("parquet", "csv", "json") for engine in ("auto", "duckdb", "spark")),
    *((kind, engine) for kind in ("postgresql", "mariadb") for engine in ("auto", "pushdown", "spark")),
]


def _id(param: tuple[str, str]) -> str:
    kind, engine = param
    return f"{kind} chosen by auto" if engine == "auto" else f"{kind} read by {engine}"


# --- the run ---------------------------------------------------------------------------------------
def _templates() -> dict[str, dict[str, Any]]:
    catalog = yaml.safe_load((ROOT / "rules" / "catalog" / "templates.yaml").read_text(encoding="utf-8"))
    return {t["key"]: t for t in catalog["templates"]}


def mixed_spec(sources: dict[str, dict[str, Any]], engine: str, root: Path) -> dict[str, Any]:
    """One spec: every case on each of its batches, as the platform builds it (executions/jobs.py)."""
    templates = _templates()
    checks = []
    for case in CASES:
        rule_json = templates[case.template]["rule_json"]
        for batch in case.batches:
            checks += with_rule_checks(
                {
                    "id": f"{case.id}@{batch}",
                    "name": f"{case.id} on {batch}",
                    "batch": batch,
                    "target_batch": case.target,
                    "metric": engine_metric(rule_json["metric"], case.params),
                    "error_rows": rule_json["error_rows"] == "matching_rows",
                }
            )
    batches = {name: {"source": "orders", "filter": f} for name, (f, _) in BATCHES.items()}
    batches.update({name: {"source": "customers", "filter": f} for name, (f, _) in TARGETS.items()})
    spec = {
        "run_id": f"matrix-{uuid.uuid4().hex[:6]}",
        "sources": sources,
        "batches": batches,
        "checks": checks,
        "error_rows": {"root": str(root), "limit": 100},
    }
    if engine == "auto":
        as_the_platform_chooses(spec)
    else:
        for batch in batches.values():
            batch["engine"] = engine
    return spec


def as_the_platform_chooses(spec: dict[str, Any]) -> None:
    """Each batch's engine as a run on engine auto gets it (executions/engine_choice.py and
    executions/jobs.py): chosen when the run starts, both tables being of one datasource, and a
    batch auto sent to pushdown falling back to Spark for what pushdown refuses once it sees the
    table's catalog."""
    from dq_engine.selection import AUTO, choose_engines
    from dq_engine.spec import JobSpec

    choices = choose_engines(JobSpec.from_dict(spec), requested=AUTO, origins=dict.fromkeys(spec["batches"], "one"))
    for name, batch in spec["batches"].items():
        batch["engine"] = choices[name].engine
        if choices[name].engine == "pushdown" and choices[name].reason.startswith("auto:"):
            batch["fallback"] = "spark"


def stored_ids(path: str | None) -> list[int]:
    if not path:
        return []
    import pyarrow.dataset as ds

    table = ds.dataset(path, format="parquet", ignore_prefixes=[".", "_"]).to_table(columns=["id"])
    return sorted(int(v) for v in table.column("id").to_pylist())


# A message a user can act on, never Python's words for a programming error.
PYTHON_TEXT = re.compile(
    r"Traceback|NoneType|KeyError|TypeError|AttributeError|ProgrammingError|object has no attribute|\(1064\)"
)


def differences(document: dict[str, Any], kind: str, declined: set[str] = frozenset()) -> list[str]:
    rows = rows_as_read(kind)
    found: list[str] = []
    for name, (_, keep) in BATCHES.items():
        got = (document["batches"].get(name) or {}).get("rows")
        if got != sum(1 for r in rows if keep(r)):
            found.append(f"batch {name}: {got} rows, Python counts {sum(1 for r in rows if keep(r))}")
    for case in CASES:
        for batch in case.batches:
            batch_rows = [r for r in rows if BATCHES[batch][1](r)]
            base = f"{case.id}@{batch}"
            wanted = {base: _truth(case, batch_rows, kind, declined)}
            if wanted[base].error is None:
                wanted.update({base + suffix: t for suffix, t in _rule_truths(case, batch_rows).items()})
            for check_id, truth in wanted.items():
                found += _compare(check_id, truth, document["checks"].get(check_id))
    return found


def _compare(check_id: str, truth: Truth, got: dict[str, Any] | None) -> list[str]:
    if got is None:
        return [f"{check_id}: no outcome in the document"]
    message = got.get("message") or ""
    if truth.error is not None:
        if got["status"] != "error":
            return [
                f"{check_id}: status {got['status']} (statistic {got['statistic']}), expected error about {truth.error!r}"
            ]
        if truth.error not in message or PYTHON_TEXT.search(message):
            return [f"{check_id}: error message {message!r} does not say {truth.error!r} in a user's words"]
        return []
    if got["status"] != "ok":
        return [f"{check_id}: status {got['status']}: {message}; Python: statistic {truth.statistic}"]
    found = []
    if not _same(got["statistic"], truth.statistic, truth.within):
        diff = (
            ""
            if None in (got["statistic"], truth.statistic)
            else f" (off by {got['statistic'] - truth.statistic:+.12g})"
        )
        found.append(f"{check_id}: statistic {got['statistic']!r}, Python {truth.statistic!r}{diff}")
    if truth.comparison is not None and not _same(got["comparison"], truth.comparison):
        found.append(f"{check_id}: comparison {got['comparison']!r}, Python {truth.comparison!r}")
    if truth.ids is not None and got.get("error_row_count") is not None:
        if got["error_row_count"] != len(truth.ids):
            found.append(f"{check_id}: error_row_count {got['error_row_count']}, Python {len(truth.ids)}")
        ids = stored_ids(got.get("error_rows_path"))
        if ids != sorted(truth.ids):
            found.append(f"{check_id}: error rows ids {ids}, Python {sorted(truth.ids)}")
    return found


def _same(a: float | None, b: float | None, within: float = 0.0) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=max(within, 1e-12))


@pytest.fixture(scope="module")
def sources_of(request) -> Callable[[str], dict[str, dict[str, Any]]]:
    def get(kind: str) -> dict[str, dict[str, Any]]:
        if kind in ("parquet", "csv", "json"):
            return request.getfixturevalue("file_sources")[kind]
        return request.getfixturevalue(f"{kind}_sources")

    return get


# --- the tests -------------------------------------------------------------------------------------
def test_the_matrix_covers_every_built_in_template():
    from dq_engine.tests.test_engine_equivalence import COVERED_ELSEWHERE

    missing = sorted(set(_templates()) - {case.template for case in CASES} - COVERED_ELSEWHERE)
    assert not missing, f"Add a matrix case for {', '.join(missing)}."


def test_the_rows_hold_what_the_cases_are_about():
    """The truth itself, spot-checked by hand so the helpers above cannot drift unnoticed."""
    truth = {case.id: case for case in CASES}
    assert truth["null_status"].truth(ROWS, "parquet").statistic == 2  # '' (row 5) and NULL (row 6)
    assert truth["enum_status"].truth(ROWS, "parquet").ids == [2, 3, 5, 6, 8, 9, 11, 12]  # PAID, 'paid ', …
    assert truth["unique_status"].truth(ROWS, "parquet").ids == [1, 7, 10]  # only exact 'paid' repeats
    assert truth["length_name_over_4"].truth(ROWS, "parquet").ids == [1, 2, 5, 9, 10]  # '😀 fun' is 5 characters
    assert truth["range_day_dates"].truth(ROWS, "parquet").ids == [3, 4, 6]
    # qty: 1 2 3 4 5 7 7 1 2 3 8 (row 6 NULL): sum 43, sum of squares 231
    assert truth["sql_stddev_int"].truth(ROWS, "parquet").statistic == pytest.approx(math.sqrt((231 - 43**2 / 11) / 10))
    assert truth["accuracy_status_text"].truth(ROWS, "parquet").ids == [3, 5, 6, 9, 11, 12]
    assert truth["avg_all_null"].truth(ROWS, "parquet").statistic is None


@pytest.mark.parametrize(("kind", "engine"), MATRIX, ids=[_id(p) for p in MATRIX])
def test_a_mixed_run_gives_what_plain_python_computes(kind, engine, sources_of, spark, tmp_path):
    import dq_engine

    spec = mixed_spec(sources_of(kind), engine, tmp_path / "errors")
    declined = declined_by(engine, spec) | DECLINED_AT_RUN.get((kind, engine), set())
    try:
        document = dq_engine.run(spec, spark=spark)
    except Exception as exc:  # noqa: BLE001 - the platform ends every check of the run `error` then
        pytest.fail(f"The run raised {type(exc).__name__}: {exc}; every check of it ends error.", pytrace=False)

    if engine != "auto":
        engines = {b["engine"] for b in document["batches"].values()}
        assert engines == {engine}, f"batches read by {engines}"
    found = differences(document, kind, declined)
    assert not found, f"{len(found)} differences from plain Python on {kind} / {engine}:\n" + "\n".join(found)
