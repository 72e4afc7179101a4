"""The profiles' fixture table, the same rows in PostgreSQL, MariaDB, Parquet and CSV, and the truth
computed from those rows in plain Python (`truth`), which every engine's figures must match."""

from __future__ import annotations

import csv
import math
import re
import statistics
from datetime import date, timedelta
from decimal import Decimal

import pytest

from conftest import MYSQL, MYSQL_TEST_DB, PROBE_USER, _mysql_connect, _pg_connect

SCHEMA = "dq_profiles"
COLUMNS = ["id", "amount", "email", "status", "placed_on", "qty", "note"]
KINDS = {
    "id": "number",
    "amount": "number",
    "email": "string",
    "status": "string",
    "placed_on": "time",
    "qty": "number",
    "note": "string",
}
STATUSES = ["paid", "paid", "void", "shipped", None]
SHAPES = {
    "numeric": r"^[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?$",
    "date": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]+)?)?)?$",
    "email": r"^[^@ ]+@[^@ ]+[.][^@ ]+$",
}
FRACTIONS = {"p01": 0.01, "p05": 0.05, "p25": 0.25, "p50": 0.5, "p75": 0.75, "p95": 0.95, "p99": 0.99}


def fixture_rows(count: int = 30) -> list[tuple]:
    """NULLs in every column but the id, empty strings, e-mails (some malformed), a date, a
    low-cardinality text and number, strings that look like numbers and dates, a non-ASCII letter."""
    rows = []
    for i in range(1, count + 1):
        amount = None if i % 7 == 0 else Decimal((i * 37) % 101) + Decimal(i % 4) / 4 - 20
        email = (
            None if i % 9 == 0 else "" if i % 10 == 0 else f"user{i}@example.com" if i % 4 else f"user{i} at example"
        )
        placed_on = None if i % 11 == 0 else date(2026, 1, 1) + timedelta(days=(i * 13) % 40)
        note = (
            None
            if i == count - 1
            else ""
            if i == count - 2
            else f"2026-02-{i % 28 + 1:02d}"
            if i % 3 == 0
            else f"{i}.5"
            if i % 3 == 1
            else f"wörd{i}"
        )
        rows.append((i, amount, email, STATUSES[i % 5], placed_on, i % 4, note))
    return rows


def as_csv_reads_it(rows: list[tuple]) -> list[tuple]:
    """An empty CSV field is NULL to both Spark's and DuckDB's readers, so '' comes back NULL."""
    return [tuple(None if value == "" else value for value in row) for row in rows]


@pytest.fixture(scope="session")
def pg_profile_table(pg_server):
    conn = _pg_connect()
    conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    conn.execute(f"CREATE SCHEMA {SCHEMA}")
    conn.execute(
        f"CREATE TABLE {SCHEMA}.orders (id integer, amount numeric(10,2), email text, status text, "
        "placed_on date, qty integer, note varchar(40))"
    )
    with conn.cursor() as cur:
        cur.executemany(f"INSERT INTO {SCHEMA}.orders VALUES (%s, %s, %s, %s, %s, %s, %s)", fixture_rows())
    conn.execute(f"GRANT USAGE ON SCHEMA {SCHEMA} TO {PROBE_USER}")
    conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {PROBE_USER}")
    yield f"{SCHEMA}.orders"
    conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    conn.close()


@pytest.fixture(scope="session")
def mysql_profile_table(mysql_server):
    conn = _mysql_connect()
    with conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {MYSQL_TEST_DB}.profiled")
        # The default case-insensitive collation: 'PAID' and 'paid' must still count apart.
        cur.execute(
            f"CREATE TABLE {MYSQL_TEST_DB}.profiled (id INT, amount DECIMAL(10,2), email VARCHAR(60), "
            "status VARCHAR(10), placed_on DATE, qty INT, note VARCHAR(40)) CHARACTER SET utf8mb4"
        )
        rows = [(*row[:3], "PAID" if row[0] % 6 == 1 else row[3], *row[4:]) for row in fixture_rows()]
        cur.executemany(f"INSERT INTO {MYSQL_TEST_DB}.profiled VALUES (%s, %s, %s, %s, %s, %s, %s)", rows)
    yield rows
    with conn.cursor() as cur:
        cur.execute(f"DROP TABLE IF EXISTS {MYSQL_TEST_DB}.profiled")
    conn.close()


@pytest.fixture
def lake_files(file_roots):
    """parquet/orders/ (a directory of one part file) and csv/orders.csv, the fixture rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = fixture_rows()
    columns = list(zip(*rows, strict=True))
    types = [pa.int64(), pa.decimal128(10, 2), pa.string(), pa.string(), pa.date32(), pa.int32(), pa.string()]
    table = pa.table({name: pa.array(values, t) for name, values, t in zip(COLUMNS, columns, types, strict=True)})
    (file_roots / "parquet" / "orders").mkdir(parents=True)
    pq.write_table(table, file_roots / "parquet" / "orders" / "part-00000.parquet")
    (file_roots / "csv").mkdir()
    write_csv(file_roots / "csv" / "orders.csv", COLUMNS, rows)
    return file_roots


def write_csv(path, header, rows) -> None:
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(header)
        out.writerows(["" if v is None else str(v) for v in row] for row in rows)


# --- the truth, in plain Python ------------------------------------------------------------------
def _number(value) -> float:
    return float(value)


def interpolated(ordered: list, fraction: float) -> float:
    """Linear interpolation between the closest ranks (PostgreSQL's percentile_cont)."""
    position = (len(ordered) - 1) * fraction
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low]) + (float(ordered[high]) - float(ordered[low])) * (position - low)


