"""The plan decided from the spec alone: shared passes and caching, and the engine's spec checks."""

from __future__ import annotations

import pytest

from dq_engine.plan import make_plan, validate
from dq_engine.spec import JobSpec, SpecError


def _spec(checks, error_rows=None):
    return JobSpec.from_dict(
        {
            "run_id": 1,
            "sources": {"s": {"kind": "file", "format": "parquet", "path": "/x"}},
            "batches": {"b": {"source": "s"}, "t": {"source": "s", "filter": "a > 1"}},
            "checks": checks,
            "error_rows": error_rows,
        }
    )


def test_row_level_checks_share_the_aggregate_pass_and_only_a_second_pass_caches_a_batch():
    spec = _spec(
        [
            {
                "id": "1",
                "batch": "b",
                "metric": {"kind": "conditional_count", "predicate": "null_or_empty", "column": "a"},
            },
            {"id": "2", "batch": "b", "metric": {"kind": "aggregate", "column": "a", "function": "avg"}},
            {"id": "3", "batch": "b", "metric": {"kind": "row_count"}},
        ]
    )
    plans = make_plan(spec)

    assert [c.id for c in plans["b"].row_checks] == ["1", "2"] and [c.id for c in plans["b"].count_checks] == ["3"]
    assert plans["b"].passes == 1 and not plans["b"].needs_cache


def test_identical_accuracy_mappings_share_one_join_and_the_target_counts_a_pass():
    mapping = [{"source": "a", "operator": "=", "target": "a"}]
    spec = _spec(
        [
            {"id": "1", "batch": "b", "target_batch": "t", "metric": {"kind": "unmatched_rows", "mappings": mapping}},
            {"id": "2", "batch": "b", "target_batch": "t", "metric": {"kind": "unmatched_rows", "mappings": mapping}},
            {"id": "3", "batch": "b", "metric": {"kind": "duplicate_values", "column": "a"}},
            {"id": "4", "batch": "b", "metric": {"kind": "duplicate_values", "column": "a"}},
        ]
    )
    plans = make_plan(spec)

    assert list(plans["b"].joins) == [("t", (("a", "=", "a"),))]
    assert plans["b"].passes == 3 and plans["t"].passes == 2  # b: aggregate, group-by a, join; t: aggregate, join
    assert not plans["b"].needs_cache  # files are re-read, never cached


def test_only_a_database_batch_read_by_several_passes_is_cached():
    spec = JobSpec.from_dict(
        {
            "run_id": 1,
            "sources": {
                "db": {"kind": "jdbc", "url": "jdbc:postgresql://h/d", "driver": "org.postgresql.Driver", "table": "x"},
                "files": {"kind": "file", "format": "parquet", "path": "/x"},
            },
            "batches": {"d": {"source": "db"}, "d1": {"source": "db"}, "f": {"source": "files"}},
            "checks": [
                {"id": "1", "batch": "d", "metric": {"kind": "duplicate_values", "column": "a"}},
                {"id": "2", "batch": "d1", "metric": {"kind": "row_count"}},
                {"id": "3", "batch": "f", "metric": {"kind": "duplicate_values", "column": "a"}},
            ],
        }
    )
    plans = make_plan(spec)

    assert plans["d"].needs_cache  # aggregate pass + group-by: the database is read once
    assert not plans["d1"].needs_cache  # one pass only
    assert plans["f"].passes == 2 and not plans["f"].needs_cache


def test_it_refuses_duplicate_check_ids_and_bad_mappings():
    row_count = {"kind": "row_count"}
    with pytest.raises(SpecError, match="used twice"):
        validate(_spec([{"id": "1", "batch": "b", "metric": row_count}, {"id": 1, "batch": "b", "metric": row_count}]))
    bad = {"kind": "unmatched_rows", "mappings": [{"source": "a", "operator": "LIKE", "target": "a"}]}
    with pytest.raises(SpecError, match="operator"):
        validate(_spec([{"id": "1", "batch": "b", "target_batch": "t", "metric": bad}]))
