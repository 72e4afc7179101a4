"""The profile benchmark's numbers are right: the DuckDB and Spark engines' profiles of the bench's
orders agree with what the generator planted (no timing here; bench/profile.py)."""

from __future__ import annotations

import pytest

from bench import generate as gen
from bench import profile

ROWS = 20_000


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> gen.Dataset:
    return gen.generate(ROWS, tmp_path_factory.mktemp("bench-profile"), log=lambda _: None)


def test_the_duckdb_profile_of_the_orders_finds_what_the_generator_planted(dataset):
    document = profile.run_profile(dataset, "duckdb")

    assert document["engine"] == "duckdb" and document["sample"]["method"] == "full"
    assert profile.check_profile(document, dataset.planted, dataset.rows) == []


@pytest.mark.spark
def test_the_spark_profile_of_the_orders_finds_what_the_generator_planted(dataset, spark):
    document = profile.run_profile(dataset, "spark", spark)

    assert document["engine"] == "spark"
    assert profile.check_profile(document, dataset.planted, dataset.rows) == []


def test_a_wrong_figure_is_named(dataset):
    document = profile.run_profile(dataset, "duckdb")
    quantity = next(c for c in document["columns"] if c["name"] == "quantity")
    quantity["sum"] += 1

    assert profile.check_profile(document, dataset.planted, dataset.rows) == [
        f"quantity sum: profile {quantity['sum']!r}, planted {dataset.planted['quantity_sum']!r}"
    ]
