"""Spark's one-pass profile (dq_engine/jvm/src/.../profile/): a batch beyond the exact limit is
profiled by ONE pass over its rows in the engine's JVM functions. Every figure is checked here
against the truth computed in plain Python from the rows the test wrote, over a dataset of several
files (several tasks, so the tasks' figures are merged) with a column of every kind."""

from __future__ import annotations

import math
import random
import statistics
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dq_engine.profiling import profile
from dq_engine.profiling.queries import PYTHON_SHAPES

pytestmark = pytest.mark.spark

FILES, ROWS_PER_FILE = 3, 4000
# The quantile sketch's rank error, and the distinct-count sketch's relative error, that the
# pass's documentation promises (QuantileSketch.java, DistinctSketch.java).
RANK_ERROR, DISTINCT_ERROR = 0.005, 0.05

# Strings whose shapes a hand-written matcher could get wrong, each with Python's answer.
TRICKY = [
    "12\n", "1e5", "1e", "1E+7", "+.5", ".", "-", "5.", "1.2.3", " 1", "١٢",
    "2024-01-01", "2024-01-01T10:00", "2024-01-01 10:00:5", "2024-01-01 10:00:05.", "2024-01-01 10:00:05.123",
    "2024-1-01", "2024-01-01\n", "2024-01-01 10:00\n",
    "a@b.c", "a@.b", "a@b.", "a@b.\n", "a b@c.d", "a@b c.d", "@b.c", "a@@b.c", "ü@exämple.de", "a@b..c", "a@b.c@d",
]


def _rows(seed: int, count: int) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(count):
        n = seed * count + i
        rows.append(
            {
                "id": n,
                "small": None if n % 13 == 0 else rng.randint(-100, 100),
                "price": None if n % 17 == 0 else Decimal(rng.randint(-99999, 99999)).scaleb(-2),
                "huge": Decimal(rng.randint(0, 10**25)).scaleb(-3),
                "ratio": None if n % 19 == 0 else rng.lognormvariate(0, 1.5),
                "status": None if n % 7 == 0 else rng.choice(["paid", "void", "shipped", "", "PAID"]),
                "text": None if n % 11 == 0 else (TRICKY[n % len(TRICKY)] if n % 5 == 0 else f"user{n}@example.com"),
                "flag": None if n % 23 == 0 else n % 3 == 0,
                "day": date(2026, 1, 1) + timedelta(days=n % 400),
                "moment": datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=n * 37),
                "blob": bytes([n % 256]),
            }
        )
    return rows


TYPES = {
    "id": pa.int64(),
    "small": pa.int16(),
    "price": pa.decimal128(9, 2),
    "huge": pa.decimal128(30, 3),
    "ratio": pa.float64(),
    "status": pa.string(),
    "text": pa.string(),
    "flag": pa.bool_(),
    "day": pa.date32(),
    "moment": pa.timestamp("us", tz="UTC"),
    "blob": pa.binary(),
}


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    folder = tmp_path_factory.mktemp("profile_pass")
    every = []
    for part in range(FILES):
        rows = _rows(part, ROWS_PER_FILE)
        every += rows
        table = pa.table({name: pa.array([r[name] for r in rows], kind) for name, kind in TYPES.items()})
        pq.write_table(table, folder / f"part-{part}.parquet")
    source = {"source": {"kind": "file", "format": "parquet", "path": str(folder)}, "datasource": "d", "table": "t"}
    return source, every


@pytest.fixture(autouse=True)
def small_splits(spark):
    """Each file its own task (Spark would pack these small files into one): the tasks' figures
    are merged, as on a real table."""
    before = spark.conf.get("spark.sql.files.maxPartitionBytes")
    opening = spark.conf.get("spark.sql.files.openCostInBytes")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "65536")
    spark.conf.set("spark.sql.files.openCostInBytes", "65536")
    yield
    spark.conf.set("spark.sql.files.maxPartitionBytes", before)
    spark.conf.set("spark.sql.files.openCostInBytes", opening)


def _values(rows, name):
    return [r[name] for r in rows if r[name] is not None]


def _within_ranks(ordered: list, value, fraction: float) -> bool:
    """Whether `value` sits within the rank error of the fraction's rank ceil(f·n) in `ordered`."""
    n = len(ordered)
    low = sum(1 for v in ordered if v < value)  # values strictly below
    high = sum(1 for v in ordered if v <= value)
    target = max(1, math.ceil(fraction * n))
    return low + 1 - RANK_ERROR * n <= target <= high + RANK_ERROR * n


