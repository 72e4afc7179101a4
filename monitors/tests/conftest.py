"""Monitors' tests: a PostgreSQL table and file datasets of their own, with the worker fixtures of
executions' end-to-end tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from conftest import PG, PG_PROBE_DATASOURCE, PROBE_USER
from executions.tests.conftest import celery_worker_process, wait_for_run  # noqa: F401 - fixtures shared

SCHEMA = "dq_monitors"
NOW = datetime.now(UTC).replace(microsecond=0, tzinfo=None)  # the fixture's times, as UTC without a zone
YESTERDAY = (NOW - timedelta(days=1)).date()
# (id, amount, legacy, created_at): three rows on yesterday's date, the newest five hours ago.
ROWS = [
    (1, 10, 1, datetime.combine(YESTERDAY, datetime.min.time()) + timedelta(hours=1)),
    (2, 20, 2, datetime.combine(YESTERDAY, datetime.min.time()) + timedelta(hours=12)),
    (3, 30, 3, datetime.combine(YESTERDAY, datetime.min.time()) + timedelta(hours=23, minutes=59)),
    (4, 40, 4, NOW - timedelta(days=3)),
    (5, 50, 5, NOW - timedelta(days=9)),
    (6, 60, 6, NOW - timedelta(hours=5)),
]


@pytest.fixture
def monitored_table(shared_servers_lock):
    """dq_monitors.orders: (id integer, amount integer, legacy integer, created_at timestamp, label text)."""
    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        conn.execute(
            f"CREATE TABLE {SCHEMA}.orders (id integer, amount integer, legacy integer, created_at timestamp, label text)"
        )
        with conn.cursor() as cur:
            cur.executemany(f"INSERT INTO {SCHEMA}.orders VALUES (%s, %s, %s, %s, 'x')", ROWS)
        conn.execute(f"CREATE TABLE {SCHEMA}.empty_one (id integer)")
        conn.execute(f"GRANT USAGE ON SCHEMA {SCHEMA} TO {PROBE_USER}")
        conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {SCHEMA} TO {PROBE_USER}")
        yield f"{SCHEMA}.orders"
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")


def alter(*statements: str) -> None:
    with psycopg.connect(**PG, autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


@pytest.fixture
def warehouse(cast, pg_server, monitored_table, make_datasource):
    """The PostgreSQL datasource, readable by the analysts, owned by the author."""
    datasource = make_datasource(name="warehouse", allowed_groups=[cast.analysts], **PG_PROBE_DATASOURCE)
    datasource.owners.add(cast.author)
    return datasource


@pytest.fixture
def reader(cast, django_user_model):
    """An analyst who reads the warehouse but owns nothing."""
    user = django_user_model.objects.create_user("reader", password="reader-pass-123")
    user.groups.add(cast.analysts)
    return user