def truth(rows: list[tuple], bins: int = 10, top_limit: int = 20) -> dict[str, dict]:
    """Every figure of every column, from the rows alone."""
    figures = {}
    for index, name in enumerate(COLUMNS):
        values = [row[index] for row in rows if row[index] is not None]
        kind = KINDS[name]
        counted: dict = {}
        for value in values:
            counted[value] = counted.get(value, 0) + 1
        entry = {
            "rows": len(rows),
            "nulls": len(rows) - len(values),
            "null_share": (len(rows) - len(values)) / len(rows),
            "distinct": len(counted),
            "top_values": counted if len(counted) <= top_limit else None,
        }
        ordered = sorted(values)
        if kind == "number":
            low, high = float(ordered[0]), float(ordered[-1])
            width = (high - low) / bins
            histogram = [0] * bins if width else [len(values)]  # one value: one bin
            for value in values:
                if width:
                    histogram[min(math.floor((float(value) - low) / width), bins - 1)] += 1
            entry.update(
                min=low,
                max=high,
                mean=float(sum(Decimal(str(v)) for v in values) / len(values)),
                stddev=statistics.stdev(float(v) for v in values),
                sum=float(sum(Decimal(str(v)) for v in values)),
                quantiles={key: interpolated(ordered, f) for key, f in FRACTIONS.items()},
                histogram=histogram,
            )
        if kind == "time":
            entry.update(min=ordered[0].isoformat(), max=ordered[-1].isoformat(), ordered=ordered)
        if kind == "string":
            lengths = [len(v) for v in values]
            entry.update(
                length={"min": min(lengths), "max": max(lengths), "mean": sum(lengths) / len(lengths)},
                empty=sum(1 for v in values if v == ""),
                looks={shape: sum(1 for v in values if re.match(p, v)) for shape, p in SHAPES.items()},
            )
        figures[name] = entry
    return figures


def close(a, b, tolerance: float = 1e-9) -> bool:
    return a is not None and b is not None and math.isclose(float(a), float(b), rel_tol=tolerance, abs_tol=tolerance)


def assert_matches(document: dict, rows: list[tuple], *, exact: bool = True, mean_tolerance: float = 1e-9) -> None:
    """Every figure of the document against the truth of `rows` (approximate engines: `exact=False`
    checks distinct counts and quantiles within their estimators' error)."""
    expected = truth(rows)
    assert document["row_count"] == len(rows)
    assert [c["name"] for c in document["columns"]] == COLUMNS
    for column in document["columns"]:
        name, want = column["name"], expected[column["name"]]
        assert "error" not in column, column
        assert column["kind"] == KINDS[name], (name, column["kind"])
        for key in ("rows", "nulls"):
            assert column[key] == want[key], (name, key, column[key], want[key])
        assert close(column["null_share"], want["null_share"]), name
        if exact or want["top_values"] is not None:
            assert column["distinct"] == want["distinct"], (name, column["distinct"], want["distinct"])
            assert column["distinct_exact"] is True, name
        else:
            assert abs(column["distinct"] - want["distinct"]) <= 0.05 * want["distinct"] + 1, name
        if want["top_values"] is None:
            assert column["top_values"] is None, name
        else:
            got = {_key(item["value"], KINDS[name]): item["count"] for item in column["top_values"]}
            assert got == {_key(v, KINDS[name]): c for v, c in want["top_values"].items()}, name
            counts = [item["count"] for item in column["top_values"]]
            assert counts == sorted(counts, reverse=True), name
        if KINDS[name] == "number":
            for key in ("min", "max", "sum"):
                assert close(column[key], want[key]), (name, key, column[key], want[key])
            assert close(column["mean"], want["mean"], mean_tolerance), (name, column["mean"], want["mean"])
            assert close(column["stddev"], want["stddev"]), (name, column["stddev"], want["stddev"])
            assert column["histogram"]["counts"] == want["histogram"], (name, column["histogram"], want["histogram"])
            assert close(column["histogram"]["edges"][0], want["min"]) and close(
                column["histogram"]["edges"][-1], want["max"]
            )
            for key, value in want["quantiles"].items():
                if column["quantiles_exact"]:
                    assert close(column["quantiles"][key], value), (name, key, column["quantiles"][key], value)
                else:  # an approximate quantile is a value within a rank or so of the exact one
                    ordered = sorted(float(v) for v in [r[COLUMNS.index(name)] for r in rows] if v is not None)
                    assert ordered[0] <= column["quantiles"][key] <= ordered[-1], (name, key)
        if KINDS[name] == "time":
            assert column["min"] == want["min"] and column["max"] == want["max"], name
            ordered = want["ordered"]
            for key, fraction in FRACTIONS.items():  # a value of the column at the fraction's rank
                ranks = {math.floor((len(ordered) - 1) * fraction), max(math.ceil(len(ordered) * fraction) - 1, 0)}
                assert column["quantiles"][key] in {ordered[r].isoformat() for r in ranks}, (name, key)
        if KINDS[name] == "string":
            assert column["length"]["min"] == want["length"]["min"], name
            assert column["length"]["max"] == want["length"]["max"], name
            assert close(column["length"]["mean"], want["length"]["mean"], mean_tolerance), name
            assert column["empty"] == want["empty"], (name, column["empty"], want["empty"])
            assert column["looks"] == want["looks"], (name, column["looks"], want["looks"])


def _key(value, kind: str):
    if kind == "number":
        return float(value)
    if kind == "time":
        return value if isinstance(value, str) else value.isoformat()
    return value


MYSQL_ADDRESS = MYSQL


from dq_engine.tests.conftest import spark  # noqa: E402,F401 - the test run's one SparkSession
from executions.tests.conftest import celery_worker_process  # noqa: E402,F401 - a real worker on Redis