def test_a_batch_beyond_the_exact_limit_is_profiled_in_one_pass_and_every_figure_is_right(spark, dataset):
    source, rows = dataset
    document = profile({**source, "engine": "spark", "exact_rows": 0}, spark=spark)

    assert "error" not in document and document["row_count"] == len(rows) == FILES * ROWS_PER_FILE
    assert document["sample"]["rows"] == len(rows) and document["sample"]["method"] == "full"
    columns = {c["name"]: c for c in document["columns"]}
    assert all("error" not in c for c in columns.values()), columns
    for name in TYPES:
        assert columns[name]["nulls"] == len(rows) - len(_values(rows, name)), name

    # Numbers: min, max and sum exact; mean and stddev to the double; quantiles within the sketch's
    # rank error; histograms holding every value, each bin within the rank error of the truth.
    for name in ("id", "small", "price", "ratio"):
        values, column = _values(rows, name), columns[name]
        floats = sorted(float(v) for v in values)
        assert column["min"] == float(min(values)) and column["max"] == float(max(values)), name
        assert math.isclose(column["sum"], float(sum(values)), rel_tol=1e-12), name
        assert math.isclose(column["mean"], statistics.fmean(floats), rel_tol=1e-9), name
        assert math.isclose(column["stddev"], statistics.stdev(floats), rel_tol=1e-9), name
        assert column["quantiles_exact"] is False
        for key, fraction in (("p01", 0.01), ("p25", 0.25), ("p50", 0.5), ("p95", 0.95), ("p99", 0.99)):
            assert _within_ranks(floats, column["quantiles"][key], fraction), (name, key)
        histogram = column["histogram"]
        assert sum(histogram["counts"]) == len(values), name
        low, high = floats[0], floats[-1]
        width = (high - low) / 10
        truth = [0] * 10
        for v in floats:
            truth[min(math.floor((v - low) / width), 9)] += 1
        if name == "small":  # 201 values, counted: the histogram follows from the counts, exactly
            assert histogram["exact"] is True and histogram["counts"] == truth
            continue
        assert histogram["exact"] is False, name
        for got, want in zip(histogram["counts"], truth, strict=True):
            assert abs(got - want) <= 2 * RANK_ERROR * len(values), (name, histogram["counts"], truth)
    assert columns["id"]["distinct_exact"] is False
    assert abs(columns["id"]["distinct"] - len(rows)) <= DISTINCT_ERROR * len(rows)
    # a decimal beyond a long's digits: min, max and sum exact as decimals
    huge = _values(rows, "huge")
    assert Decimal(str(columns["huge"]["max"])) == Decimal(str(float(max(huge))))
    assert columns["huge"]["sum"] == float(sum(huge))
    # few values: counted, so their distinct count and top values are exact
    small = columns["small"]
    assert small["distinct"] == len(set(_values(rows, "small"))) == 201 and small["distinct_exact"] is True

    # Strings: lengths, empties, top values of the low-cardinality one, and the shapes of the
    # high-cardinality one counted value by value in the pass, each as Python's regex answers.
    status = columns["status"]
    want_status = {}
    for v in _values(rows, "status"):
        want_status[v] = want_status.get(v, 0) + 1
    assert {t["value"]: t["count"] for t in status["top_values"]} == want_status
    assert status["distinct"] == 5 and status["distinct_exact"] is True and status["empty"] == want_status[""]
    text, texts = columns["text"], _values(rows, "text")
    assert text["top_values"] is None and text["distinct_exact"] is False
    assert text["looks"] == {
        shape: sum(1 for v in texts if pattern.match(v)) for shape, pattern in PYTHON_SHAPES.items()
    }
    assert text["length"]["min"] == min(len(v) for v in texts) and text["length"]["max"] == max(len(v) for v in texts)
    assert math.isclose(text["length"]["mean"], statistics.fmean(len(v) for v in texts), rel_tol=1e-12)
    assert text["empty"] == 0

    # Booleans and times
    flags = _values(rows, "flag")
    assert {t["value"]: t["count"] for t in columns["flag"]["top_values"]} == {
        True: sum(flags), False: len(flags) - sum(flags)
    }
    days = sorted(_values(rows, "day"))
    assert columns["day"]["min"] == days[0].isoformat() and columns["day"]["max"] == days[-1].isoformat()
    assert columns["day"]["distinct"] == len(set(days)) and columns["day"]["distinct_exact"] is True
    assert _within_ranks(days, date.fromisoformat(columns["day"]["quantiles"]["p50"]), 0.5)
    moments = sorted(_values(rows, "moment"))
    first = datetime.fromisoformat(columns["moment"]["min"])
    assert first.replace(tzinfo=UTC) == moments[0] or first == moments[0].astimezone().replace(tzinfo=None)
    # a type the profile only counts
    assert columns["blob"]["kind"] == "other" and columns["blob"]["nulls"] == 0


def test_a_sampled_batch_is_profiled_in_one_pass_over_the_sample(spark, dataset):
    source, rows = dataset
    document = profile({**source, "engine": "spark", "exact_rows": 0, "row_guard": 3000}, spark=spark)

    columns = {c["name"]: c for c in document["columns"]}
    sampled = document["sample"]["rows"]
    assert "error" not in document and document["sample"]["method"] == "sample" and 0 < sampled < len(rows)
    # `id` holds every value once: its figures count exactly the sample's rows
    assert columns["id"]["rows"] == sampled and columns["id"]["nulls"] == 0
    assert sum(columns["id"]["histogram"]["counts"]) == sampled
    status = columns["status"]
    assert sum(t["count"] for t in status["top_values"]) + status["nulls"] == sampled


def test_a_pass_that_fails_gives_way_to_the_two_steps_with_the_same_figures(spark, dataset, monkeypatch):
    from dq_engine.spark.profile import SparkProfile

    source, rows = dataset

    def broken(self, columns, limit, bins):
        raise RuntimeError("the pass is broken")

    monkeypatch.setattr(SparkProfile, "one_pass", broken)
    document = profile({**source, "engine": "spark", "exact_rows": 0}, spark=spark)

    columns = {c["name"]: c for c in document["columns"]}
    assert "error" not in document and document["row_count"] == len(rows)
    assert columns["small"]["sum"] == sum(_values(rows, "small"))
    assert columns["id"]["histogram"]["exact"] is True and sum(columns["id"]["histogram"]["counts"]) == len(rows)
