"""The tables a DolphinScheduler export's checks read, in real PostgreSQL, and the datasources
the export's DolphinScheduler ids are mapped to."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from conftest import PG, PG_PROBE_DATASOURCE, PROBE_USER

SCHEMA = "ds_import"
EXPORT_PATH = Path(__file__).with_name("ds_export_3_2_2.json")
# order_id, customer_email, status, amount, created_text (yyyy/MM/dd HH:mm:ss)
ORDERS = [
    (1, "a@x.io", "paid", 10, "2026/11/02 08:00:00"),
    (2, None, "paid", 20, "2026/11/03 08:00:00"),
    (3, "", "void", 60, "2026/11/04 08:00:00"),
    (4, "b@x.io", "bogus", 70, "2026/12/05 08:00:00"),
    (5, "c@x.io", None, 80, "2026/11/06 08:00:00"),
    (5, "d@x.io", "paid", 90, "2026/10/20 08:00:00"),
    (6, "averyverylongname@x.io", "shipped", 30, "2026/11/07 08:00:00"),
    (7, "not-an-email", "paid", 55, "2026/11/08 08:00:00"),
    (8, "e@x.io", "shipped", 15, "2026/11/09 08:00:00"),
    (9, "f@x.io", "paid", 5, "2026/11/10 08:00:00"),
]
COPIED_IDS = [1, 2, 3, 5, 6, 9]


def export_data() -> list:
    return json.loads(EXPORT_PATH.read_text())


def pg_count(sql: str) -> int:
    """A number computed straight from PostgreSQL: the truth the imported checks must agree with."""
    with psycopg.connect(**PG, autocommit=True) as conn:
        return conn.execute(sql).fetchone()[0]


@pytest.fixture(scope="module")
def ds_tables(shared_servers_lock):
    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        conn.execute(
            f"CREATE TABLE {SCHEMA}.orders (order_id int, customer_email text, status text, "
            "amount numeric(10,2), created_text text)"
        )
        conn.execute(f"CREATE TABLE {SCHEMA}.orders_copy (order_id int, status text)")
        with conn.cursor() as cur:
            cur.executemany(f"INSERT INTO {SCHEMA}.orders VALUES (%s, %s, %s, %s, %s)", ORDERS)
            cur.executemany(f"INSERT INTO {SCHEMA}.orders_copy VALUES (%s, 'paid')", [(i,) for i in COPIED_IDS])
        conn.execute(f"GRANT USAGE ON SCHEMA {SCHEMA} TO {PROBE_USER}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {PROBE_USER}")
        yield
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


@pytest.fixture
def shop(pg_server, ds_tables, make_datasource, cast):
    """`warehouse` (open) and `mirror` (restricted to the analysts), both the test PostgreSQL."""
    warehouse = make_datasource(name="warehouse", **PG_PROBE_DATASOURCE)
    mirror = make_datasource(name="mirror", allowed_groups=[cast.analysts], **PG_PROBE_DATASOURCE)
    return warehouse, mirror
