"""Table profiles in the engine alone (the API tests, profiling/tests, check every figure on every
engine): a column whose query fails ends with an error while the others report, an unreadable
table is the document's error, a pinned engine that cannot read the table says so."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dq_engine.duckdb.profile import DuckDBProfile
from dq_engine.profiling import profile
from dq_engine.spec import SpecError


@pytest.fixture
def dataset(tmp_path):
    table = pa.table({"id": [1, 2, 3, 4], "status": ["a", None, "b", "a"], "amount": [1.5, None, 3.0, 4.5]})
    pq.write_table(table, tmp_path / "part-0.parquet")
    return {"source": {"kind": "file", "format": "parquet", "path": str(tmp_path)}, "datasource": "d", "table": "t"}


def _failing_for(column: str, method):
    def wrapped(self, requests):
        import duckdb

        text = repr(requests)
        if f"'{column}'" in text or f'"{column}"' in text:
            raise duckdb.BinderException(f"Binder Error: cannot profile {column}")
        return method(self, requests)

    return wrapped


def test_a_column_whose_aggregate_fails_ends_with_an_error_and_the_others_report(dataset, monkeypatch):
    monkeypatch.setattr(DuckDBProfile, "aggregate", _failing_for("status", DuckDBProfile.aggregate))
    document = profile(dataset)

    columns = {c["name"]: c for c in document["columns"]}
    assert "error" not in document and document["row_count"] == 4
    assert columns["status"]["error"] == "Column status could not be profiled: Binder Error: cannot profile status"
    assert columns["id"]["distinct"] == 4 and columns["amount"]["nulls"] == 1 and columns["amount"]["max"] == 4.5


def test_a_column_whose_group_counts_fail_ends_with_an_error_and_the_others_keep_theirs(dataset, monkeypatch):
    monkeypatch.setattr(DuckDBProfile, "group_counts", _failing_for("amount", DuckDBProfile.group_counts))
    document = profile(dataset)

    columns = {c["name"]: c for c in document["columns"]}
    assert columns["amount"]["error"].startswith("Column amount could not be profiled (histogram): Binder Error")
    assert columns["status"]["top_values"] == [{"value": "a", "count": 2}, {"value": "b", "count": 1}]
    assert columns["id"]["histogram"]["counts"] == [1, 0, 0, 1, 0, 0, 1, 0, 0, 1]


def test_an_unreadable_table_is_the_documents_error(tmp_path):
    document = profile({"source": {"kind": "file", "format": "parquet", "path": str(tmp_path / "none")}})

    assert document["columns"] == [] and document["row_count"] is None
    assert document["error"].startswith("Batch profile could not be read")


def test_a_pinned_engine_that_cannot_read_the_table_says_why(dataset):
    document = profile({**dataset, "engine": "pushdown"})

    assert "cannot run table t" in document["error"] and "pushdown reads tables in PostgreSQL" in document["error"]


@pytest.mark.parametrize("field", [{"row_guard": 0}, {"bins": 5}, {"engine": "oracle"}, {"top_values_limit": -1}])
def test_a_malformed_profile_spec_is_a_spec_error(dataset, field):
    with pytest.raises(SpecError):
        profile({**dataset, **field})


@pytest.fixture
def many_strings(tmp_path):
    """1,600 distinct strings (beyond the values whose shapes are matched one by one), their
    shapes known by construction, and numbers whose figures are hand-counted."""
    emails = [f"user{i}@example.com" for i in range(600)]
    numerics = [f"{i}.5" for i in range(500)]
    dates = [f"2024-{1 + i % 12:02d}-{1 + i % 28:02d} 10:{i % 60:02d}" for i in range(400)]
    others = [f"word {i}" for i in range(100)]
    texts = emails + numerics + dates + others + [None] * 10
    numbers = [float(i) for i in range(1, len(texts) + 1)]
    table = pa.table({"text": texts, "number": numbers, "rank": list(range(len(texts)))})
    pq.write_table(table, tmp_path / "part-0.parquet")
    source = {"source": {"kind": "file", "format": "parquet", "path": str(tmp_path)}, "datasource": "d", "table": "t"}
    return source, len(texts), len(set(dates))


@pytest.mark.parametrize("exact_rows", [100_000, 0], ids=["exact", "approximate"])
def test_a_spark_profile_counts_string_shapes_and_every_figure_lands_on_its_column(spark, many_strings, exact_rows):
    source, rows, distinct_dates = many_strings
    document = profile({**source, "engine": "spark", "exact_rows": exact_rows}, spark=spark)

    columns = {c["name"]: c for c in document["columns"]}
    text, number = columns["text"], columns["number"]
    assert "error" not in document and document["row_count"] == rows == 1610
    assert text["looks"] == {"numeric": 500, "date": 400, "email": 600}
    assert text["nulls"] == 10 and text["empty"] == 0 and text["top_values"] is None
    assert text["length"]["min"] == len("0.5") and text["length"]["max"] == len("user599@example.com")
    assert number["min"] == 1 and number["max"] == rows and number["sum"] == rows * (rows + 1) / 2
    assert number["mean"] == (rows + 1) / 2 and sum(number["histogram"]["counts"]) == rows
    assert columns["rank"]["min"] == 0 and columns["rank"]["max"] == rows - 1
    expected_text_distinct = 600 + 500 + distinct_dates + 100
    if exact_rows:
        assert text["distinct"] == expected_text_distinct and number["distinct"] == rows
        assert number["quantiles"]["p50"] == (rows + 1) / 2 and number["quantiles_exact"] is True
    else:  # the estimators: HyperLogLog (5% relative error) and percentile_approx's ranks
        assert abs(text["distinct"] - expected_text_distinct) <= 0.1 * expected_text_distinct
        assert abs(number["distinct"] - rows) <= 0.1 * rows and number["distinct_exact"] is False
        assert abs(number["quantiles"]["p50"] - rows / 2) <= 2 and number["quantiles_exact"] is False


def test_a_sampled_spark_profile_counts_every_column_over_the_same_sample(spark, many_strings):
    source, rows, _ = many_strings
    document = profile({**source, "engine": "spark", "row_guard": 800}, spark=spark)

    columns = {c["name"]: c for c in document["columns"]}
    sampled = document["sample"]["rows"]
    assert "error" not in document and document["sample"]["method"] == "sample" and 0 < sampled < rows
    # `number` and `rank` hold every value once: each column's counts are the sample's rows.
    assert columns["number"]["distinct"] == columns["rank"]["distinct"] == sampled
    assert sum(columns["number"]["histogram"]["counts"]) == sampled and columns["number"]["nulls"] == 0
    text = columns["text"]
    assert text["rows"] == sampled and text["nulls"] + sum(text["looks"].values()) <= sampled
