"""The benchmark's numbers are right: every way computes what the generator planted (no timing here).

Benchmarks are not timed unit tests; this only guards the correctness the timings rely on, on a
small dataset, so a change to the engine, the checks or the generator that breaks agreement shows
up in `make test` rather than in a benchmark run.
"""

from __future__ import annotations

import pytest

from bench import generate as gen
from bench import run
from bench.checks import CHECKS, row_level_checks

ROWS = 20_000
ZERO_BY_DESIGN = {"order_id_null", "customer_id_below_one"}  # key columns are never NULL or below 1


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> gen.Dataset:
    return gen.generate(ROWS, tmp_path_factory.mktemp("bench"), log=lambda _: None)


def test_the_generator_plants_every_defect_and_reuses_a_matching_dataset(dataset):
    planted = {c.planted: dataset.planted[c.planted] for c in CHECKS}
    assert [key for key, value in planted.items() if not value and key not in ZERO_BY_DESIGN] == []
    again = gen.generate(ROWS, dataset.orders.parent, log=lambda _: None)
    assert again.manifest == dataset.manifest
    assert sorted(p.name for p in dataset.orders.glob("*.parquet")) == ["part-00000.parquet"]


@pytest.fixture(scope="module")
def per_rule(spark, dataset) -> dict:
    return run.run_per_rule(spark, dataset, CHECKS)


@pytest.mark.spark
def test_one_query_per_rule_finds_exactly_what_the_generator_planted(dataset, per_rule):
    assert run.mismatches(CHECKS, dataset.planted, per_rule=per_rule) == []


@pytest.mark.spark
def test_the_fused_engine_agrees_with_one_query_per_rule_and_with_the_planted_counts(spark, dataset, per_rule):
    full_set = run.run_fused(spark, dataset, CHECKS)
    row_level = run.run_fused(spark, dataset, row_level_checks())

    assert sorted(full_set) == sorted(c.id for c in CHECKS)
    assert [c for c in CHECKS if not run.same_value(full_set[c.id], per_rule[c.id])] == []
    assert run.mismatches(CHECKS, dataset.planted, full_set=full_set, row_level=row_level) == []


@pytest.mark.spark
def test_pushdown_and_spark_through_jdbc_agree_with_the_planted_counts_on_postgresql(spark, dataset, pg_server):
    import psycopg

    from bench import pushdown
    from conftest import PG

    try:
        # Raises when a way's statistics differ from the planted counts; the times are not looked at.
        figures = pushdown.pushdown_benchmark(spark, dataset, repeat=1, log=lambda _: None)
    finally:
        with psycopg.connect(**PG, autocommit=True) as conn:
            conn.execute(f"DROP TABLE IF EXISTS {pushdown.SCHEMA}.orders_{ROWS}")

    assert set(figures) == {"pushdown_speedup", "pushdown_vs_hand"}
    assert figures["pushdown_speedup"] > 0 and figures["pushdown_vs_hand"] > 0


def test_the_hand_written_postgresql_query_finds_what_the_generator_planted(dataset, pg_server):
    import psycopg

    from bench import hand, pushdown
    from conftest import PG

    try:
        table = pushdown.load_orders(dataset, log=lambda _: None)
        values = hand.run_pg_hand(table, pushdown.pg_params())
    finally:
        with psycopg.connect(**PG, autocommit=True) as conn:
            conn.execute(f"DROP TABLE IF EXISTS {pushdown.SCHEMA}.orders_{ROWS}")

    assert sorted(values) == sorted(c.id for c in row_level_checks())
    assert run.mismatches(row_level_checks(), dataset.planted, pg_hand=values) == []


def test_the_duckdb_engine_finds_what_the_generator_planted_on_the_same_files(dataset):
    embedded = run.run_fused(None, dataset, CHECKS, engine="duckdb")

    assert sorted(embedded) == sorted(c.id for c in CHECKS)
    assert run.mismatches(CHECKS, dataset.planted, embedded_full_set=embedded) == []


def test_the_hand_written_duckdb_sql_finds_what_the_generator_planted_on_the_same_files(dataset):
    from bench import hand

    values = hand.run_duckdb_hand(dataset)

    assert sorted(values) == sorted(c.id for c in CHECKS)
    assert run.mismatches(CHECKS, dataset.planted, duckdb_hand=values) == []


@pytest.mark.spark
def test_the_benchmark_computes_every_way_and_the_duckdb_engine_against_its_hand_written_sql(spark, dataset):
    # Raises when any way's statistics (the hand-written DuckDB SQL's among them) differ from the
    # planted counts; the times themselves are not looked at.
    ratios = run.benchmark(spark, dataset, repeat=1, log=lambda _: None)

    ways = {"floor", "row_level", "full_set", "per_rule", "embedded_full_set", "duckdb_hand", "duckdb_vs_hand"}
    assert set(ratios) == ways and all(value > 0 for value in ratios.values())


def test_the_last_line_keeps_the_earlier_keys_and_adds_the_two_hand_written_ratios():
    line = run.last_line(
        {
            "row_level": 1.04,
            "full_set": 2.5,
            "per_rule": 6.0,
            "embedded_full_set": 1.2,
            "pushdown_speedup": 1.9,
            "duckdb_vs_hand": 1.05,
            "pushdown_vs_hand": 1.01,
            "duckdb_hand": 1.1,
        }
    )

    assert line == (
        "row_level=1.04 full_set=2.50 per_rule=6.00 embedded_full_set=1.20 pushdown_speedup=1.90 "
        "duckdb_vs_hand=1.05 pushdown_vs_hand=1.01"
    )
