"""Pushdown on MariaDB answers as Spark does on a column with the default, case-insensitive and
space-padding collation (utf8mb4_general_ci): 'A' is not 'a', 'a ' is not 'a', 'É' is not 'é'.
Every expected value is computed here in Python over the same rows (Spark's semantics: strings
compare by code point, trailing spaces included; lengths count characters)."""

from __future__ import annotations

import re
import statistics
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal

import pytest

from conftest import MYSQL
from dq_engine.tests.conftest import SCHEMA, check

WORDS = ["a", "A", "a ", " ", "", "É", "é", "é", "paid", "paid", "PAID", "paid ", None, "x", "x "]
TARGETS = ["A", "é ", "paid", "x"]
NUMBERS = [(1, Decimal("1.10"), 1), (2, Decimal("2.20"), 0), (2, Decimal("3.35"), 1)]
VALUES = [w for w in WORDS if w is not None]


@pytest.fixture(scope="module")
def ci_sources(mariadb_sources):
    """Tables whose string columns are utf8mb4_general_ci (MariaDB's default), and a numeric one."""
    import pymysql

    conn = pymysql.connect(**MYSQL, autocommit=True, charset="utf8mb4")
    with conn.cursor() as cur:
        cur.execute(
            f"CREATE TABLE {SCHEMA}.words (id INT PRIMARY KEY, w VARCHAR(20), INDEX (w)) "
            "CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
        )
        cur.executemany(f"INSERT INTO {SCHEMA}.words VALUES (%s, %s)", list(enumerate(WORDS)))
        cur.execute(f"CREATE TABLE {SCHEMA}.targets (k VARCHAR(20)) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci")
        cur.executemany(f"INSERT INTO {SCHEMA}.targets VALUES (%s)", [(k,) for k in TARGETS])
        cur.execute(f"CREATE TABLE {SCHEMA}.numbers (n INT, d DECIMAL(10,2), flag BOOLEAN)")
        cur.executemany(f"INSERT INTO {SCHEMA}.numbers VALUES (%s, %s, %s)", NUMBERS)
    jdbc = {k: v for k, v in mariadb_sources["orders"].items() if k != "table"}
    yield {name: {**jdbc, "table": f"{SCHEMA}.{name}"} for name in ("words", "targets", "numbers")}
    with conn.cursor() as cur:
        cur.execute(f"DROP TABLE {SCHEMA}.words, {SCHEMA}.targets, {SCHEMA}.numbers")
    conn.close()


def _spec(sources: dict, table: str, checks: list[dict], filter_: str | None = None, **extra) -> dict:
    return {
        **extra,
        "run_id": "mariadb-exact",
        "sources": {"s": sources[table], "t": sources["targets"]},
        "batches": {
            "b": {"source": "s", "filter": filter_, "engine": "pushdown"},
            "t": {"source": "t", "engine": "pushdown"},
        },
        "checks": checks,
    }


def _run(sources: dict, table: str, checks: list[dict], filter_: str | None = None, **extra) -> dict:
    import dq_engine

    return dq_engine.run(_spec(sources, table, checks, filter_, **extra))["checks"]


def _reason(sources: dict, table: str, checks: list[dict]) -> str | None:
    from dq_engine.pushdown.engine import PushdownEngine
    from dq_engine.spec import JobSpec

    return PushdownEngine().reason_cannot_run(JobSpec.from_dict(_spec(sources, table, checks)), "b")


def _rules(check_id: str, text: str) -> dict:
    from dq_engine.rowchecks import expand

    return {"id": check_id, "name": check_id, "batch": "b", "metric": {"kind": "row_rules", "rules": expand(text)}}


def test_string_checks_on_a_case_insensitive_column_are_pushed_down_not_refused(ci_sources):
    checks = [
        check("empty", "null_or_empty", column="w"),
        check("listed", "not_in_list_or_null", column="w", values=["paid"]),
        check("dups", "duplicate_values", column="w"),
        _rules("rules", "checks:\n  - w == paid\n"),
    ]

    assert _reason(ci_sources, "words", checks) is None


