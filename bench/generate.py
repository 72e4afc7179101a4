"""Write the benchmark's `orders` Parquet dataset (millions of rows, planted defects) and its `customers`.

Layout under `BENCH_DIR` (default `var/bench`):

    orders_<rows>/part-00000.parquet ...   one file per chunk of 1M rows
    orders_<rows>/_manifest.json           generator version, seed, rates, and the exact planted counts
    customers_<rows>/part-00000.parquet    customer_id 1..rows/10 (the accuracy check's target)

Every defect is drawn at a known rate from a seeded generator, and the generator counts exactly what
it planted (`planted` in the manifest), so the benchmark can check that both the engine and the
one-query-per-rule way compute the right numbers. A dataset is reused when its manifest has the same
row count, seed and GENERATOR_VERSION; bump the version whenever the data it writes changes.

Vectorised numpy + pyarrow, one chunk at a time (10M rows take about 8 s here); no Spark.
Run: `python -m bench.generate --rows 5000000`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import time
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

GENERATOR_VERSION = 1
DEFAULT_SEED = 20261130
CHUNK_ROWS = 1_000_000
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DIR = REPO_ROOT / "var" / "bench"

# Defect rates (fractions of all rows). Categories of one column exclude each other.
RATES = {
    "email_null": 0.010,
    "email_empty": 0.005,
    "email_malformed": 0.020,
    "status_null": 0.005,
    "status_unknown": 0.010,
    "currency_unknown": 0.005,
    "country_null": 0.003,
    "country_bad_length": 0.007,
    "amount_null": 0.002,
    "amount_negative": 0.005,
    "amount_huge": 0.001,
    "quantity_out_of_range": 0.003,
    "created_null": 0.001,
    "created_out_of_window": 0.015,
    "order_id_duplicate": 0.001,
    "customer_orphan": 0.004,
}

STATUSES = ["pending", "paid", "shipped", "delivered", "cancelled", "refunded"]
STATUS_WEIGHTS = [0.10, 0.30, 0.20, 0.30, 0.06, 0.04]
UNKNOWN_STATUSES = ["PAID", "lost", "on_hold", "unknown"]
SETTLED_STATUSES = ("paid", "shipped", "delivered")  # the custom SQL check's "settled" orders
CURRENCIES = ["EUR", "USD", "GBP", "CHF"]
UNKNOWN_CURRENCIES = ["usd", "XXX", "EURO"]
COUNTRIES = ["DE", "FR", "GB", "US", "NL", "BE", "AT", "CH", "ES", "IT", "PL", "SE", "DK", "NO", "FI", "IE", "PT", "CZ"]
BAD_COUNTRIES = ["DEU", "U", "", "GBR", "F R"]  # "" is also counted by the null-or-empty check
DOMAINS = ["example.com", "mail.example.org", "shop.example.co.uk"]
# (prefix, suffix) around the customer id: none of these match EMAIL_PATTERN.
MALFORMED_EMAILS = [
    ("user", "example.com"),
    ("user", "@example"),
    ("user ", "@example.com"),
    ("user", "@@example.com"),
    ("user", "@example.c"),
]
# The everyday email pattern (the one people paste into regexp checks); the backslash also tests
# that both ways pass it to Java's regex engine unchanged.
EMAIL_PATTERN = r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$"

# Timeliness window. In-window times stay a day inside it and out-of-window times months outside,
# so the planted count holds in any session time zone.
WINDOW_BEGIN = "2024-01-01 00:00:00"
WINDOW_END = "2025-12-31 23:59:59"
_IN_WINDOW = ("2024-01-02", "2025-12-30")
_BEFORE_WINDOW = ("2019-01-01", "2023-06-30")
_AFTER_WINDOW = ("2026-06-01", "2030-12-31")

AMOUNT_MIN, AMOUNT_MAX = 0, 1_000_000  # value range check bounds (amount is decimal(12,2))
QUANTITY_MIN, QUANTITY_MAX = 1, 100
ORPHAN_ID_SPAN = 1000  # orphan customer ids are drawn from customers+1 .. customers+ORPHAN_ID_SPAN


@dataclass(frozen=True)
class Dataset:
    orders: Path
    customers: Path
    manifest: dict

    @property
    def rows(self) -> int:
        return self.manifest["rows"]

    @property
    def planted(self) -> dict:
        return self.manifest["planted"]


def customers_for(rows: int) -> int:
    """Customer count: ten orders per customer on average (customer_id is a second, smaller group-by key)."""
    return max(100, rows // 10)


def dataset_dirs(base_dir: Path, rows: int) -> tuple[Path, Path]:
    return base_dir / f"orders_{rows}", base_dir / f"customers_{rows}"


def generate(
    rows: int,
    base_dir: Path | str = DEFAULT_DIR,
    seed: int = DEFAULT_SEED,
    force: bool = False,
    chunk_rows: int = CHUNK_ROWS,
    log=print,
) -> Dataset:
    """Write (or reuse) the orders + customers datasets for `rows` rows and return where they are."""
    if rows < 1000:
        raise ValueError("Use at least 1000 rows: below that some planted defects would round to zero.")
    orders_dir, customers_dir = dataset_dirs(Path(base_dir), rows)
    existing = _read_manifest(orders_dir)
    wanted = {"generator_version": GENERATOR_VERSION, "rows": rows, "seed": seed}
    if not force and existing and all(existing.get(k) == v for k, v in wanted.items()) and customers_dir.is_dir():
        log(f"reusing {orders_dir} ({rows:,} rows, generator v{GENERATOR_VERSION})")
        return Dataset(orders_dir, customers_dir, existing)
    started = time.perf_counter()
    n_customers = customers_for(rows)
    _write_customers(customers_dir, n_customers, seed)
    planted = _write_orders(orders_dir, rows, n_customers, seed, chunk_rows)
    manifest = {**wanted, "customers": n_customers, "rates": RATES, "planted": planted}
    (orders_dir / "_manifest.json").write_text(json.dumps(manifest, indent=2))  # written last: marks completion
    log(f"generated {orders_dir} ({rows:,} rows) and {customers_dir} in {time.perf_counter() - started:.1f} s")
    return Dataset(orders_dir, customers_dir, manifest)


def _read_manifest(orders_dir: Path) -> dict | None:
    try:
        return json.loads((orders_dir / "_manifest.json").read_text())
    except (OSError, ValueError):
        return None


def _fresh_dir(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)


# --- customers ----------------------------------------------------------------------------------
def _write_customers(path: Path, n_customers: int, seed: int) -> None:
    _fresh_dir(path)
    rng = np.random.default_rng([seed, 999_999])
    ids = np.arange(1, n_customers + 1, dtype=np.int64)
    table = pa.table(
        {
            "customer_id": ids,
            "customer_name": pc.binary_join_element_wise("Customer ", pc.cast(pa.array(ids), pa.string()), ""),
            "country_code": pa.array(COUNTRIES).take(pa.array(rng.integers(0, len(COUNTRIES), n_customers))),
        }
    )
    pq.write_table(table, path / "part-00000.parquet", compression="snappy")


# --- orders -------------------------------------------------------------------------------------
def _write_orders(path: Path, rows: int, n_customers: int, seed: int, chunk_rows: int) -> dict:
    _fresh_dir(path)
    totals = _Totals(n_customers)
    for index, start in enumerate(range(0, rows, chunk_rows)):
        n = min(chunk_rows, rows - start)
        table = _orders_chunk(np.random.default_rng([seed, index]), start, n, n_customers, totals)
        pq.write_table(table, path / f"part-{index:05d}.parquet", compression="snappy", row_group_size=chunk_rows)
    return totals.planted(rows)


class _Totals:
    """Exact counts of what the chunks planted, summed over chunks."""

    def __init__(self, n_customers: int):
        self.counts: dict[str, int] = {}
        self.customer_hits = np.zeros(n_customers + ORPHAN_ID_SPAN + 1, dtype=np.int64)
        self.countries: set[str] = set()
        self.amount_cents_sum = 0
        self.amount_non_null = 0
        self.amount_max_cents: int | None = None

    def add(self, name: str, value) -> None:
        self.counts[name] = self.counts.get(name, 0) + int(value)

    def planted(self, rows: int) -> dict:
        c = self.counts
        avg = (Decimal(self.amount_cents_sum) / 100 / self.amount_non_null).quantize(Decimal("0.000001"), ROUND_HALF_UP)
        return {
            "rows": rows,
            "order_id_null": 0,
            "customer_id_below_one": 0,
            "email_null_or_empty": c["email_null"] + c["email_empty"],
            "email_regexp_mismatch": c["email_empty"] + c["email_malformed"],  # NULLs are not mismatches
            "status_not_in_list_or_null": c["status_null"] + c["status_unknown"],
            "currency_not_in_list_or_null": c["currency_unknown"],
            "country_null_or_empty": c["country_null"] + c["country_empty"],
            "country_length_not_2": c["country_bad_length"],  # NULL lengths are not counted
            "amount_outside_range": c["amount_negative"] + c["amount_huge"],
            "quantity_outside_range": c["quantity_out_of_range"],
            "created_in_window": rows - c["created_null"] - c["created_out_of_window"],
            "amount_avg": str(avg),
            "amount_max": str(Decimal(self.amount_max_cents) / 100),
            "quantity_sum": c["quantity_sum"],
            "order_id_duplicated_values": c["order_id_duplicate"],
            "customer_id_duplicated_values": int((self.customer_hits > 1).sum()),
            "orphan_customer_rows": c["customer_orphan"],
            "settled_negative_amount": c["settled_negative_amount"],
            "distinct_country_codes": len(self.countries),
        }


def _categories(rng: np.random.Generator, n: int, *rates: float) -> np.ndarray:
    """Per row: 0..len(rates)-1 for the defect drawn (mutually exclusive), len(rates) for a clean value."""
    bounds = np.cumsum(rates)
    return np.searchsorted(bounds, rng.random(n), side="right")


def _orders_chunk(rng: np.random.Generator, start: int, n: int, n_customers: int, totals: _Totals) -> pa.Table:
    row = np.arange(start, start + n, dtype=np.int64)
    order_id = _order_ids(rng, row, totals)
    customer_id = _customer_ids(rng, n, n_customers, totals)
    email = _emails(rng, customer_id, totals)
    status, settled = _statuses(rng, n, totals)
    return pa.table(
        {
            "order_id": order_id,
            "customer_id": customer_id,
            "customer_email": email,
            "status": status,
            "currency": _currencies(rng, n, totals),
            "country_code": _countries(rng, n, totals),
            "amount": _amounts(rng, n, settled, totals),
            "quantity": _quantities(rng, n, totals),
            "created_at": _created_at(rng, n, totals),
        }
    )


def _order_ids(rng, row: np.ndarray, totals: _Totals) -> np.ndarray:
    # A duplicate sits on an odd row and copies the id of the even row before it, which is never a
    # duplicate itself: every duplicate makes exactly one value that occurs exactly twice.
    ids = row + 1
    duplicate = (row % 2 == 1) & (rng.random(len(row)) < 2 * RATES["order_id_duplicate"])
    ids[duplicate] = row[duplicate]
    totals.add("order_id_duplicate", duplicate.sum())
    return ids


def _customer_ids(rng, n: int, n_customers: int, totals: _Totals) -> np.ndarray:
    orphan = rng.random(n) < RATES["customer_orphan"]
    ids = rng.integers(1, n_customers + 1, n, dtype=np.int64)
    ids[orphan] = rng.integers(n_customers + 1, n_customers + ORPHAN_ID_SPAN + 1, int(orphan.sum()))
    totals.add("customer_orphan", orphan.sum())
    totals.customer_hits += np.bincount(ids, minlength=len(totals.customer_hits))
    return ids


def _emails(rng, customer_id: np.ndarray, totals: _Totals) -> pa.Array:
    n = len(customer_id)
    cat = _categories(rng, n, RATES["email_null"], RATES["email_empty"], RATES["email_malformed"])
    id_text = pc.cast(pa.array(customer_id), pa.string())
    domain = pa.array(DOMAINS).take(pa.array(rng.integers(0, len(DOMAINS), n)))
    email = pc.binary_join_element_wise("user", id_text, "@", domain, "")
    shape = pa.array(rng.integers(0, len(MALFORMED_EMAILS), n))
    prefixes, suffixes = (pa.array(list(part)) for part in zip(*MALFORMED_EMAILS, strict=True))
    malformed = pc.binary_join_element_wise(prefixes.take(shape), id_text, suffixes.take(shape), "")
    email = pc.if_else(pa.array(cat == 2), malformed, email)
    email = pc.if_else(pa.array(cat == 1), pa.scalar("", pa.string()), email)
    email = pc.if_else(pa.array(cat == 0), pa.scalar(None, pa.string()), email)
    for index, name in enumerate(("email_null", "email_empty", "email_malformed")):
        totals.add(name, (cat == index).sum())
    return email


def _statuses(rng, n: int, totals: _Totals) -> tuple[pa.Array, np.ndarray]:
    """The status column, and which rows are settled (for the custom SQL check's planted count)."""
    cat = _categories(rng, n, RATES["status_null"], RATES["status_unknown"])
    index = rng.choice(len(STATUSES), size=n, p=STATUS_WEIGHTS)
    unknown, null = cat == 1, cat == 0
    index[unknown] = len(STATUSES) + rng.integers(0, len(UNKNOWN_STATUSES), int(unknown.sum()))
    totals.add("status_null", null.sum())
    totals.add("status_unknown", unknown.sum())
    settled = ~null & np.isin(index, [STATUSES.index(s) for s in SETTLED_STATUSES])
    return pa.array(STATUSES + UNKNOWN_STATUSES).take(pa.array(index, mask=null)), settled


def _currencies(rng, n: int, totals: _Totals) -> pa.Array:
    unknown = rng.random(n) < RATES["currency_unknown"]
    index = rng.choice(len(CURRENCIES), size=n, p=[0.6, 0.25, 0.1, 0.05])
    index[unknown] = len(CURRENCIES) + rng.integers(0, len(UNKNOWN_CURRENCIES), int(unknown.sum()))
    totals.add("currency_unknown", unknown.sum())
    return pa.array(CURRENCIES + UNKNOWN_CURRENCIES).take(pa.array(index))


def _countries(rng, n: int, totals: _Totals) -> pa.Array:
    cat = _categories(rng, n, RATES["country_null"], RATES["country_bad_length"])
    pool = COUNTRIES + BAD_COUNTRIES
    index = rng.integers(0, len(COUNTRIES), n)
    bad = cat == 1
    index[bad] = len(COUNTRIES) + rng.integers(0, len(BAD_COUNTRIES), int(bad.sum()))
    null = cat == 0
    totals.add("country_null", null.sum())
    totals.add("country_bad_length", bad.sum())
    totals.add("country_empty", (bad & (index == len(COUNTRIES) + BAD_COUNTRIES.index(""))).sum())
    totals.countries.update(pool[i] for i in np.unique(index[~null]))
    return pa.array(pool).take(pa.array(index, mask=null))


def _amounts(rng, n: int, settled: np.ndarray, totals: _Totals) -> pa.Array:
    cat = _categories(rng, n, RATES["amount_null"], RATES["amount_negative"], RATES["amount_huge"])
    cents = np.clip(np.round(np.exp(rng.normal(3.5, 1.0, n)) * 100), 1, AMOUNT_MAX * 100).astype(np.int64)
    negative, huge, null = cat == 1, cat == 2, cat == 0
    cents[negative] = -rng.integers(1, 50_000, int(negative.sum()))
    cents[huge] = rng.integers(AMOUNT_MAX * 100 + 1, 10 * AMOUNT_MAX * 100, int(huge.sum()))
    cents[null] = 0
    for index, name in enumerate(("amount_null", "amount_negative", "amount_huge")):
        totals.add(name, (cat == index).sum())
    totals.add("settled_negative_amount", (settled & negative).sum())
    totals.amount_cents_sum += int(cents[~null].sum())
    totals.amount_non_null += int((~null).sum())
    chunk_max = int(cents[~null].max())
    totals.amount_max_cents = chunk_max if totals.amount_max_cents is None else max(totals.amount_max_cents, chunk_max)
    return _decimal_12_2(cents, null)


def _decimal_12_2(cents: np.ndarray, null: np.ndarray) -> pa.Array:
    """decimal(12,2) straight from integer cents: little-endian 128-bit words, sign-extended."""
    words = np.empty((len(cents), 2), dtype=np.int64)
    words[:, 0] = cents
    words[:, 1] = cents >> 63
    validity = pa.array(~null).buffers()[1]
    return pa.Array.from_buffers(pa.decimal128(12, 2), len(cents), [validity, pa.py_buffer(words)])


def _quantities(rng, n: int, totals: _Totals) -> np.ndarray:
    quantity = np.minimum(1 + rng.poisson(1.5, n), QUANTITY_MAX).astype(np.int32)
    bad = rng.random(n) < RATES["quantity_out_of_range"]
    quantity[bad] = np.where(rng.random(int(bad.sum())) < 0.5, 0, rng.integers(QUANTITY_MAX + 1, 1000, int(bad.sum())))
    totals.add("quantity_out_of_range", bad.sum())
    totals.add("quantity_sum", quantity.sum(dtype=np.int64))
    return quantity


def _micros(day: str) -> int:
    return int(np.datetime64(day, "us").astype(np.int64))


def _created_at(rng, n: int, totals: _Totals) -> pa.Array:
    cat = _categories(rng, n, RATES["created_null"], RATES["created_out_of_window"])
    micros = rng.integers(_micros(_IN_WINDOW[0]), _micros(_IN_WINDOW[1]), n)
    out = cat == 1
    before = rng.integers(_micros(_BEFORE_WINDOW[0]), _micros(_BEFORE_WINDOW[1]), n)
    after = rng.integers(_micros(_AFTER_WINDOW[0]), _micros(_AFTER_WINDOW[1]), n)
    micros[out] = np.where(rng.random(n) < 0.5, before, after)[out]
    totals.add("created_null", (cat == 0).sum())
    totals.add("created_out_of_window", out.sum())
    return pa.array(micros, type=pa.timestamp("us", tz="UTC"), mask=cat == 0)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=int(os.environ.get("BENCH_ROWS", "5000000")))
    parser.add_argument("--dir", type=Path, default=Path(os.environ.get("BENCH_DIR", DEFAULT_DIR)))
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--force", action="store_true", help="rewrite even if a matching dataset exists")
    args = parser.parse_args(argv)
    dataset = generate(args.rows, args.dir, seed=args.seed, force=args.force)
    print(json.dumps(dataset.planted, indent=2))


if __name__ == "__main__":
    main()
