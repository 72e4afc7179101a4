"""Same answers on every engine, databases: each built-in template that can run in a database,
pushed down into PostgreSQL and MariaDB, against the Spark engine reading the same table.

Parametrized (engine × source) like the file-source equivalence test, so the two merge into one
table of cases. Compared per check: status, statistic, exact error-row count and the stored error
rows themselves (every row: the limit is above each count). The rows hold NULLs, empty strings,
unicode values and a unicode column name; batch b is filtered (row 8 must never count) and so is
the accuracy target t.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from dq_engine.tests.conftest import NOTE, check, make_spec
from dq_engine.tests.test_metrics import CASES, VALUE_COMPARISON

pytestmark = pytest.mark.spark

# Everything test_metrics computes by hand, but times held as text (Spark's datetime patterns,
# which the databases lack: refused for pushdown, tested below), plus checks that store rows.
PUSHED = [case[0] for case in CASES if case[0]["id"] != "fresh_text"]
STORING = {
    c["id"] for c in PUSHED if c["metric"].get("kind") in ("conditional_count", "duplicate_values", "unmatched_rows")
}
CHECKS = [
    *({**c, "error_rows": c["id"] in STORING} for c in PUSHED),
    VALUE_COMPARISON,
    check(
        "sql_filtered", "custom_sql", sql="SELECT sum(amount) / count(*) FROM ${src_table} t WHERE t.status = 'paid'"
    ),
    check(
        "sql_cte",
        "custom_sql",
        sql="WITH x AS (SELECT * FROM ${src_table} WHERE amount IS NULL) SELECT count(*) FROM x",
    ),
    check("enum_unicode", "not_in_list_or_null", error_rows=True, column=NOTE, values=["ok", "Zoë", "négatif"]),
    check("range_time", "outside_range", error_rows=True, column="created_at", min="2026-11-01 00:00:00", max=None),
]
ENGINE_CASES = [("pushdown", "postgresql"), ("pushdown", "mariadb")]
SOURCE_FIXTURES = {"postgresql": "pg_sources", "mariadb": "mariadb_sources"}


def _run(spec: dict, engine: str, spark):
    import dq_engine

    for batch in spec["batches"].values():
        batch["engine"] = engine
    return dq_engine.run(spec, spark=spark)


def _stored(path: str | None) -> list[tuple]:
    import pyarrow.dataset as ds

    if path is None:
        return []
    rows = ds.dataset(path, format="parquet", ignore_prefixes=[".", "_"]).to_table().to_pylist()
    return sorted((tuple(_plain(v) for v in row.values()) for row in rows), key=repr)


def _plain(value):
    """A stored value as both writers agree on it: numbers by value, times as naive UTC."""
    if isinstance(value, Decimal):
        return value.normalize()
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


@pytest.mark.parametrize(("engine", "source"), ENGINE_CASES)
def test_every_database_template_gives_spark_s_statistic_count_and_stored_rows(
    engine, source, spark, request, tmp_path
):
    sources = request.getfixturevalue(SOURCE_FIXTURES[source])
    spark_doc = _run(
        make_spec(sources, CHECKS, error_rows={"root": str(tmp_path / "spark"), "limit": 100}), "spark", spark
    )
    doc = _run(make_spec(sources, CHECKS, error_rows={"root": str(tmp_path / engine), "limit": 100}), engine, spark)

    assert doc["batches"]["b"] == {"rows": 7, "error": None, "engine": engine}
    assert doc["spark_application_id"] is None
    for check_spec in CHECKS:
        cid = check_spec["id"]
        mine, reference = doc["checks"][cid], spark_doc["checks"][cid]
        assert reference["status"] == "ok", (cid, reference["message"])
        assert mine["status"] == "ok", (cid, mine["message"])
        assert math.isclose(mine["statistic"], reference["statistic"], rel_tol=1e-9), (cid, mine, reference)
        assert mine["comparison"] == reference["comparison"], cid
        assert mine["error_row_count"] == reference["error_row_count"], cid
        assert mine["error_rows_written"] == reference["error_rows_written"], cid
        assert _stored(mine["error_rows_path"]) == _stored(reference["error_rows_path"]), cid
    plan = doc["plan"]["batches"]["b"]
    assert plan["aggregate_passes"] == 1 and plan["isolation_passes"] == 0  # one fused query for the row-level set
    assert plan["group_bys"] == 2  # one per uniqueness key
