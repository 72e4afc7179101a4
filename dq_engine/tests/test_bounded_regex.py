"""Every regex the Spark engine runs ends in bounded time: the automaton, or Java's matcher under a
step budget that ends the check `error` with the reason (GuardedRegex.java). Regexp checks, RLIKE
in filters and the regexp functions of custom SQL all go through them. On the real SparkSession."""

from __future__ import annotations

import uuid

import pytest

from dq_engine.spark.jvm import FUNCTIONS_JAR, ensure_functions

BUDGET = "regular expression exceeded its step budget on a value (catastrophic backtracking)"
# Backtracking Java 17 does not memoize (a back reference), outside the automaton: it tries every
# split of the x's before giving up.
CATASTROPHIC = r"(x+)+\1y"
IN_SQL = CATASTROPHIC.replace("\\", "\\\\")  # as a Spark SQL string literal
VALUES = ["x" * 32, "abc", None, "Zoë 12", "ab-12"]


@pytest.fixture(scope="module")
def functions(spark):
    assert FUNCTIONS_JAR.is_file(), f"{FUNCTIONS_JAR} is missing: run scripts/build-jvm.sh (make test does)"
    assert ensure_functions(spark)
    return spark


@pytest.fixture(scope="module")
def words(tmp_path_factory) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path_factory.mktemp("regex") / "words.parquet"
    pq.write_table(pa.table({"id": list(range(len(VALUES))), "v": pa.array(VALUES, pa.string())}), path)
    return {"kind": "file", "format": "parquet", "path": str(path)}


def _run(spark, source, checks, batch_filter=None):
    import dq_engine

    spec = {
        "run_id": f"regex-{uuid.uuid4().hex[:6]}",
        "sources": {"words": source},
        "batches": {"b": {"source": "words", "filter": batch_filter}},
        "checks": [{"name": f"check {c['id']}", "batch": "b", **c} for c in checks],
    }
    return dq_engine.run(spec, spark=spark)["checks"]


def _regexp(check_id, pattern):
    return {
        "id": check_id,
        "metric": {"kind": "conditional_count", "predicate": "regexp_mismatch", "column": "v", "pattern": pattern},
    }


def _sql(check_id, sql):
    return {"id": check_id, "metric": {"kind": "custom_sql", "sql": sql}}


def test_a_catastrophic_regexp_check_ends_error_with_the_reason_and_the_others_still_count(functions, words):
    checks = _run(
        functions,
        words,
        [_regexp("bad", CATASTROPHIC), _regexp("lookahead", "(?=x)(x+)+y"), _regexp("alpha", r"^\p{Alpha}+$")],
    )

    assert checks["bad"]["status"] == "error"
    assert BUDGET in checks["bad"]["message"]
    assert "FAILED_EXECUTE_UDF" not in checks["bad"]["message"]  # the reason, not Spark's wrapping
    # Outside the automaton (a lookahead), answered by the guarded matcher: no value has a 'y'.
    assert (checks["lookahead"]["status"], checks["lookahead"]["statistic"]) == ("ok", 4)
    # \p{Alpha} is Java's US-ASCII letters: 'x'*32 and 'abc' match; 'Zoë 12' and 'ab-12' do not.
    assert (checks["alpha"]["status"], checks["alpha"]["statistic"]) == ("ok", 2)


def test_rlike_in_a_filter_runs_guarded_and_a_catastrophic_one_ends_the_batch_error(functions, words):
    kept = _run(functions, words, [{"id": "rows", "metric": {"kind": "row_count"}}], batch_filter=r"v RLIKE '\\d'")
    stalled = _run(
        functions,
        words,
        [{"id": "rows", "metric": {"kind": "row_count"}}],
        batch_filter=f"NOT v RLIKE '{IN_SQL}'",
    )

    assert (kept["rows"]["status"], kept["rows"]["statistic"]) == ("ok", 2)
    assert stalled["rows"]["status"] == "error"
    assert BUDGET in stalled["rows"]["message"]


def test_regexp_functions_in_custom_sql_answer_like_spark_and_a_catastrophic_one_ends_error(functions, words):
    checks = _run(
        functions,
        words,
        [
            _sql("like", r"SELECT count(*) FROM ${src_table} WHERE regexp_like(v, '(?<=b)-\\d')"),
            _sql("extract", r"SELECT max(try_cast(regexp_extract(v, '(\\d+)$', 1) AS INT)) FROM ${src_table}"),
            _sql("replace", r"SELECT count(*) FROM ${src_table} WHERE regexp_replace(v, '\\p{Lu}', '_') = '_oë 12'"),
            _sql("bad", f"SELECT count(*) FROM ${{src_table}} WHERE v REGEXP '{IN_SQL}'"),
        ],
    )
    # Spark's own functions on the same rows give the same numbers.
    functions.read.parquet(words["path"]).createOrReplaceTempView("dq_regex_words")
    try:
        like, extract, replace = functions.sql(
            "SELECT count_if(regexp_like(v, '(?<=b)-\\\\d')), max(try_cast(regexp_extract(v, '(\\\\d+)$', 1) AS INT)), "
            "count_if(regexp_replace(v, '\\\\p{Lu}', '_') = '_oë 12') FROM dq_regex_words"
        ).collect()[0]
    finally:
        functions.catalog.dropTempView("dq_regex_words")  # the shared session keeps no view of a test

    assert [checks[c]["statistic"] for c in ("like", "extract", "replace")] == [like, extract, replace] == [1, 12, 1]
    assert checks["bad"]["status"] == "error"
    assert BUDGET in checks["bad"]["message"]


def test_the_guarded_functions_are_what_spark_runs(functions):
    from pyspark.sql import functions as F

    from dq_engine.spark.columns import build_predicate
    from dq_engine.spec import Metric

    frame = functions.createDataFrame([("ab",)], "v string")
    metric = Metric("conditional_count", {"predicate": "regexp_mismatch", "column": "v", "pattern": "(?i)A(?=b)"})
    plan = frame.agg(F.count_if(build_predicate(frame, metric, functions)))._jdf.queryExecution().optimizedPlan()

    assert "dq_rlike_guarded(" in plan.toString()
