"""Timeliness on columns that already hold times: the column is compared as stored (only the two
bounds are cast), and the count is the same as before on DuckDB, PostgreSQL and MariaDB, at the
window's edges (microseconds either side, a date's midnight against a bound with a time)."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from conftest import MYSQL, PG

BEGIN, END = "2024-01-02 06:00:00", "2024-01-05 00:00:00"
# Hand-counted against [BEGIN, END], both inclusive: the 2nd, 3rd and 6th are inside.
TIMES = [
    datetime(2024, 1, 2, 5, 59, 59, 999999),
    datetime(2024, 1, 2, 6, 0, 0),
    datetime(2024, 1, 5, 0, 0, 0),
    datetime(2024, 1, 5, 0, 0, 0, 1),
    None,
    datetime(2024, 1, 3, 12, 0, 0),
]
# A date is its midnight: 01-02 00:00 is before BEGIN; 01-05 00:00 is END itself. Inside: 2nd, 3rd, 6th.
DAYS = [date(2024, 1, 2), date(2024, 1, 3), date(2024, 1, 5), date(2024, 1, 6), None, date(2024, 1, 4)]
INSIDE = 3
TABLE = "dq_timeliness_types"


def _spec(source: dict, engine: str, columns: list[str]) -> dict:
    return {
        "run_id": "timeliness-types",
        "sources": {"s": source},
        "batches": {"b": {"source": "s", "filter": None, "engine": engine}},
        "checks": [
            {
                "id": column,
                "name": column,
                "batch": "b",
                "metric": {
                    "kind": "conditional_count",
                    "predicate": "time_between",
                    "column": column,
                    "begin": BEGIN,
                    "end": END,
                    "format": None,
                },
                "error_rows": False,
            }
            for column in columns
        ],
    }


def _counts(spec: dict) -> dict[str, float]:
    import dq_engine

    checks = dq_engine.run(spec)["checks"]
    return {key: (c["statistic"] if c["status"] == "ok" else c["message"]) for key, c in checks.items()}


def test_a_timestamp_or_date_column_is_compared_as_stored_with_only_the_bounds_cast():
    from dq_engine.duckdb.batches import column_ref
    from dq_engine.vocabulary import PREDICATES
    from dq_engine.vocabulary.expressions import Dialect

    fields = {"begin": BEGIN, "end": END, "format": None}
    timestamp = PREDICATES["time_between"].build(column_ref("t", "TIMESTAMP"), fields, Dialect()).sql("duckdb")
    day = PREDICATES["time_between"].build(column_ref("d", "DATE"), fields, Dialect()).sql("duckdb")

    assert 'CAST("t"' not in timestamp and "\"t\" >= CAST('2024-01-02 06:00:00' AS TIMESTAMP)" in timestamp
    # The first midnight at or after 06:00 on the 2nd is the 3rd's; END is a midnight, so the 5th stays in.
    assert "\"d\" >= CAST('2024-01-03' AS DATE)" in day and "\"d\" <= CAST('2024-01-05' AS DATE)" in day


def test_timeliness_counts_the_rows_inside_the_window_on_duckdb_for_timestamps_and_dates(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "t": pa.array(TIMES, pa.timestamp("us")),
            "t_ms": pa.array(
                [t and t.replace(microsecond=t.microsecond // 1000 * 1000) for t in TIMES], pa.timestamp("ms")
            ),
            "d": pa.array(DAYS, pa.date32()),
        }
    )
    pq.write_table(table, tmp_path / "t.parquet")
    source = {"kind": "file", "format": "parquet", "path": str(tmp_path / "t.parquet"), "options": {}}

    # t_ms: 05:59:59.999 is still before 06:00, 00:00:00.000 (was .000001) is END itself: 4 inside.
    assert _counts(_spec(source, "duckdb", ["t", "t_ms", "d"])) == {"t": INSIDE, "t_ms": INSIDE + 1, "d": INSIDE}


@pytest.mark.usefixtures("pg_server")
def test_timeliness_counts_the_rows_inside_the_window_on_postgresql_for_timestamps_with_and_without_zone_and_dates():
    import psycopg

    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
        conn.execute(f"CREATE TABLE {TABLE} (t timestamp, tz timestamptz, d date)")
        with conn.cursor() as cur:
            # The zoned column is written as local wall times of the session's zone, as it is read.
            cur.executemany(
                f"INSERT INTO {TABLE} VALUES (%s, %s::timestamp, %s)",
                [(t, t, d) for t, d in zip(TIMES, DAYS, strict=True)],
            )
    url = f"jdbc:postgresql://{PG['host']}:{PG['port']}/{PG['dbname']}"
    source = {"kind": "jdbc", "url": url, "driver": "org.postgresql.Driver", "user": PG["user"], "table": TABLE}
    try:
        counts = _counts(_spec(source, "pushdown", ["t", "tz", "d"]))
    finally:
        with psycopg.connect(**PG, autocommit=True) as conn:
            conn.execute(f"DROP TABLE IF EXISTS {TABLE}")

    assert counts == {"t": INSIDE, "tz": INSIDE, "d": INSIDE}


@pytest.mark.usefixtures("mysql_server")
def test_timeliness_counts_the_rows_inside_the_window_on_mariadb_for_datetimes_and_dates():
    import pymysql

    conn = pymysql.connect(**MYSQL, autocommit=True)
    with conn.cursor() as cur:
        cur.execute("CREATE DATABASE IF NOT EXISTS dq_timeliness")
        cur.execute(f"DROP TABLE IF EXISTS dq_timeliness.{TABLE}")
        cur.execute(f"CREATE TABLE dq_timeliness.{TABLE} (t DATETIME(6), d DATE)")
        cur.executemany(f"INSERT INTO dq_timeliness.{TABLE} VALUES (%s, %s)", list(zip(TIMES, DAYS, strict=True)))
    url = f"jdbc:mariadb://{MYSQL['host']}:{MYSQL['port']}/dq_timeliness"
    source = {"kind": "jdbc", "url": url, "driver": "org.mariadb.jdbc.Driver", "user": MYSQL["user"], "table": TABLE}
    try:
        counts = _counts(_spec(source, "pushdown", ["t", "d"]))
    finally:
        with conn.cursor() as cur:
            cur.execute("DROP DATABASE IF EXISTS dq_timeliness")
        conn.close()

    assert counts == {"t": INSIDE, "d": INSIDE}
