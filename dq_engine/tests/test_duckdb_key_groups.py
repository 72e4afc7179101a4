"""Uniqueness of integer keys on DuckDB through the bucket pre-pass (dq_engine/duckdb/backend.py):
the statistic (duplicated values) and the error rows (every row of such a value) must be what a
plain count of the keys gives, whatever the key's type, sign and place in its bucket of 64, with
NULLs never a duplicate; a key an accuracy check maps is grouped directly, with the same answers."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

import dq_engine
from dq_engine.duckdb import backend as key_groups

# Bucket edges (63|64, -1|0, -64|-65), each type's extremes, a full bucket of 64 distinct keys
# beside one where a key repeats, a key three times, NULLs.
KEYS = [
    *range(0, 64),
    *[64, 64, 127, 128],
    *[-1, -1, -64, -65, -65, -65],
    *[2**31 - 1, 2**31 - 1, -(2**31), 1000, 1001, 1002],
    *[None, None, None],
]
LONGS = [None if k is None else k * 2**32 + 5 for k in KEYS] + [2**63 - 1, 2**63 - 1, -(2**63), -(2**63)]
TINY = [k if k is None or -128 <= k < 128 else None for k in KEYS] + [127, -128, -128]
UNSIGNED = [None if k is None else k + 2**31 for k in KEYS] + [2**64 - 1, 2**64 - 1]
COLUMNS = {
    "k_int": (KEYS, pa.int32()),
    "k_long": (LONGS, pa.int64()),
    "k_byte": (TINY, pa.int8()),
    "k_ulong": (UNSIGNED, pa.uint64()),
}


def _truth(keys):
    """(duplicated values, their rows, the values), counted by hand in Python."""
    repeated = {k: n for k, n in Counter(k for k in keys if k is not None).items() if n > 1}
    return len(repeated), sum(repeated.values()), set(repeated)


def _run(tmp_path, column, keys, arrow_type, accuracy=False):
    data = tmp_path / f"{column}.parquet"
    pq.write_table(pa.table({column: pa.array(keys, arrow_type), "row": pa.array(range(len(keys)))}), data)
    checks = [{"id": "dup", "name": "dup", "batch": "b", "metric": {"kind": "duplicate_values", "column": column}}]
    checks[0]["error_rows"] = True
    sources = {"s": {"kind": "file", "format": "parquet", "path": str(data)}}
    batches = {"b": {"source": "s", "engine": "duckdb"}}
    if accuracy:
        sources["t"] = sources["s"]
        batches["t"] = {"source": "t", "engine": "duckdb"}
        mapping = [{"source": column, "operator": "=", "target": column}]
        checks.append(
            {
                "id": "acc",
                "name": "acc",
                "batch": "b",
                "target_batch": "t",
                "metric": {"kind": "unmatched_rows", "mappings": mapping},
            }
        )
    spec = {
        "run_id": f"keys-{column}",
        "sources": sources,
        "batches": batches,
        "checks": checks,
        "error_rows": {"root": str(tmp_path / "errors"), "limit": 1000},
    }
    outcome = dq_engine.run(spec, spark=lambda: pytest.fail("Spark must not start"))["checks"]["dup"]
    assert outcome["status"] == "ok", outcome
    written = ds.dataset(outcome["error_rows_path"], format="parquet").to_table().column(column).to_pylist()
    return outcome, Counter(written)


@pytest.fixture
def asked(monkeypatch) -> list[bool]:
    """Whether each uniqueness query the engine built went through the buckets."""
    seen: list[bool] = []
    plain = key_groups.duplicated_sql
    monkeypatch.setattr(key_groups, "duplicated_sql", lambda *a, **k: seen.append(k["bucketed"]) or plain(*a, **k))
    return seen


@pytest.mark.parametrize("column", list(COLUMNS))
def test_duplicated_integer_keys_and_their_rows_are_found_through_the_buckets(tmp_path, column, asked):
    keys, arrow_type = COLUMNS[column]
    values, rows, repeated = _truth(keys)

    outcome, written = _run(tmp_path, column, keys, arrow_type)

    assert asked == [True]
    assert (outcome["statistic"], outcome["error_row_count"]) == (values, rows)
    assert set(written) == repeated and sum(written.values()) == rows  # every row of a repeated key, no NULL


def test_a_key_an_accuracy_check_maps_is_grouped_directly_with_the_same_answers(tmp_path, asked):
    values, rows, repeated = _truth(KEYS)

    outcome, written = _run(tmp_path, "k_int", KEYS, pa.int32(), accuracy=True)

    assert asked == [False]
    assert (outcome["statistic"], outcome["error_row_count"]) == (values, rows) == (4, 9)
    assert set(written) == repeated


def test_text_keys_are_grouped_directly_and_a_nearly_unique_id_finds_its_one_repeat(tmp_path, asked):
    words = ["a", "b", "b", None, "", "", "c"]
    outcome, written = _run(tmp_path, "word", words, pa.string())
    assert (outcome["statistic"], outcome["error_row_count"], set(written)) == (2, 4, {"b", ""})
    assert asked == [False]

    ids = [*range(64_000), 31_337]  # 1,000 buckets of 64 keys; one repeats
    outcome, written = _run(tmp_path, "id", ids, pa.int64())
    assert (outcome["statistic"], outcome["error_row_count"], dict(written)) == (1, 2, {31_337: 2})