def test_null_or_empty_counts_only_nulls_and_the_empty_string_not_blanks(ci_sources):
    outcome = _run(ci_sources, "words", [check("empty", "null_or_empty", column="w")])["empty"]

    assert (outcome["status"], outcome["statistic"]) == ("ok", sum(w is None or w == "" for w in WORDS))


def test_an_enumeration_matches_case_accents_and_trailing_spaces_exactly(ci_sources):
    allowed = ["paid", "é", "x"]
    outcome = _run(ci_sources, "words", [check("listed", "not_in_list_or_null", column="w", values=allowed)])

    truth = sum(w is None or w not in allowed for w in WORDS)
    assert (outcome["listed"]["status"], outcome["listed"]["statistic"]) == ("ok", truth)


def test_a_regex_is_case_sensitive_and_sees_trailing_spaces(ci_sources):
    outcome = _run(ci_sources, "words", [check("re", "regexp_mismatch", column="w", pattern="^[a-z]+$")])["re"]

    truth = sum(re.search("^[a-z]+$", w) is None for w in VALUES)
    assert (outcome["status"], outcome["statistic"]) == ("ok", truth)


def test_lengths_count_characters_trailing_spaces_included(ci_sources):
    outcome = _run(ci_sources, "words", [check("len", "length_compare", column="w", operator=">", length=1)])["len"]

    assert (outcome["status"], outcome["statistic"]) == ("ok", sum(len(w) > 1 for w in VALUES))


def test_duplicates_group_case_variants_and_trailing_spaces_as_different_keys(ci_sources):
    outcome = _run(ci_sources, "words", [check("dups", "duplicate_values", column="w", error_rows=False)])["dups"]

    counts = Counter(VALUES)
    duplicated = {value: n for value, n in counts.items() if n > 1}
    assert duplicated == {"é": 2, "paid": 2}  # the truth itself: 'PAID', 'paid ' and 'É' are other keys
    assert (outcome["status"], outcome["statistic"]) == ("ok", len(duplicated))
    assert outcome["error_row_count"] == sum(duplicated.values())


def test_an_accuracy_join_matches_keys_exactly(ci_sources):
    mappings = [{"source": "w", "operator": "=", "target": "k"}]
    outcome = _run(ci_sources, "words", [check("acc", "unmatched_rows", target="t", mappings=mappings)])["acc"]

    truth = sum(not any(w == k for k in TARGETS) for w in WORDS)  # NULL matches nothing
    assert (outcome["status"], outcome["statistic"]) == ("ok", truth)


def test_row_rules_compare_and_order_strings_by_code_point(ci_sources):
    checks = [_rules("eq", "checks:\n  - w == paid\n"), _rules("after", "checks:\n  - w > Z\n")]
    outcomes = _run(ci_sources, "words", checks)

    # value rules pass on NULL; a row fails when its value breaks the rule
    assert (outcomes["eq"]["status"], outcomes["eq"]["statistic"]) == ("ok", sum(w != "paid" for w in VALUES))
    assert (outcomes["after"]["status"], outcomes["after"]["statistic"]) == ("ok", sum(not w > "Z" for w in VALUES))


def test_the_batch_filter_and_custom_sql_compare_and_group_exactly(ci_sources):
    checks = [
        check("rows", "row_count"),
        check("distinct", "custom_sql", sql="SELECT COUNT(DISTINCT w) FROM ${src_table}"),
        check("groups", "custom_sql", sql="SELECT COUNT(*) FROM (SELECT w FROM ${src_table} GROUP BY w) g"),
    ]
    filtered = _run(ci_sources, "words", checks, filter_="w <> 'paid'")

    kept = [w for w in VALUES if w != "paid"]
    assert filtered["rows"]["statistic"] == len(kept) + 0  # NULL <> 'paid' is not true: not kept
    assert filtered["distinct"]["statistic"] == len(set(kept))
    assert filtered["groups"]["statistic"] == len(set(kept))


