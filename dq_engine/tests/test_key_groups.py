"""Uniqueness on integer keys goes through the bucket pre-pass (dq_engine/spark/key_groups.py): only
the buckets of 64 keys where a key repeats are grouped key by key. The answers must be the plain
group-by's whatever the key's type, sign and place in its bucket, and when the pre-pass gives up."""

from __future__ import annotations

from collections import Counter

import pytest

from dq_engine.spark import key_groups

pytestmark = pytest.mark.spark

# Bucket edges (63|64, -1|0, -64|-65), the extremes of each type, a bucket full of 64 distinct keys
# beside one where a key repeats, a key three times, NULLs (never a duplicate).
KEYS = [
    *range(0, 64),  # one full bucket, no repeat
    *[64, 64, 127, 128],  # 64 repeats; 127 is its bucket's last slot
    *[-1, -1, -64, -65, -65, -65],  # negative buckets: -1 twice, -65 three times, -64 alone
    *[2**31 - 1, 2**31 - 1, -(2**31), 1000, 1001, 1002],
    *[None, None],
]


def _counts(keys):
    repeated = {k: n for k, n in Counter(k for k in keys if k is not None).items() if n > 1}
    return len(repeated), sum(repeated.values()), set(repeated)


@pytest.fixture(scope="module")
def keys_source(tmp_path_factory):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path_factory.mktemp("key_groups") / "keys.parquet"
    small = [k if k is None or -(2**15) <= k < 2**15 else None for k in KEYS]
    tiny = [k if k is None or -128 <= k < 128 else None for k in KEYS]
    pq.write_table(
        pa.table(
            {
                "row": pa.array(range(len(KEYS)), pa.int32()),
                "k_int": pa.array(KEYS, pa.int32()),
                "k_long": pa.array([None if k is None else k * 2**20 + 5 for k in KEYS], pa.int64()),
                "k_short": pa.array(small, pa.int16()),
                "k_byte": pa.array(tiny, pa.int8()),
            }
        ),
        path,
    )
    columns = {
        "k_int": KEYS,
        "k_long": [None if k is None else k * 2**20 + 5 for k in KEYS],
        "k_short": small,
        "k_byte": tiny,
    }
    return {"kind": "file", "format": "parquet", "path": str(path)}, columns


def _run(spark, source, column, root, work=None):
    import dq_engine

    spec = {
        "run_id": f"keys-{column}",
        "sources": {"keys": source},
        "batches": {"b": {"source": "keys"}},
        "checks": [
            {
                "id": "dup",
                "name": "dup",
                "batch": "b",
                "metric": {"kind": "duplicate_values", "column": column},
                "error_rows": True,
            }
        ],
        "error_rows": {"root": str(root), "limit": 1000},
    }
    document = dq_engine.run(spec, spark=spark)
    outcome = document["checks"]["dup"]
    assert outcome["status"] == "ok", outcome
    if work is not None:
        work.update(shuffled_records(spark, document["plan"]["job_group"]))
    return outcome


def shuffled_records(spark, job_group: str) -> dict[str, int]:
    """Rows the job group's stages wrote to shuffles (Spark's status store, as conftest.spark_work)."""
    tracker = spark.sparkContext.statusTracker()
    store = spark.sparkContext._jsc.sc().statusStore()
    written = 0
    for job in tracker.getJobIdsForGroup(job_group):
        for stage in tracker.getJobInfo(job).stageIds:
            written += int(store.lastStageAttempt(stage).shuffleWriteRecords())
    return {"shuffled": written}


def _written_keys(outcome, column):
    import pyarrow.dataset as ds

    table = ds.dataset(outcome["error_rows_path"], format="parquet", ignore_prefixes=[".", "_"]).to_table()
    return Counter(table.column(column).to_pylist())


@pytest.mark.parametrize("column", ["k_int", "k_long", "k_short", "k_byte"])
def test_duplicated_integer_keys_are_counted_as_the_plain_group_by_counts_them(spark, keys_source, column, tmp_path):
    source, columns = keys_source
    values, rows, repeated = _counts(columns[column])

    outcome = _run(spark, source, column, tmp_path)

    assert (outcome["statistic"], outcome["error_row_count"]) == (values, rows)
    written = _written_keys(outcome, column)
    assert set(written) == repeated and sum(written.values()) == rows  # every row of a repeated key, no other


def test_when_too_many_buckets_repeat_a_key_every_key_is_grouped_and_the_answer_is_the_same(
    spark, keys_source, tmp_path, monkeypatch
):
    source, columns = keys_source
    monkeypatch.setattr(key_groups, "MAX_CANDIDATE_BUCKETS", 1)  # 64, -1, -65, 2**31-1's buckets repeat
    values, rows, repeated = _counts(columns["k_int"])

    outcome = _run(spark, source, "k_int", tmp_path)

    assert (outcome["statistic"], outcome["error_row_count"]) == (values, rows) == (4, 9)
    assert set(_written_keys(outcome, "k_int")) == repeated


def test_a_nearly_unique_key_is_shuffled_as_its_buckets_and_the_repeating_bucket_only(spark, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    keys = [*range(64_000), 31_337]  # 1,000 buckets of 64 keys; one key repeats
    path = tmp_path / "near-unique.parquet"
    pq.write_table(pa.table({"id": pa.array(keys, pa.int64())}), path)
    work: dict[str, int] = {}

    outcome = _run(spark, {"kind": "file", "format": "parquet", "path": str(path)}, "id", tmp_path / "rows", work)

    assert (outcome["statistic"], outcome["error_row_count"]) == (1, 2)
    # A plain group-by shuffles all 64,001 keys; the pre-pass shuffles a row per bucket and map
    # task, then the 65 rows of the one bucket with a repeat.
    assert work["shuffled"] < 3_000, work
