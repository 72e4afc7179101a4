"""The pushdown engine on real PostgreSQL and MariaDB: what it refuses (and why), its read-only
statements under a timeout, failure isolation, and the documented regex difference."""

from __future__ import annotations

import pytest

from conftest import PG
from dq_engine.tests.conftest import SCHEMA, check, make_spec

EMAIL = "customer_email"


def _pushed(spec: dict) -> dict:
    for batch in spec["batches"].values():
        batch["engine"] = "pushdown"
    return spec


def _run(spec: dict, **kwargs) -> dict:
    import dq_engine

    return dq_engine.run(_pushed(spec), **kwargs)


def _engine():
    from dq_engine.pushdown.engine import PushdownEngine

    return PushdownEngine()


def _spec(sources: dict, checks: list[dict]):
    from dq_engine.spec import JobSpec

    return JobSpec.from_dict(_pushed(make_spec(sources, checks)))


def test_a_unicode_class_is_refused_on_postgresql_with_the_reason_and_runs_on_mariadb(pg_sources, mariadb_sources):
    unicode_letter = [check("letters", "regexp_mismatch", column=EMAIL, pattern=r"^\p{L}")]

    reason = _engine().reason_cannot_run(_spec(pg_sources, unicode_letter), "b")
    outcome = _run(make_spec(mariadb_sources, unicode_letter))["checks"]["letters"]

    assert reason is not None and "Pushdown refused" in reason and "\\p{" in reason and "Spark runs it" in reason
    assert outcome["status"] == "ok" and outcome["statistic"] == 1  # '' (row 3); NULL (row 2) is not counted


def test_the_same_checks_are_not_refused_when_the_database_reads_them_as_spark_does(pg_sources):
    checks = [
        check("emails", "regexp_mismatch", column=EMAIL, pattern=r"\.com$"),
        check("dups", "duplicate_values", column=EMAIL),
    ]

    assert _engine().reason_cannot_run(_spec(pg_sources, checks), "b") is None
    assert _engine().reason_cannot_read(_spec(pg_sources, checks).sources["orders"]) is None


def test_files_times_held_as_text_and_accuracy_across_two_databases_are_refused(
    pg_sources, mariadb_sources, parquet_sources
):
    engine = _engine()
    text_times = [
        check(
            "t",
            "time_between",
            column="paid_on",
            begin="2026-11-01 00:00:00",
            end="2026-11-02 00:00:00",
            format="dd/MM/yyyy HH:mm",
        )
    ]
    across = make_spec(
        pg_sources,
        [check("acc", "unmatched_rows", target="t", mappings=[{"source": EMAIL, "operator": "=", "target": "email"}])],
    )
    across["sources"]["customers"] = mariadb_sources["customers"]
    from dq_engine.spec import JobSpec

    assert "Pushdown refused" in engine.reason_cannot_read(
        JobSpec.from_dict(make_spec(parquet_sources, [])).sources["orders"]
    )
    assert "datetime patterns" in engine.reason_cannot_run(_spec(pg_sources, text_times), "b")
    assert "two datasources" in engine.reason_cannot_run(JobSpec.from_dict(_pushed(across)), "b")


def test_a_function_with_no_known_translation_is_refused_not_passed_through(pg_sources):
    checks = [check("sql", "custom_sql", sql="SELECT max(crc32(customer_email)) FROM ${src_table}")]

    reason = _engine().reason_cannot_run(_spec(pg_sources, checks), "b")
    outcome = _run(make_spec(pg_sources, checks))["checks"]["sql"]

    assert "CRC32()" in reason.upper() and "no known translation" in reason
    assert outcome["status"] == "error" and "no known translation" in outcome["message"]


def test_a_database_function_off_the_allow_list_never_reaches_the_database(pg_sources):
    checks = [check("sql", "custom_sql", sql="SELECT pg_read_file('/etc/passwd') FROM ${src_table}")]

    outcome = _run(make_spec(pg_sources, checks))["checks"]["sql"]

    assert outcome["status"] == "error" and "`pg_read_file` is not allowed" in outcome["message"]


@pytest.mark.spark
def test_on_postgresql_a_dot_matches_a_line_break_where_java_s_does_not(pg_sources, spark):
    """The documented difference (README, "Pushdown"): PostgreSQL's `.` matches a newline."""
    import psycopg

    import dq_engine

    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {SCHEMA}.lines AS SELECT E'a\\nb' AS value")
        try:
            sources = {**pg_sources, "orders": {**pg_sources["orders"], "table": f"{SCHEMA}.lines"}}
            checks = [check("dot", "regexp_mismatch", column="value", pattern="^a.b$")]
            spec = make_spec(sources, checks, filter=None)
            on_spark = dq_engine.run(spec, spark=spark)["checks"]["dot"]
            pushed = _run(make_spec(sources, checks, filter=None))["checks"]["dot"]
        finally:
            conn.execute(f"DROP TABLE {SCHEMA}.lines")

    assert on_spark["statistic"] == 1  # Java: '.' stops at the line break, so the value does not match
    assert pushed["statistic"] == 0  # PostgreSQL: it matches


@pytest.mark.parametrize("fixture", ["pg_sources", "mariadb_sources"])
def test_a_check_the_database_fails_errors_alone_and_the_others_still_report(fixture, request):
    sources = request.getfixturevalue(fixture)
    # Patterns Java runs and the database fails on at run time, inside the fused aggregate query:
    # PostgreSQL allows no repetition count above 255, PCRE2 no lookbehind of varying length.
    pattern = "^x{300}$" if fixture == "pg_sources" else "(?<=@[a-z]{1,3})x"
    broken = check("broken", "regexp_mismatch", column=EMAIL, pattern=pattern)
    checks = [
        check("nulls", "null_or_empty", column=EMAIL),
        broken,
        check("count", "row_count"),
        check("dups", "duplicate_values", column=EMAIL),
    ]

    outcomes = _run(make_spec(sources, checks))["checks"]

    assert outcomes["broken"]["status"] == "error" and outcomes["broken"]["message"]
    assert (outcomes["nulls"]["status"], outcomes["nulls"]["statistic"]) == ("ok", 2)
    assert (outcomes["count"]["status"], outcomes["count"]["statistic"]) == ("ok", 7)
    assert (outcomes["dups"]["status"], outcomes["dups"]["statistic"]) == ("ok", 2)


