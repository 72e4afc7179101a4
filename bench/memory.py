"""What a running `make run` holds in memory after checks ran on files and on both databases.

Against a running platform (`make run`, or `PORT=8101 DQ_VAR_DIR=... make run`): makes a user in
its var directory, loads the bench's orders and customers (bench/generate.py, 20,000 rows) into
PostgreSQL and MariaDB (the DQ_TEST_PG_* / DQ_TEST_MYSQL_* servers, schema/database `dq_mem`),
adds the two servers as datasources through the API, creates the e2e bench's 14 checks on each
and runs them (engine `auto`: pushdown for the databases), runs every check already there (the
demo's, on files) the same number of times, then prints the resident memory (RSS, /proc) of each
process of the web server (gunicorn) and of the Celery worker (main, pool child, embedded beat)
and their sum: `rss_mb=<sum>`.

Run: `.venv/bin/python -m bench.memory --url http://127.0.0.1:8101 --var-dir var-run [--runs 3]`.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from bench import e2e
from bench import generate as gen

ROOT = Path(__file__).resolve().parents[1]
USER, PASSWORD = "bench-memory", "bench-memory-pass-1"
SCHEMA = "dq_mem"


def make_user(var_dir: Path) -> None:
    script = (
        "from django.contrib.auth import get_user_model; U = get_user_model(); "
        f"U.objects.filter(username={USER!r}).exists() or "
        f"U.objects.create_superuser({USER!r}, 'memory@example.org', {PASSWORD!r})"
    )
    env = {**os.environ, "DQ_VAR_DIR": str(var_dir.resolve())}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "shell", "-c", script], env=env, check=True, cwd=ROOT)


def _rows(dataset: gen.Dataset) -> tuple[list[tuple], list[tuple]]:
    import pyarrow.parquet as pq

    orders = pq.read_table(dataset.orders).to_pylist()
    customers = pq.read_table(dataset.customers).to_pylist()
    return [tuple(r.values()) for r in orders], [(r["customer_id"],) for r in customers]


ORDERS_DDL = (
    "order_id bigint, customer_id bigint, customer_email varchar(200), status varchar(40), currency varchar(10), "
    "country_code varchar(10), amount decimal(12,2), quantity integer, created_at {ts}"
)


def load_databases(dataset: gen.Dataset) -> None:
    import psycopg
    import pymysql

    from conftest import MYSQL, PG

    orders, customers = _rows(dataset)
    marks = ", ".join(["%s"] * len(orders[0]))
    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        conn.execute(f"CREATE SCHEMA {SCHEMA}")
        conn.execute(f"CREATE TABLE {SCHEMA}.orders ({ORDERS_DDL.format(ts='timestamp')})")
        conn.execute(f"CREATE TABLE {SCHEMA}.customers (customer_id bigint)")
        with conn.cursor() as cur:
            cur.executemany(f"INSERT INTO {SCHEMA}.orders VALUES ({marks})", orders)  # noqa: S608 - constant names
            cur.executemany(f"INSERT INTO {SCHEMA}.customers VALUES (%s)", customers)  # noqa: S608
    conn = pymysql.connect(**MYSQL, autocommit=True)
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {SCHEMA}")
        cur.execute(f"CREATE DATABASE {SCHEMA} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        cur.execute(f"CREATE TABLE {SCHEMA}.orders ({ORDERS_DDL.format(ts='datetime')})")
        cur.execute(f"CREATE TABLE {SCHEMA}.customers (customer_id bigint)")
        cur.executemany(f"INSERT INTO {SCHEMA}.orders VALUES ({marks})", orders)  # noqa: S608 - constant names
        cur.executemany(f"INSERT INTO {SCHEMA}.customers VALUES (%s)", customers)  # noqa: S608
    conn.close()


def add_datasources(api: e2e.Api) -> list[int]:
    """Check ids: the e2e bench's 14 checks on each database (tables `dq_mem.orders`, `.customers`)."""
    from conftest import MYSQL, PG

    suffix = os.urandom(3).hex()
    servers = [
        {
            "type": "postgresql",
            "host": PG["host"],
            "port": PG["port"],
            "database": PG["dbname"],
            "username": PG["user"],
        },
        {"type": "mysql", "host": MYSQL["host"], "port": MYSQL["port"], "database": SCHEMA, "username": MYSQL["user"]},
    ]
    ids = []
    for server in servers:
        source = api.call("POST", "/api/v1/datasources/", {"name": f"mem-{server['type']}-{suffix}", **server})
        for name, template, params in e2e.checks(source["id"], f"{SCHEMA}.orders", f"{SCHEMA}.customers"):
            body = {
                "name": f"{name} ({server['type']} {suffix})",
                "template": template,
                "params": {**params, **e2e.VERDICT},
            }
            ids.append(api.call("POST", "/api/v1/checks/", body)["id"])
    return ids


