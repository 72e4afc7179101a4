"""`auto` engine selection per batch, pinned engines and their refusals (dq_engine/selection.py).
Pure: no Spark, no DuckDB query (file sizes are listed from the file system)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dq_engine.selection import EngineRefused, choose_engines
from dq_engine.spec import JobSpec

PG = {"kind": "jdbc", "url": "jdbc:postgresql://127.0.0.1:5432/x", "driver": "org.postgresql.Driver", "table": "t"}


@pytest.fixture
def files(tmp_path) -> dict[str, dict]:
    (tmp_path / "small").mkdir()
    (tmp_path / "small" / "part-0.parquet").write_bytes(b"x" * 1000)
    (tmp_path / "small" / "_SUCCESS").write_bytes(b"x" * 5000)  # hidden: not counted
    (tmp_path / "big.parquet").write_bytes(b"x" * 5000)
    return {
        "small": {"kind": "file", "format": "parquet", "path": str(tmp_path / "small")},
        "big": {"kind": "file", "format": "parquet", "path": str(tmp_path / "big.parquet")},
        "orc": {"kind": "file", "format": "orc", "path": str(tmp_path / "small")},
        "lake": {"kind": "file", "format": "parquet", "path": "s3a://bucket/orders"},
        "nulls_csv": {
            "kind": "file",
            "format": "csv",
            "path": str(tmp_path / "small"),
            "options": {"nullValue": "NULL"},
        },
        "db": PG,
    }


def _spec(sources: dict, batches: dict[str, str], checks: list[dict] | None = None, filters=None) -> JobSpec:
    return JobSpec.from_dict(
        {
            "run_id": 1,
            "sources": {name: sources[name] for name in set(batches.values())},
            "batches": {b: {"source": s, "filter": (filters or {}).get(b)} for b, s in batches.items()},
            "checks": checks or [],
        }
    )


def _count(check_id: str, batch: str, predicate: str = "null_or_empty", **fields) -> dict:
    metric = {"kind": "conditional_count", "predicate": predicate, "column": "x", **fields}
    return {"id": check_id, "name": check_id, "batch": batch, "metric": metric}


def test_auto_reads_small_local_files_with_duckdb_and_says_how_big_they_are(files):
    choices = choose_engines(_spec(files, {"b": "small"}), duckdb_max_bytes=2000)

    assert choices["b"].engine == "duckdb"
    assert choices["b"].reason == "auto: local parquet files, 1000 bytes (DuckDB limit 2.0 kB)"


def test_auto_sends_larger_files_remote_paths_orc_and_spark_only_options_to_spark(files):
    batches = {"big": "big", "orc": "orc", "lake": "lake", "csv": "nulls_csv"}

    choices = choose_engines(_spec(files, batches), duckdb_max_bytes=2000)

    assert {name: c.engine for name, c in choices.items()} == dict.fromkeys(batches, "spark")
    assert "4.9 kB of files, above the DuckDB limit of 2.0 kB" in choices["big"].reason
    assert "does not read ORC files" in choices["orc"].reason
    assert "s3a:// paths are read by Spark" in choices["lake"].reason
    assert "nullValue" in choices["csv"].reason


def test_auto_reads_a_database_table_with_spark_while_no_pushdown_engine_is_installed(files):
    from dq_engine import engines

    installed = dict(engines.ENGINES)
    del engines.ENGINES["pushdown"]
    try:
        choice = choose_engines(_spec(files, {"b": "db"}))["b"]
    finally:  # the registry back in its order (messages list the engines in it)
        engines.ENGINES.clear()
        engines.ENGINES.update(installed)

    assert (choice.engine, choice.reason) == ("spark", "auto: a database table (no pushdown engine is installed)")


def test_auto_gives_a_database_table_to_pushdown_once_it_is_installed(files):
    choice = choose_engines(_spec(files, {"b": "db"}))["b"]

    assert (choice.engine, choice.reason) == (
        "pushdown",
        "auto: a table in one database, computed by the database itself",
    )


def test_a_check_duckdb_would_answer_differently_sends_its_batch_to_spark_with_the_reason(files):
    checks = [
        _count("plain", "a"),
        _count("lookahead", "b", "regexp_mismatch", pattern="^(?=.*@).+$"),
        _count("fine_regex", "c", "regexp_mismatch", pattern="^[a-z]+@[a-z.]+$"),
        {
            "id": "sql",
            "name": "rlike sql",
            "batch": "d",
            "metric": {"kind": "custom_sql", "sql": "SELECT count(*) FROM ${src_table} WHERE x RLIKE 'a'"},
        },
        _count("week", "e", "time_between", begin="2024-01-01 00:00:00", end="2024-02-01 00:00:00", format="yyyy-ww"),
    ]
    spec = _spec(files, dict.fromkeys("abcde", "small"), checks)

    choices = choose_engines(spec)

    assert {name: c.engine for name, c in choices.items()} == {
        "a": "duckdb",
        "b": "spark",
        "c": "duckdb",
        "d": "spark",
        "e": "spark",
    }
    assert "'^(?=.*@).+$' needs Java's regex engine" in choices["b"].reason
    assert "rlike sql" in choices["d"].reason and "RegexpLike" in choices["d"].reason
    assert "'yyyy-ww' is read by Spark only" in choices["e"].reason


def _rules(check_id: str, batch: str, text: str) -> dict:
    from dq_engine.rowchecks import expand

    return {"id": check_id, "name": check_id, "batch": batch, "metric": {"kind": "row_rules", "rules": expand(text)}}


def test_row_rules_and_schema_contracts_go_to_duckdb_and_pushdown_unless_a_rule_needs_spark(files):
    contract = {"strict": False, "columns": [{"name": "x", "type": "integer", "nullable": False, "required": True}]}
    checks = [
        _rules("plain", "a", "checks:\n  - x >= 0\n  - x ~= ^[a-z]+$\n  - x like 'a%'\n"),
        {
            "id": "contract",
            "name": "contract",
            "batch": "b",
            "metric": {"kind": "schema_contract", "contract": contract},
        },
        _rules("in_db", "db", "checks:\n  - x >= 0\n  - x ~= ^[a-z]+$\n"),
        # nested two chains deep: a lookahead RE2 cannot run as Java does
        _rules(
            "nested_re",
            "c",
            "checks:\n  - type: chain\n    clause: any\n    checks:\n      - x > 1\n      - type: chain\n"
            "        clause: all\n        checks: ['x ~= ^(?=.*@).+$']\n",
        ),
        _rules(
            "escaped_like", "d", "checks:\n  - name: percent\n    fn: like\n    fields: [x]\n    args: ['100\\%']\n"
        ),
        _rules(
            "escaped_like_db",
            "db2",
            "checks:\n  - name: percent\n    fn: like\n    fields: [x]\n    args: ['1\\%']\n",
        ),
    ]
    batches = {"a": "small", "b": "small", "c": "small", "d": "small", "db": "db", "db2": "db"}

    choices = choose_engines(_spec(files, batches, checks))

    assert {name: c.engine for name, c in choices.items()} == {
        "a": "duckdb",
        "b": "duckdb",
        "db": "pushdown",
        "c": "spark",
        "d": "spark",
        "db2": "spark",
    }
    assert "rule 'check-x-re' of 'chain-any-1'" in choices["c"].reason
    assert "needs Java's regex engine" in choices["c"].reason
    assert "rule 'percent'" in choices["d"].reason and "backslash" in choices["d"].reason
    assert "rule 'percent'" in choices["db2"].reason and "backslash" in choices["db2"].reason


def test_a_rule_comparing_with_a_time_in_another_zone_sends_its_batch_to_spark(files):
    """Spark converts '…+01:00' to its time zone; DuckDB's and PostgreSQL's casts to a timestamp
    without zone drop the offset, so the same rows would count differently."""
    zoned = "checks:\n  - created <= '2024-01-10 00:00:00+01:00'\n"
    naive = "checks:\n  - created <= '2024-01-10 00:00:00'\n"
    checks = [_rules("z", "a", zoned), _rules("n", "b", naive), _rules("zdb", "db", zoned)]

    choices = choose_engines(_spec(files, {"a": "small", "b": "small", "db": "db"}, checks))

    assert {name: c.engine for name, c in choices.items()} == {"a": "spark", "b": "duckdb", "db": "spark"}
    assert "rule 'check-created-le'" in choices["a"].reason and "zone offset" in choices["a"].reason
    assert "zone offset" in choices["db"].reason


def test_a_filter_duckdb_would_read_differently_sends_its_batch_to_spark(files):
    spec = _spec(files, {"a": "small", "b": "small"}, filters={"a": "x > 1", "b": "x RLIKE '^a'"})

    choices = choose_engines(spec)

    assert (choices["a"].engine, choices["b"].engine) == ("duckdb", "spark")
    assert "filter uses" in choices["b"].reason


def test_accuracy_across_a_database_and_files_runs_both_batches_on_spark(files):
    mappings = [{"source": "x", "operator": "=", "target": "x"}]
    accuracy = {"id": "acc", "name": "orders known", "batch": "a", "target_batch": "t"}
    accuracy["metric"] = {"kind": "unmatched_rows", "mappings": mappings}
    spec = _spec(files, {"a": "small", "t": "db", "other": "small"}, [accuracy])

    choices = choose_engines(spec)

    assert (choices["a"].engine, choices["t"].engine, choices["other"].engine) == ("spark", "spark", "duckdb")
    assert choices["a"].reason == "auto: check 'orders known' reads two datasources; Spark reads both"


def test_accuracy_across_two_local_file_datasources_stays_on_duckdb_which_reads_both(files):
    accuracy = {"id": "acc", "name": "acc", "batch": "a", "target_batch": "t"}
    accuracy["metric"] = {"kind": "unmatched_rows", "mappings": [{"source": "x", "operator": "=", "target": "x"}]}
    choices = choose_engines(_spec(files, {"a": "small", "t": "big"}, [accuracy]), duckdb_max_bytes=10_000)

    assert (choices["a"].engine, choices["t"].engine) == ("duckdb", "duckdb")


def test_a_run_pinning_an_engine_gets_it_or_a_refusal_naming_the_batch_and_why(files):
    spec = _spec(files, {"b": "small"}, [_count("re", "b", "regexp_mismatch", pattern=r"\p{Alpha}+")])

    assert choose_engines(spec, requested="spark")["b"].reason == "spark: chosen for this run"
    with pytest.raises(EngineRefused, match=r"Engine 'duckdb' cannot run batch b: check 're': the regular expression"):
        choose_engines(spec, requested="duckdb")
    with pytest.raises(EngineRefused, match="pushdown"):  # not installed here, or not for files
        choose_engines(spec, requested="pushdown")


def test_a_datasource_pin_wins_over_auto_and_the_run_pin_wins_over_it(files):
    spec = _spec(files, {"b": "small", "d": "db"})

    pinned = choose_engines(spec, pins={"b": "spark"})
    assert (pinned["b"].engine, pinned["b"].reason) == ("spark", "spark: pinned by its datasource")
    with pytest.raises(EngineRefused, match="cannot run batch d: DuckDB reads local files; this is a database table"):
        choose_engines(spec, requested="duckdb", pins={"b": "spark"})


def test_dq_engine_run_resolves_auto_batches_and_reports_why(files, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    import dq_engine

    pq.write_table(pa.table({"x": ["a", None, ""]}), Path(files["small"]["path"]) / "part-0.parquet")
    spec = _spec(files, {"b": "small"}, [_count("nulls", "b")]).to_dict()
    spec["batches"]["b"]["engine"] = "auto"

    document = dq_engine.run(spec, spark=lambda: pytest.fail("Spark must not start for a DuckDB batch"))

    assert document["batches"]["b"]["engine"] == "duckdb"
    assert document["batches"]["b"]["engine_reason"].startswith("auto: local parquet files")
    assert document["checks"]["nulls"]["statistic"] == 2.0 and document["spark_application_id"] is None


def test_the_launcher_needs_spark_only_for_a_spec_with_a_spark_batch_or_a_check_across_engines(files):
    from dq_engine.dispatch import needs_spark

    accuracy = {"id": "acc", "name": "acc", "batch": "a", "target_batch": "t"}
    accuracy["metric"] = {"kind": "unmatched_rows", "mappings": [{"source": "x", "operator": "=", "target": "x"}]}
    on_duckdb = _spec(files, {"a": "small"}, [_count("n", "a")]).to_dict()
    across = _spec(files, {"a": "small", "t": "db"}, [accuracy]).to_dict()
    for spec in (on_duckdb, across):
        for batch in spec["batches"].values():
            batch["engine"] = "auto"

    assert needs_spark(on_duckdb) is False
    assert needs_spark(across) is True


def test_auto_gives_a_database_table_limited_to_its_first_rows_to_spark_not_pushdown(files):
    spec = JobSpec.from_dict(
        {
            "run_id": 1,
            "sources": {"db": PG, "small": files["small"]},
            "batches": {"preview": {"source": "db", "limit": 1000}, "sample": {"source": "small", "limit": 1000}},
            "checks": [],
        }
    )

    choices = choose_engines(spec)

    assert choices["preview"].engine == "spark"
    assert "limited to its first 1000 rows, which Spark or DuckDB draw once" in choices["preview"].reason
    assert choices["sample"].engine == "duckdb"  # local files: DuckDB draws the first rows