def test_an_unreachable_database_errors_each_check_of_its_batch_with_the_reason_and_no_password(
    pg_sources, closed_port
):
    password = "Sekr1t-pass-never-shown"
    url = f"jdbc:postgresql://127.0.0.1:{closed_port}/nowhere"
    sources = {name: {**source, "url": url, "password_secret": "DQ_SECRET_X"} for name, source in pg_sources.items()}
    checks = [check("nulls", "null_or_empty", column=EMAIL), check("count", "row_count")]

    document = _run(make_spec(sources, checks), secrets={"DQ_SECRET_X": password})

    for outcome in document["checks"].values():
        assert outcome["status"] == "error" and f"127.0.0.1:{closed_port}" in outcome["message"]
        assert "Cannot connect" in outcome["message"] and password not in outcome["message"]
    assert document["batches"]["b"]["rows"] is None and password not in str(document)


@pytest.mark.parametrize("fixture", ["pg_sources", "mariadb_sources"])
def test_statements_run_read_only_under_the_statement_timeout(fixture, request):
    from dq_engine.databases import connect
    from dq_engine.spec import JobSpec

    source = JobSpec.from_dict(make_spec(request.getfixturevalue(fixture), [])).sources["orders"]
    db = connect(source, {}, statement_timeout=1)
    try:
        with pytest.raises(Exception, match="(?i)read.only"):
            db.rows(f"CREATE TABLE {SCHEMA}.written (a int)")
        slow = (
            "SELECT pg_sleep(3)"
            if fixture == "pg_sources"
            else (
                "SELECT count(*) FROM information_schema.columns a, information_schema.columns b, information_schema.columns c"
            )
        )
        with pytest.raises(Exception, match="(?i)timeout|max_statement_time|interrupted"):
            db.rows(slow)
        assert db.rows("SELECT 1") == [(1,)]  # the connection is still good for the next statement
    finally:
        db.close()


def test_the_spec_s_statement_timeout_stops_a_long_query_and_errors_only_its_check(pg_sources):
    joined = " CROSS JOIN ".join(f"${{src_table}} t{i}" for i in range(10))  # 7^10 rows to count
    checks = [check("slow", "custom_sql", sql=f"SELECT count(*) FROM {joined}"), check("count", "row_count")]

    outcomes = _run(make_spec(pg_sources, checks, limits={"statement_timeout_seconds": 1}))["checks"]

    assert outcomes["slow"]["status"] == "error" and "statement timeout" in outcomes["slow"]["message"]
    assert (outcomes["count"]["status"], outcomes["count"]["statistic"]) == ("ok", 7)


@pytest.mark.spark
def test_a_batch_auto_gave_to_pushdown_is_read_by_spark_when_pushdown_refuses_a_check_of_it(pg_sources, spark):
    import dq_engine

    letters = [check("letters", "regexp_mismatch", column=EMAIL, pattern=r"^\p{L}")]
    spec = _pushed(make_spec(pg_sources, letters))
    spec["batches"]["b"]["fallback"] = "spark"

    document = dq_engine.run(spec, spark=spark)

    # Spark counts what pushdown refused on PostgreSQL (\p{L}): '' (row 3) does not start with a letter
    assert document["checks"]["letters"]["status"] == "ok" and document["checks"]["letters"]["statistic"] == 1
    assert document["batches"]["b"]["engine"] == "spark"
    assert "pushdown cannot run a check of it" in document["batches"]["b"]["engine_reason"]
    assert "\\p{" in document["batches"]["b"]["engine_reason"]


def test_a_rule_ordering_text_compares_code_points_on_postgresql_whatever_the_column_s_collation(pg_sources, spark):
    """Spark orders strings by code point ('B' < 'a'); an ICU English collation puts 'a' before 'B'.
    The pushed-down rule compares COLLATE "C", so both count the same rows."""
    import psycopg

    import dq_engine

    with psycopg.connect(**PG, autocommit=True) as conn:
        conn.execute(f'CREATE TABLE {SCHEMA}.words (w text COLLATE "en-x-icu")')
        try:
            conn.execute(f"INSERT INTO {SCHEMA}.words VALUES ('B'), ('a'), ('b'), (NULL)")
            (icu_says,) = conn.execute(f"SELECT count(*) FROM {SCHEMA}.words WHERE w > 'a'").fetchone()
            sources = {**pg_sources, "orders": {**pg_sources["orders"], "table": f"{SCHEMA}.words"}}
            rules = [check("after_a", "row_rules", rules="checks:\n  - w > a\n")]
            on_spark = dq_engine.run(make_spec(sources, rules, filter=None), spark=spark)["checks"]["after_a"]
            pushed = _run(make_spec(sources, rules, filter=None))["checks"]["after_a"]
        finally:
            conn.execute(f"DROP TABLE {SCHEMA}.words")

    assert icu_says == 2  # the column's own order: 'B' and 'b' come after 'a'
    # code points: only 'b' > 'a'; 'B' (66) and 'a' fail, NULL passes (value rules pass on NULL)
    assert on_spark["statistic"] == 2.0
    assert (pushed["status"], pushed["statistic"]) == ("ok", 2.0)
