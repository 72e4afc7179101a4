"""Shared test cast and real test servers.

Users: `admin` (staff), `author` (in group "analysts"), `outsider` (in no group). Servers:
PostgreSQL and MariaDB reached through DQ_TEST_PG_* / DQ_TEST_MYSQL_* with 127.0.0.1 defaults;
a missing server fails the tests that need it with a message saying how to start it.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass

import pytest

PG = {
    "host": os.environ.get("DQ_TEST_PG_HOST", "127.0.0.1"),
    "port": int(os.environ.get("DQ_TEST_PG_PORT", "5432")),
    "user": os.environ.get("DQ_TEST_PG_USER", "postgres"),
    "password": os.environ.get("DQ_TEST_PG_PASSWORD", ""),
    "dbname": os.environ.get("DQ_TEST_PG_DB", "test"),
}
MYSQL = {
    "host": os.environ.get("DQ_TEST_MYSQL_HOST", "127.0.0.1"),
    "port": int(os.environ.get("DQ_TEST_MYSQL_PORT", "3306")),
    "user": os.environ.get("DQ_TEST_MYSQL_USER", "root"),
    "password": os.environ.get("DQ_TEST_MYSQL_PASSWORD", ""),
}
REDIS_URL = os.environ.get("DQ_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")

# A role and user that must log in with a real password (scripts/services.sh adds the pg_hba line).
PROBE_USER = "dq_password_probe"
PROBE_PASSWORD = "Probe-pass-7Q!x"
# A PostgreSQL datasource of the test server, read as the probe user (make_datasource's fields).
PG_PROBE_DATASOURCE = {
    "type": "postgresql",
    "host": PG["host"],
    "port": PG["port"],
    "database": PG["dbname"],
    "username": PROBE_USER,
    "password": PROBE_PASSWORD,
}
# Overridable so that two checkouts can run their tests side by side against the same servers.
MYSQL_TEST_DB = os.environ.get("DQ_TEST_MYSQL_DB", "dq_test")
PG_TEST_SCHEMA = "dq_test"


def pytest_collection_modifyitems(config, items):
    """A test that asks for the SparkSession is a Spark test whether or not it says so, so that the
    fast lane (`make test-fast`, `-m "not spark"`) leaves out every test that would start a JVM."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)


@dataclass
class Cast:
    admin: object
    author: object
    outsider: object
    analysts: object


@pytest.fixture
def cast(django_user_model) -> Cast:
    from django.contrib.auth.models import Group

    analysts = Group.objects.create(name="analysts")
    admin = django_user_model.objects.create_user("admin", password="admin-pass-123", is_staff=True)
    author = django_user_model.objects.create_user("author", password="author-pass-123")
    author.groups.add(analysts)
    outsider = django_user_model.objects.create_user("outsider", password="outsider-pass-123")
    return Cast(admin, author, outsider, analysts)


@pytest.fixture
def api_as():
    """`api_as(user)` → an APIClient signed in with a session, as the browser would be."""
    from rest_framework.test import APIClient

    def make(user):
        client = APIClient()
        client.force_login(user)
        return client

    return make


