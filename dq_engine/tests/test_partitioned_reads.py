"""Spark reads a PostgreSQL table with a numeric key in several ranges, and answers as before."""

from __future__ import annotations

import pytest

from conftest import PG
from dq_engine.tests.conftest import SCHEMA, check, make_spec
from dq_engine.tests.test_metrics import CASES

pytestmark = pytest.mark.spark


@pytest.fixture
def keyed_orders(pg_sources):
    """The orders again, with order_id as the primary key."""
    import psycopg

    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {SCHEMA}.keyed_orders AS SELECT * FROM {SCHEMA}.orders")
        conn.execute(f"ALTER TABLE {SCHEMA}.keyed_orders ADD PRIMARY KEY (order_id)")
        yield {**pg_sources, "orders": {**pg_sources["orders"], "table": f"{SCHEMA}.keyed_orders"}}
        conn.execute(f"DROP TABLE {SCHEMA}.keyed_orders")


def test_a_table_with_a_numeric_key_is_read_in_several_partitions_with_the_same_answers(
    spark, pg_sources, keyed_orders
):
    import dq_engine
    from dq_engine.spark.readers import read_source
    from dq_engine.spec import JobSpec

    keyed = JobSpec.from_dict(make_spec(keyed_orders, [])).sources["orders"]
    unkeyed = JobSpec.from_dict(make_spec(pg_sources, [])).sources["orders"]
    checks = [case[0] for case in CASES] + [check("dups", "duplicate_values", column="order_id")]

    assert read_source(spark, keyed, {}).rdd.getNumPartitions() > 1
    assert read_source(spark, unkeyed, {}).rdd.getNumPartitions() == 1  # no key: one partition, as before
    partitioned = dq_engine.run(make_spec(keyed_orders, checks), spark=spark)["checks"]
    single = dq_engine.run(make_spec(pg_sources, checks), spark=spark)["checks"]
    assert all(outcome["status"] == "ok" for outcome in single.values())
    assert {cid: (o["status"], o["statistic"]) for cid, o in partitioned.items()} == {
        cid: (o["status"], o["statistic"]) for cid, o in single.items()
    }
