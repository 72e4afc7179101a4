"""The demo data set: small, deterministic, with defects planted in exact, documented numbers.

Pure pyarrow (no Django, no Spark) so that `manage.py load_demo`, tests and benchmarks can all
write it, and so that tests can assert a check finds exactly `DEMO_DEFECTS[...]` bad rows.

Layout under the demo root (settings.VAR_DIR / "demo", one of the default DQ_FILE_ROOTS):

    parquet/orders/part-0000{0,1}.parquet   datasource "demo"      (format parquet)
    csv/customers.csv                       datasource "demo_csv"  (format csv, with a header)
    README.txt                              the planted defects, in words
    manifest.json                           written last: marks a complete, current data set
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

# Bump when the generator changes in a way the manifest's counts would not reveal, so existing
# demo folders are rewritten by the next `load_demo`.
DEMO_VERSION = 1
DEMO_SEED = 20261130

ORDER_STATUSES = ("pending", "paid", "shipped", "delivered", "cancelled")
# Written in the subset of regex syntax that Java (Spark), RE2 (pyarrow) and Python agree on.
# Give it to Spark as a value (Column.rlike): pasted into a SQL string literal, `\.` loses its
# backslash and the pattern matches 3 of the malformed e-mails (measured).
EMAIL_PATTERN = r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$"
# Timeliness window for orders.created_at (a timestamp without time zone, UTC wall-clock).
ORDER_WINDOW = ("2026-01-01 00:00:00", "2026-06-30 23:59:59")
AMOUNT_MIN, AMOUNT_MAX = 0, 10000
COUNTRY_CODE_LENGTH = 2

DEMO_ROWS = {"orders": 5000, "customers": 503}
CUSTOMER_IDS = range(1, 501)

# Exact counts a correct check reports on the demo data; the statistic semantics are dq_engine/vocabulary's.
DEMO_DEFECTS: dict[str, dict[str, int]] = {
    "orders": {
        "customer_email_null": 25,
        "customer_email_empty": 12,
        "null_customer_email": 37,  # null_check: NULL or empty string
        "malformed_customer_email": 18,  # non-empty, not matching EMAIL_PATTERN
        "regexp_customer_email": 30,  # regexp_check with EMAIL_PATTERN: empty + malformed
        "duplicate_order_id_values": 12,  # uniqueness_check: values occurring more than once
        "duplicate_order_id_rows": 26,  # the rows carrying them (10 values twice, 2 three times)
        "status_null": 5,
        "status_bad_value": 15,
        "status_not_in_enum": 20,  # enumeration_check with ORDER_STATUSES: bad values + NULL
        "negative_amount": 14,
        "amount_above_max": 6,  # above AMOUNT_MAX
        "amount_out_of_range": 20,  # value_range_check with AMOUNT_MIN, AMOUNT_MAX
        "created_at_before_window": 9,
        "created_at_after_window": 7,
        "created_at_in_window": 4984,  # timeliness_check statistic over ORDER_WINDOW
        "country_length_not_2": 11,  # field_length_check: length(country) != 2
        "orphan_customer_id": 8,  # multi_table_accuracy: no customers.csv row with that customer_id
    },
    "customers": {
        "duplicate_customer_id_values": 3,
        "duplicate_customer_id_rows": 6,
        "missing_email": 7,  # an empty CSV field: NULL to Spark, "" to pyarrow; null_check counts both
    },
}

_MALFORMED_EMAILS = (
    "alice.example.com",
    "bob@",
    "@example.com",
    "carol@example",
    "dave@@example.com",
    "eve smith@example.com",
)
_BAD_STATUSES = ("PAID", "refunded", "lost", "shiped", "on-hold")
_BAD_COUNTRIES = ("USA", "DEU", "F", "GBR", "FRA", "U")
_COUNTRIES = ("US", "DE", "FR", "GB", "NL", "ES", "IT", "PL", "SE", "JP", "BR", "CA")
_FIRST_NAMES = ("ada", "grace", "alan", "edsger", "barbara", "donald", "frances", "ken", "margaret", "linus")
_LAST_NAMES = ("lovelace", "hopper", "turing", "dijkstra", "liskov", "knuth", "allen", "thompson", "hamilton")
_DOMAINS = ("example.com", "example.org", "mail.example.net")
_ORPHAN_CUSTOMER_ID_BASE = 900_000

_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
_WINDOW_START = datetime.strptime(ORDER_WINDOW[0], _TIME_FORMAT)
_WINDOW_END = datetime.strptime(ORDER_WINDOW[1], _TIME_FORMAT)


@dataclass(frozen=True)
class DemoLayout:
    root: Path

    @property
    def parquet_dir(self) -> Path:
        return self.root / "parquet"

    @property
    def csv_dir(self) -> Path:
        return self.root / "csv"

    @property
    def orders_dir(self) -> Path:
        return self.parquet_dir / "orders"

    @property
    def customers_csv(self) -> Path:
        return self.csv_dir / "customers.csv"

    @property
    def readme(self) -> Path:
        return self.root / "README.txt"

    @property
    def manifest(self) -> Path:
        return self.root / "manifest.json"


def ensure_demo_data(root: Path, force: bool = False) -> bool:
    """Write the demo data set under `root` unless a complete, current one is there; True if written."""
    layout = DemoLayout(root)
    if not force and _is_current(layout):
        return False
    _write(layout)
    return True


def _manifest() -> dict:
    return {"version": DEMO_VERSION, "seed": DEMO_SEED, "rows": DEMO_ROWS, "defects": DEMO_DEFECTS}


def _is_current(layout: DemoLayout) -> bool:
    try:
        manifest = json.loads(layout.manifest.read_text())
    except (OSError, ValueError):
        return False
    return manifest == _manifest() and layout.orders_dir.is_dir() and layout.customers_csv.is_file()


def _write(layout: DemoLayout) -> None:
    # The manifest goes last and first out: an interrupted run leaves no manifest, so the next
    # run rewrites everything instead of serving half a data set.
    layout.manifest.unlink(missing_ok=True)
    shutil.rmtree(layout.orders_dir, ignore_errors=True)
    layout.orders_dir.mkdir(parents=True)
    layout.csv_dir.mkdir(parents=True, exist_ok=True)
    orders = build_orders()
    # Two files, so that readers meet a real directory data set rather than a single file.
    half = orders.num_rows // 2
    pq.write_table(orders.slice(0, half), layout.orders_dir / "part-00000.parquet")
    pq.write_table(orders.slice(half), layout.orders_dir / "part-00001.parquet")
    # pyarrow quotes strings and writes NULL as a bare empty field, which Spark reads back as NULL.
    pa_csv.write_csv(build_customers(), layout.customers_csv)
    layout.readme.write_text(readme_text())
    layout.manifest.write_text(json.dumps(_manifest(), indent=2) + "\n")


def _email(customer_id: int) -> str:
    first = _FIRST_NAMES[customer_id % len(_FIRST_NAMES)]
    last = _LAST_NAMES[customer_id % len(_LAST_NAMES)]
    return f"{first}.{last}{customer_id}@{_DOMAINS[customer_id % len(_DOMAINS)]}"


def _disjoint_rows(rng: random.Random, total: int, *counts: int) -> list[list[int]]:
    """Distinct row indexes, split into groups of `counts`, so that planted defects never overlap."""
    picked = rng.sample(range(total), sum(counts))
    groups, start = [], 0
    for count in counts:
        groups.append(picked[start : start + count])
        start += count
    return groups


def _plant(column: list, rows: Sequence[int], values: Sequence) -> None:
    for i, row in enumerate(rows):
        column[row] = values[i % len(values)]


def build_orders() -> pa.Table:
    defects = DEMO_DEFECTS["orders"]
    total = DEMO_ROWS["orders"]
    rng = random.Random(DEMO_SEED)
    window_seconds = int((_WINDOW_END - _WINDOW_START).total_seconds())

    order_id = [100_001 + i for i in range(total)]
    customer_id = [rng.choice(CUSTOMER_IDS) for _ in range(total)]
    email: list[str | None] = [_email(c) for c in customer_id]
    status: list[str | None] = [rng.choice(ORDER_STATUSES) for _ in range(total)]
    amount = [round(rng.uniform(5, 2000), 2) for _ in range(total)]
    created_at = [_WINDOW_START + timedelta(seconds=rng.randint(0, window_seconds)) for _ in range(total)]
    country = [rng.choice(_COUNTRIES) for _ in range(total)]

    _plant_duplicate_ids(rng, order_id, defects["duplicate_order_id_values"], defects["duplicate_order_id_rows"])

    nulls, empties, malformed = _disjoint_rows(
        rng, total, defects["customer_email_null"], defects["customer_email_empty"], defects["malformed_customer_email"]
    )
    _plant(email, nulls, [None])
    _plant(email, empties, [""])
    _plant(email, malformed, _MALFORMED_EMAILS)

    nulls, bad = _disjoint_rows(rng, total, defects["status_null"], defects["status_bad_value"])
    _plant(status, nulls, [None])
    _plant(status, bad, _BAD_STATUSES)

    negative, too_big = _disjoint_rows(rng, total, defects["negative_amount"], defects["amount_above_max"])
    _plant(amount, negative, [-round(rng.uniform(1, 500), 2) for _ in negative])
    _plant(amount, too_big, [round(rng.uniform(AMOUNT_MAX + 1, 5 * AMOUNT_MAX), 2) for _ in too_big])

    early, late = _disjoint_rows(rng, total, defects["created_at_before_window"], defects["created_at_after_window"])
    _plant(created_at, early, [_WINDOW_START - timedelta(seconds=rng.randint(1, 90 * 86400)) for _ in early])
    _plant(created_at, late, [_WINDOW_END + timedelta(seconds=rng.randint(1, 90 * 86400)) for _ in late])

    (bad_countries,) = _disjoint_rows(rng, total, defects["country_length_not_2"])
    _plant(country, bad_countries, _BAD_COUNTRIES)

    (orphans,) = _disjoint_rows(rng, total, defects["orphan_customer_id"])
    _plant(customer_id, orphans, [_ORPHAN_CUSTOMER_ID_BASE + i for i in range(1, len(orphans) + 1)])

    return pa.table(
        {
            "order_id": pa.array(order_id, pa.int64()),
            "customer_id": pa.array(customer_id, pa.int64()),
            "customer_email": pa.array(email, pa.string()),
            "status": pa.array(status, pa.string()),
            "amount": pa.array(amount, pa.float64()),
            "created_at": pa.array(created_at, pa.timestamp("us")),
            "country": pa.array(country, pa.string()),
        }
    )


def _plant_duplicate_ids(rng: random.Random, ids: list[int], values: int, rows: int) -> None:
    """Make `values` ids occur more than once, on `rows` rows in all, by copying them over others.

    The extra copies go round-robin over the chosen ids (with 12 values on 26 rows: ten ids twice,
    two ids three times); the overwritten ids simply disappear, so no other id is duplicated.
    """
    sources, targets = _disjoint_rows(rng, len(ids), values, rows - values)
    for i, target in enumerate(targets):
        ids[target] = ids[sources[i % values]]


def build_customers() -> pa.Table:
    defects = DEMO_DEFECTS["customers"]
    rng = random.Random(DEMO_SEED + 1)
    ids = list(CUSTOMER_IDS)
    # Conflicting duplicates: the same id appended again, with a different name and e-mail.
    duplicated = rng.sample(ids, defects["duplicate_customer_id_values"])
    ids += duplicated
    names = [f"{_FIRST_NAMES[i % len(_FIRST_NAMES)].title()} {_LAST_NAMES[i % len(_LAST_NAMES)].title()}" for i in ids]
    emails: list[str | None] = [_email(i) for i in ids]
    for row in range(len(CUSTOMER_IDS), len(ids)):
        names[row] += " (duplicate)"
        emails[row] = f"dup.{emails[row]}"
    (missing,) = _disjoint_rows(rng, len(ids), defects["missing_email"])
    _plant(emails, missing, [None])
    return pa.table(
        {
            "customer_id": pa.array(ids, pa.int64()),
            "name": pa.array(names, pa.string()),
            "email": pa.array(emails, pa.string()),
            "country": pa.array([rng.choice(_COUNTRIES) for _ in ids], pa.string()),
            "signup_date": pa.array([date(2025, 1, 1) + timedelta(days=rng.randint(0, 364)) for _ in ids], pa.date32()),
        }
    )


def readme_text() -> str:
    orders, customers = DEMO_DEFECTS["orders"], DEMO_DEFECTS["customers"]
    return f"""Demo data for the data-quality platform (written by `manage.py load_demo`; version {DEMO_VERSION}).