@pytest.fixture
def closed_port() -> int:
    """A local port nothing listens on, so connections are refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _pg_connect(**overrides):
    import psycopg

    params = {**PG, **overrides}
    try:
        return psycopg.connect(**params, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(
            f"PostgreSQL test server unreachable at {params['host']}:{params['port']} ({exc}). "
            "Start it with scripts/services.sh or point DQ_TEST_PG_HOST/PORT/USER/DB at one.",
            pytrace=False,
        )


def _mysql_connect():
    import pymysql

    try:
        return pymysql.connect(**MYSQL, autocommit=True, connect_timeout=5)
    except pymysql.MySQLError as exc:
        pytest.fail(
            f"MariaDB/MySQL test server unreachable at {MYSQL['host']}:{MYSQL['port']} ({exc}). "
            "Start it with scripts/services.sh or point DQ_TEST_MYSQL_HOST/PORT/USER at one.",
            pytrace=False,
        )


@pytest.fixture(scope="session")
def shared_servers_lock():
    """Held for the whole test session by any session that rebuilds the dq_test schema/database,
    so that two test runs on one machine (several checkouts of the project) do not drop each
    other's tables. A no-op wait for a single run. Checkouts given databases of their own
    (DQ_TEST_PG_DB, DQ_TEST_MYSQL_DB) do not wait for each other."""
    import fcntl

    name = f"dq-test-servers-{PG['dbname']}-{MYSQL_TEST_DB}.lock"
    with open(os.path.join(os.environ.get("TMPDIR", "/tmp"), name), "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="session")
def pg_server(shared_servers_lock):
    """Schema dq_test in the PostgreSQL test database with a small `orders` table."""
    conn = _pg_connect()
    conn.execute(f"DROP SCHEMA IF EXISTS {PG_TEST_SCHEMA} CASCADE")
    conn.execute(f"CREATE SCHEMA {PG_TEST_SCHEMA}")
    conn.execute(
        f"CREATE TABLE {PG_TEST_SCHEMA}.orders (order_id integer PRIMARY KEY, customer_email text, "
        'amount numeric(10,2), created_at timestamp, "Ünïcode note" varchar(40))'
    )
    conn.execute(
        f"INSERT INTO {PG_TEST_SCHEMA}.orders VALUES "
        "(1,'a@example.com',10.50,'2026-11-01 10:00','ok'),"
        "(2,NULL,-3.00,'2026-11-02 11:00','négatif'),"
        "(3,'',7.25,'2026-11-03 12:00',NULL)"
    )
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (PROBE_USER,)).fetchone()
    verb = "ALTER" if exists else "CREATE"
    conn.execute(f"{verb} ROLE {PROBE_USER} LOGIN PASSWORD '{PROBE_PASSWORD}'")
    conn.execute(f"GRANT USAGE ON SCHEMA {PG_TEST_SCHEMA} TO {PROBE_USER}")
    conn.execute(f"GRANT SELECT ON ALL TABLES IN SCHEMA {PG_TEST_SCHEMA} TO {PROBE_USER}")
    yield PG
    conn.execute(f"DROP SCHEMA IF EXISTS {PG_TEST_SCHEMA} CASCADE")
    conn.close()


@pytest.fixture(scope="session")
def mysql_server(shared_servers_lock):
    """Database dq_test on the MariaDB test server with a small `orders` table."""
    conn = _mysql_connect()
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {MYSQL_TEST_DB}")
        cur.execute(f"CREATE DATABASE {MYSQL_TEST_DB} CHARACTER SET utf8mb4")
        cur.execute(
            f"CREATE TABLE {MYSQL_TEST_DB}.orders (order_id INT PRIMARY KEY, customer_email VARCHAR(100), "
            "amount DECIMAL(10,2), created_at DATETIME, `Ünïcode note` VARCHAR(40))"
        )
        cur.execute(
            f"INSERT INTO {MYSQL_TEST_DB}.orders VALUES "
            "(1,'a@example.com',10.50,'2026-11-01 10:00','ok'),"
            "(2,NULL,-3.00,'2026-11-02 11:00','négatif'),"
            "(3,'',7.25,'2026-11-03 12:00',NULL)"
        )
        cur.execute(f"CREATE USER IF NOT EXISTS '{PROBE_USER}'@'%' IDENTIFIED BY '{PROBE_PASSWORD}'")
        cur.execute(f"ALTER USER '{PROBE_USER}'@'%' IDENTIFIED BY '{PROBE_PASSWORD}'")
        cur.execute(f"GRANT SELECT ON {MYSQL_TEST_DB}.* TO '{PROBE_USER}'@'%'")
    yield MYSQL
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {MYSQL_TEST_DB}")
    conn.close()


@pytest.fixture
def file_roots(tmp_path, settings):
    """A DQ_FILE_ROOTS directory for this test, holding Parquet and CSV datasets."""
    root = tmp_path / "files"
    root.mkdir()
    settings.DQ_FILE_ROOTS = [root.resolve()]
    return root


@pytest.fixture
def parquet_dir(file_roots):
    """`orders/` (a partitioned directory), `customers.parquet` (one file), and Spark's `_SUCCESS`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    base = file_roots / "parquet"
    (base / "orders").mkdir(parents=True)
    orders = pa.table(
        {
            "order_id": pa.array([1, 2, 3], pa.int64()),
            "status": ["paid", None, "void"],
            "amount": pa.array([1.5, 2.0, None], pa.float64()),
        }
    )
    pq.write_table(orders, base / "orders" / "part-00000.parquet")
    pq.write_table(
        pa.table({"customer_id": [1, 2], "email": ["x@example.com", "y@example.com"]}), base / "customers.parquet"
    )
    (base / "_SUCCESS").write_text("")
    return base


@pytest.fixture
def csv_dir(file_roots):
    base = file_roots / "csv"
    (base / "people").mkdir(parents=True)
    (base / "events.csv").write_text(
        "event_id,kind,happened_at\n1,click,2026-11-01 10:00:00\n2,view,2026-11-02 11:00:00\n"
    )
    (base / "people" / "part-1.csv").write_text("person_id,name\n1,Zoë\n")
    (base / "notes.txt").write_text("not a dataset")
    return base


@pytest.fixture
def make_datasource(db):
    """`make_datasource(**fields)` → a saved Datasource; `password=` is encrypted like the API does."""
    from datasources.models import Datasource

    def make(**fields):
        password = fields.pop("password", "")
        groups = fields.pop("allowed_groups", [])
        datasource = Datasource(**fields)
        datasource.password = password
        problems = datasource.validate_config()
        assert not problems, problems
        datasource.save()
        datasource.allowed_groups.set(groups)
        return datasource

    return make


@pytest.fixture
def pg_datasource(pg_server, make_datasource):
    return make_datasource(
        name="warehouse-pg",
        **PG_PROBE_DATASOURCE,
    )


@pytest.fixture
def mysql_datasource(mysql_server, make_datasource):
    return make_datasource(
        name="shop-mariadb",
        type="mysql",
        host=MYSQL["host"],
        port=MYSQL["port"],
        database=MYSQL_TEST_DB,
        username=PROBE_USER,
        password=PROBE_PASSWORD,
    )


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # PBKDF2's 1M iterations cost ~0.3 s per user; the cast has three. Hashing strength is not
    # what these tests check.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