def _status(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/status") as handle:
        return dict(line.rstrip("\n").split(":\t", 1) for line in handle if ":\t" in line)


def _pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            return next((int(line.split()[1]) for line in handle if line.startswith("Pss:")), 0)
    except OSError:
        return 0


def server_processes(var_dir: Path) -> list[tuple[int, str, int]]:
    """(pid, role, RSS in kB) of the gunicorn and Celery processes started with this var dir."""
    wanted = f"DQ_VAR_DIR={var_dir.resolve()}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            command = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            rss = int(_status(int(entry)).get("VmRSS", "0 kB").split()[0])
        except (OSError, ValueError):
            continue
        relative = wanted.replace(str(var_dir.resolve()).encode(), str(var_dir).encode())
        if wanted not in environ and relative not in environ:
            continue
        role = "gunicorn" if "gunicorn" in command else "celery" if "celery" in command else None
        if role:
            found.append((int(entry), f"{role}: {command[:90]}", rss))
    return sorted(found)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="RSS of a running make run after checks on files and databases.")
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--var-dir", type=Path, default=Path(os.environ.get("DQ_VAR_DIR", "var")))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--measure-only", action="store_true", help="only print the processes' memory")
    args = parser.parse_args(argv)
    if not args.measure_only:
        make_user(args.var_dir)
        api = e2e.Api(args.url)
        api.token = api.call("POST", "/api/v1/auth/token/", {"username": USER, "password": PASSWORD})["token"]
        files = {d["id"] for d in _all(api, "/api/v1/datasources/") if d["type"] == "file"}
        existing = [c["id"] for c in _all(api, "/api/v1/checks/") if c["params"].get("src_datasource_id") in files]
        load_databases(gen.generate(20_000, gen.DEFAULT_DIR, log=lambda _: None))
        database_checks = add_datasources(api)
        for attempt in range(args.runs):
            for label, ids in (("files", existing), ("databases", database_checks)):
                seconds, run = api.run(ids, "auto", poll=0.2)
                engines = sorted({b.get("engine", "?") for b in run["batches"].values()})
                errors = [r["message"] for r in run["results"] if r["status"] == "error"]
                print(
                    f"run {attempt + 1} on {label}: {run['status']} in {seconds:.1f} s, engines {engines}, {len(errors)} errors"
                )
                for message in errors[:3]:
                    print(f"   error: {message}")
    total = shared_total = 0
    for pid, role, rss in server_processes(args.var_dir):
        pss = _pss(pid)
        total, shared_total = total + rss, shared_total + pss
        print(f"{pid:>8} {rss / 1024:>8.1f} MB RSS {pss / 1024:>8.1f} MB PSS  {role}")
    print(f"load={os.getloadavg()[0]:.2f}")
    # RSS counts pages a forked child shares with its parent once per process; PSS splits them.
    print(f"pss_mb={shared_total / 1024:.0f}")
    print(f"rss_mb={total / 1024:.0f}")


def _all(api: e2e.Api, path: str) -> list[dict]:
    page = api.call("GET", path)
    if isinstance(page, list):
        return page
    items = list(page["results"])
    while page.get("next"):
        page = api.call("GET", "/" + page["next"].split("://", 1)[-1].split("/", 1)[1])
        items += page["results"]
    return items


if __name__ == "__main__":
    main()