Deterministic (seed {DEMO_SEED}); the counts below are exact. They are also the constant
DEMO_DEFECTS in demo/data.py, which tests assert against.

parquet/orders/  (datasource "demo", format parquet; {DEMO_ROWS["orders"]} rows)
  order_id        int64: {orders["duplicate_order_id_values"]} values occur more than once, \
on {orders["duplicate_order_id_rows"]} rows
  customer_id     int64: {orders["orphan_customer_id"]} rows have no matching customer_id in csv/customers.csv
  customer_email  string: {orders["customer_email_null"]} NULL + {orders["customer_email_empty"]} empty \
= {orders["null_customer_email"]} for a null check;
                  {orders["malformed_customer_email"]} malformed; {orders["regexp_customer_email"]} non-null \
values do not match
                  {EMAIL_PATTERN}
  status          string: {orders["status_bad_value"]} values outside {", ".join(ORDER_STATUSES)} \
+ {orders["status_null"]} NULL = {orders["status_not_in_enum"]}
  amount          double: {orders["negative_amount"]} negative, {orders["amount_above_max"]} above {AMOUNT_MAX} \
= {orders["amount_out_of_range"]} outside [{AMOUNT_MIN}, {AMOUNT_MAX}]
  created_at      timestamp without time zone (UTC): {orders["created_at_before_window"]} before and \
{orders["created_at_after_window"]} after
                  the window [{ORDER_WINDOW[0]}, {ORDER_WINDOW[1]}]; {orders["created_at_in_window"]} rows lie within it
  country         string: {orders["country_length_not_2"]} codes whose length is not {COUNTRY_CODE_LENGTH}

csv/customers.csv  (datasource "demo_csv", format csv with a header; {DEMO_ROWS["customers"]} rows)
  customer_id     {customers["duplicate_customer_id_values"]} ids occur twice ({customers["duplicate_customer_id_rows"]} rows)
  email           {customers["missing_email"]} rows have an empty field
"""