def test_averages_and_deviations_of_exact_numbers_are_not_rounded(ci_sources):
    ints = [n for n, _, _ in NUMBERS]
    decimals = [d for _, d, _ in NUMBERS]
    checks = [
        check("avg_n", "aggregate", column="n", function="avg"),
        check("avg_d", "aggregate", column="d", function="avg"),
        check("sd", "custom_sql", sql="SELECT stddev_samp(n) FROM ${src_table}"),
        check("sd_pop", "custom_sql", sql="SELECT stddev_pop(n) FROM ${src_table}"),
        check("var_d", "custom_sql", sql="SELECT var_samp(d) FROM ${src_table}"),
    ]
    outcomes = _run(ci_sources, "numbers", checks)

    # Spark: avg of an int is a double; avg of decimal(10,2) is a decimal rounded to 2 + 4 places
    assert outcomes["avg_n"]["statistic"] == pytest.approx(statistics.mean(ints), rel=1e-15)
    spark_avg = (sum(decimals) / len(decimals)).quantize(Decimal("0.000001"), rounding=ROUND_HALF_UP)
    assert outcomes["avg_d"]["statistic"] == float(spark_avg)
    assert outcomes["sd"]["statistic"] == pytest.approx(statistics.stdev(ints), rel=1e-12)
    assert outcomes["sd_pop"]["statistic"] == pytest.approx(statistics.pstdev(ints), rel=1e-12)
    assert outcomes["var_d"]["statistic"] == pytest.approx(float(statistics.variance(decimals)), rel=1e-12)


def test_a_median_is_refused_with_the_reason_and_a_named_pushdown_run_errors_saying_so(ci_sources):
    median = [check("median", "custom_sql", sql="SELECT median(n) FROM ${src_table}")]

    reason = _reason(ci_sources, "numbers", median)
    outcome = _run(ci_sources, "numbers", median)["median"]

    assert reason is not None and "Pushdown refused" in reason and "median" in reason
    assert outcome["status"] == "error" and "medians and percentiles" in outcome["message"]


def test_an_average_or_range_of_a_boolean_column_errors_as_on_spark(ci_sources):
    checks = [
        check("avg_flag", "aggregate", column="flag", function="avg"),
        check("range_flag", "outside_range", column="flag", min=0, max=1),
        check("nulls_flag", "null_or_empty", column="flag"),
    ]
    outcomes = _run(ci_sources, "numbers", checks)

    for cid in ("avg_flag", "range_flag"):
        assert outcomes[cid]["status"] == "error"
        assert "holds boolean values" in outcomes[cid]["message"], outcomes[cid]["message"]
        assert "Pushdown refused" not in outcomes[cid]["message"]  # the answer, not a refusal: Spark gives it too
    assert (outcomes["nulls_flag"]["status"], outcomes["nulls_flag"]["statistic"]) == ("ok", 0)


def test_the_error_rows_of_duplicates_and_unmatched_keys_are_the_exact_ones(ci_sources, tmp_path):
    import pyarrow.dataset as ds

    mappings = [{"source": "w", "operator": "=", "target": "k"}]
    checks = [
        check("dups", "duplicate_values", column="w", error_rows=True),
        check("acc", "unmatched_rows", target="t", mappings=mappings, error_rows=True),
    ]
    outcomes = _run(ci_sources, "words", checks, error_rows={"root": str(tmp_path), "limit": 100})

    def written(check_id: str) -> list:
        rows = ds.dataset(outcomes[check_id]["error_rows_path"], format="parquet", ignore_prefixes=[".", "_"])
        return sorted(rows.to_table().column("w").to_pylist(), key=repr)

    counts = Counter(VALUES)
    assert written("dups") == sorted((w for w in VALUES if counts[w] > 1), key=repr)
    assert written("acc") == sorted((w for w in WORDS if w not in TARGETS), key=repr)
