"""Freshness (`newest_age`): the age of a time column's newest value at run time, in hours or
minutes, the same on every engine; the truth is worked out in Python from conftest.ORDERS.

Rows 1..7 pass the batch's filter; their newest created_at is row 7's 2026-11-30 23:59:59 (a time
without a zone: read as UTC). Row 8 (2026-12-01) is filtered out and must not count.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from dq_engine.tests.conftest import check, make_spec

NEWEST = datetime(2026, 11, 30, 23, 59, 59, tzinfo=UTC)


def _expected_age(unit_seconds: float, before: datetime, after: datetime) -> tuple[float, float]:
    """The age's bounds: the engine took `now` between `before` and `after`."""
    return (before - NEWEST).total_seconds() / unit_seconds, (after - NEWEST).total_seconds() / unit_seconds


def _run(sources, engine, spark=None, checks=None):
    import dq_engine

    spec = make_spec(sources, checks or [check("fresh_h", "newest_age", column="created_at", unit="hours")])
    for batch in spec["batches"].values():
        batch["engine"] = engine
    before = datetime.now(UTC)
    document = dq_engine.run(spec, spark=spark)
    return document, before, datetime.now(UTC)


@pytest.mark.parametrize(
    ("fixture", "engine"),
    [("parquet_sources", "duckdb"), ("pg_sources", "pushdown"), ("mariadb_sources", "pushdown")],
)
def test_freshness_is_the_age_of_the_newest_time_among_the_rows_the_filter_keeps(request, fixture, engine):
    sources = request.getfixturevalue(fixture)
    checks = [
        check("fresh_h", "newest_age", column="created_at", unit="hours"),
        check("fresh_m", "newest_age", column="created_at", unit="minutes"),
    ]
    document, before, after = _run(sources, engine, checks=checks)

    assert document["batches"]["b"]["engine"] == engine
    low, high = _expected_age(3600, before, after)
    hours = document["checks"]["fresh_h"]
    assert hours["status"] == "ok", hours
    assert low - 1e-6 <= hours["statistic"] <= high + 1e-6
    minutes = document["checks"]["fresh_m"]["statistic"]
    assert _expected_age(60, before, after)[0] - 1e-4 <= minutes <= _expected_age(60, before, after)[1] + 1e-4
    assert document["plan"]["batches"]["b"]["aggregate_passes"] == 1  # one pass with the row count


def test_freshness_on_spark_matches_the_same_truth(spark, parquet_sources):
    document, before, after = _run(parquet_sources, "spark", spark=spark)
    low, high = _expected_age(3600, before, after)
    assert low - 1e-6 <= document["checks"]["fresh_h"]["statistic"] <= high + 1e-6


def test_freshness_of_a_column_that_holds_no_time_is_that_checks_error_alone(pg_sources):
    checks = [
        check("bad", "newest_age", column="status", unit="hours"),
        check("count", "row_count"),
    ]
    document, _, _ = _run(pg_sources, "pushdown", checks=checks)
    assert document["checks"]["bad"]["status"] == "error"
    assert "freshness needs a date or timestamp column" in document["checks"]["bad"]["message"]
    assert (document["checks"]["count"]["status"], document["checks"]["count"]["statistic"]) == ("ok", 7.0)
