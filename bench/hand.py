"""Each engine's own limit: the same statistics as the engine computes, in the fastest SQL written
by hand for that database, with nothing general about it.

- `run_duckdb_hand`: the 20 statistics of the full set on DuckDB over the same Parquet files, as
  three queries: ONE aggregate over the orders (every conditional count, the aggregates, both
  custom SQL statistics, `COUNT(DISTINCT country_code)` among them), the `order_id` group-by
  (through a bucket pre-pass: only the buckets of 64 ids where one repeats are grouped id by id),
  and ONE `customer_id` group-by that answers both its uniqueness and the accuracy check (the groups
  left-joined to the customers: a group without a match is orphan rows).
- `run_pg_hand`: the 12 row-level statistics on PostgreSQL as ONE query with `FILTER` clauses,
  `NOT IN`, `BETWEEN` and the e-mail pattern as a POSIX regex.

`bench/run.py` times them next to the engines (`duckdb_vs_hand`, `pushdown_vs_hand`) and checks
their answers against the planted counts like every other way's. The SQL is pasted text on
purpose (it is the hand-written yardstick); every value in it comes from bench/generate.py.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench import generate as g

if TYPE_CHECKING:
    import duckdb

    from bench.generate import Dataset


def _in_list(values: list[str]) -> str:
    return ", ".join("'" + v.replace("'", "''") + "'" for v in values)


# The generator's e-mail pattern, anchored as a full match: the same answer on its values (none
# holds a line terminator, where Java's `$` and POSIX's differ).
_EMAIL_BODY = g.EMAIL_PATTERN.removeprefix("^").removesuffix("$")
_SETTLED = _in_list(list(g.SETTLED_STATUSES))


# {check id: expression} over one orders row set, in the order of the aggregate's columns.
def _row_level(regex_mismatch: str, window: str) -> dict[str, str]:
    return {
        "row_count": "count(*)",
        "order_id_null": "count(*) FILTER (WHERE order_id IS NULL)",
        "customer_id_range": "count(*) FILTER (WHERE customer_id < 1)",
        "email_null": "count(*) FILTER (WHERE customer_email IS NULL OR customer_email = '')",
        "email_regexp": f"count(*) FILTER (WHERE {regex_mismatch})",
        "status_enum": f"count(*) FILTER (WHERE status IS NULL OR status NOT IN ({_in_list(g.STATUSES)}))",
        "currency_enum": f"count(*) FILTER (WHERE currency IS NULL OR currency NOT IN ({_in_list(g.CURRENCIES)}))",
        "country_null": "count(*) FILTER (WHERE country_code IS NULL OR country_code = '')",
        "country_length": "count(*) FILTER (WHERE length(country_code) <> 2)",
        "amount_range": f"count(*) FILTER (WHERE amount < {g.AMOUNT_MIN} OR amount > {g.AMOUNT_MAX})",
        "quantity_range": f"count(*) FILTER (WHERE quantity < {g.QUANTITY_MIN} OR quantity > {g.QUANTITY_MAX})",
        "created_timeliness": f"count(*) FILTER (WHERE created_at BETWEEN {window})",
    }


DUCKDB_ROW_LEVEL = _row_level(
    f"NOT regexp_full_match(customer_email, '{_EMAIL_BODY}')",
    f"TIMESTAMP '{g.WINDOW_BEGIN}' AND TIMESTAMP '{g.WINDOW_END}'",
)
DUCKDB_AGGREGATES = {
    "amount_avg": "avg(amount)",
    "amount_max": "max(amount)",
    "quantity_sum": "sum(quantity)",
    "settled_negative_sql": f"count(*) FILTER (WHERE status IN ({_SETTLED}) AND amount < 0)",
    "country_distinct_sql": "count(DISTINCT country_code)",
}
PG_ROW_LEVEL = _row_level(
    f"customer_email !~ '^{_EMAIL_BODY}$'",
    f"TIMESTAMP '{g.WINDOW_BEGIN}' AND TIMESTAMP '{g.WINDOW_END}'",
)


def duckdb_queries(orders: str, customers: str) -> list[tuple[tuple[str, ...], str]]:
    """[(check ids answered, SQL)] over the Parquet data of `orders` and `customers` (a dataset's
    directory or one part file)."""
    o, c = _parquet(orders), _parquet(customers)
    one_pass = {**DUCKDB_ROW_LEVEL, **DUCKDB_AGGREGATES}
    return [
        (tuple(one_pass), f"SELECT {', '.join(one_pass.values())} FROM {o}"),  # noqa: S608
        (
            ("order_id_unique",),
            # A near-unique integer key: first its buckets of 64 (row count against distinct keys, as
            # bits), then key by key only in the buckets where some key repeats.
            f"SELECT count(*) FROM (SELECT order_id FROM {o} WHERE order_id >> 6 IN ("  # noqa: S608
            f"SELECT order_id >> 6 FROM {o} WHERE order_id IS NOT NULL GROUP BY 1 "
            "HAVING count(*) > bit_count(bit_or(1::UBIGINT << (order_id & 63)::UBIGINT))) "
            "GROUP BY order_id HAVING count(*) > 1)",
        ),
        (
            ("customer_id_unique", "customer_accuracy"),
            # Each group once: its size says whether the key repeats, its match whether its rows are orphans.
            "SELECT count(*) FILTER (WHERE g.customer_id IS NOT NULL AND g.n > 1), "  # noqa: S608
            "coalesce(sum(g.n) FILTER (WHERE t.customer_id IS NULL), 0) "
            f"FROM (SELECT customer_id, count(*) AS n FROM {o} GROUP BY customer_id) g "
            f"LEFT JOIN (SELECT DISTINCT customer_id FROM {c}) t ON g.customer_id = t.customer_id",
        ),
    ]


def _parquet(path: str) -> str:
    """A dataset's directory (its part files) or one part file, as DuckDB reads it."""
    return f"read_parquet('{path}/*.parquet')" if Path(path).is_dir() else f"read_parquet('{path}')"


_con: duckdb.DuckDBPyConnection | None = None
_con_lock = threading.Lock()


def duckdb_connection() -> duckdb.DuckDBPyConnection:
    """One in-memory database for the process, as the engine keeps one (opening one costs ~50 ms)."""
    global _con
    with _con_lock:
        if _con is None:
            import duckdb

            _con = duckdb.connect(":memory:")
        return _con.cursor()


def run_duckdb_hand(dataset: Dataset) -> dict[str, Any]:
    """{check id: statistic} for the full set, by the hand-written DuckDB queries."""
    con = duckdb_connection()
    try:
        values: dict[str, Any] = {}
        for ids, sql in duckdb_queries(str(dataset.orders), str(dataset.customers)):
            values.update(zip(ids, con.execute(sql).fetchone(), strict=True))
        return values
    finally:
        con.close()


def pg_query(table: str) -> str:
    return f"SELECT {', '.join(PG_ROW_LEVEL.values())} FROM {table}"  # noqa: S608


def run_pg_hand(table: str, params: dict[str, Any]) -> dict[str, Any]:
    """{check id: statistic} for the row-level set, by one hand-written PostgreSQL query (a
    client-side cursor, so PostgreSQL may plan it in parallel, as it does the engine's)."""
    import psycopg

    with psycopg.connect(**params) as conn:
        row = conn.execute(pg_query(table)).fetchone()
    return dict(zip(PG_ROW_LEVEL, row, strict=True))
