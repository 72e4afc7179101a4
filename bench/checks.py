"""The benchmark's 20 checks over the generated orders, as dq_engine job specs.

One batch over `orders` (no filter) holds every check; a second batch over `customers` is the
accuracy check's target. `full_set_spec` has all 20; `row_level_spec` keeps the 12 checks that are
conditional counts or the row count (what one aggregate pass over the batch answers).

Each check also names the key of `planted` in the generator's manifest that holds its true value,
so the numbers can be checked against what the generator put in the data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bench import generate as g

ORDERS_BATCH = "orders"
CUSTOMERS_BATCH = "customers"


@dataclass(frozen=True)
class BenchCheck:
    id: str
    metric: dict[str, Any]
    planted: str  # key in the manifest's `planted`
    target_batch: str | None = None

    @property
    def row_level(self) -> bool:
        return self.metric["kind"] in ("conditional_count", "row_count")


def _count(predicate: str, column: str, **fields: Any) -> dict[str, Any]:
    return {"kind": "conditional_count", "predicate": predicate, "column": column, **fields}


CHECKS: tuple[BenchCheck, ...] = (
    # --- row level: conditional counts and the row count (one aggregate pass) ---
    BenchCheck("row_count", {"kind": "row_count"}, "rows"),
    BenchCheck("order_id_null", _count("null_or_empty", "order_id"), "order_id_null"),
    BenchCheck("customer_id_range", _count("outside_range", "customer_id", min=1, max=None), "customer_id_below_one"),
    BenchCheck("email_null", _count("null_or_empty", "customer_email"), "email_null_or_empty"),
    BenchCheck(
        "email_regexp", _count("regexp_mismatch", "customer_email", pattern=g.EMAIL_PATTERN), "email_regexp_mismatch"
    ),
    BenchCheck(
        "status_enum", _count("not_in_list_or_null", "status", values=list(g.STATUSES)), "status_not_in_list_or_null"
    ),
    BenchCheck(
        "currency_enum",
        _count("not_in_list_or_null", "currency", values=list(g.CURRENCIES)),
        "currency_not_in_list_or_null",
    ),
    BenchCheck("country_null", _count("null_or_empty", "country_code"), "country_null_or_empty"),
    BenchCheck(
        "country_length", _count("length_compare", "country_code", operator="<>", length=2), "country_length_not_2"
    ),
    BenchCheck(
        "amount_range", _count("outside_range", "amount", min=g.AMOUNT_MIN, max=g.AMOUNT_MAX), "amount_outside_range"
    ),
    BenchCheck(
        "quantity_range",
        _count("outside_range", "quantity", min=g.QUANTITY_MIN, max=g.QUANTITY_MAX),
        "quantity_outside_range",
    ),
    BenchCheck(
        "created_timeliness",
        _count("time_between", "created_at", begin=g.WINDOW_BEGIN, end=g.WINDOW_END, format=None),
        "created_in_window",
    ),
    # --- column aggregates (same pass) ---
    BenchCheck("amount_avg", {"kind": "aggregate", "column": "amount", "function": "avg"}, "amount_avg"),
    BenchCheck("amount_max", {"kind": "aggregate", "column": "amount", "function": "max"}, "amount_max"),
    BenchCheck("quantity_sum", {"kind": "aggregate", "column": "quantity", "function": "sum"}, "quantity_sum"),
    # --- one group-by per key, a join, custom SQL as written ---
    BenchCheck("order_id_unique", {"kind": "duplicate_values", "column": "order_id"}, "order_id_duplicated_values"),
    BenchCheck(
        "customer_id_unique", {"kind": "duplicate_values", "column": "customer_id"}, "customer_id_duplicated_values"
    ),
    BenchCheck(
        "customer_accuracy",
        {"kind": "unmatched_rows", "mappings": [{"source": "customer_id", "operator": "=", "target": "customer_id"}]},
        "orphan_customer_rows",
        target_batch=CUSTOMERS_BATCH,
    ),
    BenchCheck(
        "settled_negative_sql",
        {
            "kind": "custom_sql",
            # settled = generate.SETTLED_STATUSES
            "sql": "SELECT COUNT(*) FROM ${src_table} WHERE status IN ('paid', 'shipped', 'delivered') AND amount < 0",
        },
        "settled_negative_amount",
    ),
    BenchCheck(
        "country_distinct_sql",
        {"kind": "custom_sql", "sql": "SELECT COUNT(DISTINCT country_code) FROM ${src_table}"},
        "distinct_country_codes",
    ),
)

# The orders columns some check reads: what the scan floor reads (and, as it happens, all of them).
TOUCHED_ORDERS_COLUMNS = (
    "order_id",
    "customer_id",
    "customer_email",
    "status",
    "currency",
    "country_code",
    "amount",
    "quantity",
    "created_at",
)
TOUCHED_CUSTOMERS_COLUMNS = ("customer_id",)


def row_level_checks() -> tuple[BenchCheck, ...]:
    return tuple(c for c in CHECKS if c.row_level)


def full_set_spec(
    orders_path: str, customers_path: str, checks: tuple[BenchCheck, ...] = CHECKS, engine: str = "spark"
) -> dict[str, Any]:
    """A dq_engine job spec (JSON shape of dq_engine/spec.py) for `checks`, every batch on `engine`;
    no error-row sink."""
    batches = {ORDERS_BATCH: {"source": "orders", "filter": None, "sample_fraction": None, "engine": engine}}
    sources = {"orders": {"kind": "file", "format": "parquet", "path": str(orders_path), "options": {}}}
    if any(c.target_batch == CUSTOMERS_BATCH for c in checks):
        batches[CUSTOMERS_BATCH] = {"source": "customers", "filter": None, "sample_fraction": None, "engine": engine}
        sources["customers"] = {"kind": "file", "format": "parquet", "path": str(customers_path), "options": {}}
    return {
        "run_id": "bench",
        "sources": sources,
        "batches": batches,
        "checks": [
            {
                "id": c.id,
                "name": c.id,
                "batch": ORDERS_BATCH,
                "target_batch": c.target_batch,
                "metric": dict(c.metric),
                "error_rows": False,
            }
            for c in checks
        ],
        "error_rows": None,
    }


def row_level_spec(orders_path: str, customers_path: str) -> dict[str, Any]:
    return full_set_spec(orders_path, customers_path, row_level_checks())
