"""Every metric kind's statistic against a value computed by hand from conftest.ORDERS, on Parquet,
CSV, PostgreSQL and MariaDB sources.

The batch is orders filtered to rows 1..7 (row 8 must never count):

 id  customer_email  status    amount  created_at           paid_on           Ünïcode note
 1   a@example.com   paid       10.50  2026-11-01 10:00:00  01/11/2026 10:00  ok
 2   NULL            paid       -3.00  2026-11-02 11:00:00  02/11/2026 11:00  négatif
 3   ''              void        7.25  2026-11-03 12:00:00  garbage           NULL
 4   b@example       paid      120.00  2026-11-04 13:00:00  04/11/2026 13:00  Zoë
 5   a@example.com   refunded    NULL  NULL                 NULL              ''
 6   c@example.com   PAID       55.00  2026-10-31 23:59:59  31/10/2026 23:59  über long note
 7   b@example       NULL        0.00  2026-11-30 23:59:59  30/11/2026 23:59  x
 (8  d@example.com   paid       99.99  2026-12-01 00:00:00  01/12/2026 00:00  ok   ← filtered out)

Target batch t: customers with active = 1: a@example.com, c@example.com, NULL.
"""

from __future__ import annotations

import pytest

from dq_engine.tests.conftest import NOTE, check, make_spec

pytestmark = pytest.mark.spark

EMAIL_PATTERN = r"^[\w.+-]+@[\w-]+\.[\w.]+$"
PAID_ON_PATTERN = r"^\d{2}/\d{2}/\d{4} \d{2}:\d{2}$"
ACCURACY = [{"source": "customer_email", "operator": "=", "target": "email"}]
ACCURACY_NULL_SAFE = [{"source": "customer_email", "operator": "<=>", "target": "email"}]

# (check, hand-computed statistic, why)
CASES = [
    (check("count", "row_count"), 7, "rows 1..7 pass the filter"),
    (check("null_email", "null_or_empty", column="customer_email"), 2, "NULL (2) and '' (3)"),
    (check("null_amount", "null_or_empty", column="amount"), 1, "NULL (5); not a string column"),
    (check("null_note", "null_or_empty", column=NOTE), 2, "NULL (3) and '' (5), unicode column name"),
    (
        check("re_email", "regexp_mismatch", column="customer_email", pattern=EMAIL_PATTERN),
        3,
        "'' (3), b@example (4, 7)",
    ),
    (check("re_search", "regexp_mismatch", column=NOTE, pattern="é|ë"), 4, "search: ok, '', über long note, x miss"),
    (check("re_digits", "regexp_mismatch", column="paid_on", pattern=PAID_ON_PATTERN), 1, "garbage (3); \\d intact"),
    (check("enum_status", "not_in_list_or_null", column="status", values=["paid", "void"]), 3, "refunded, PAID, NULL"),
    (
        check("enum_id", "not_in_list_or_null", column="order_id", values=["1", "2", "3", "x"]),
        4,
        "4..7; 'x' fits no int",
    ),
    (
        check("len_email", "length_compare", column="customer_email", operator=">", length=11),
        3,
        "13 chars: rows 1, 5, 6",
    ),
    (check("len_note", "length_compare", column=NOTE, operator=">", length=5), 2, "négatif (7), über long note (14)"),
    (
        check("len_eq", "length_compare", column="customer_email", operator="=", length=0),
        1,
        "'' (3); NULL has no length",
    ),
    (
        check(
            "fresh_ts",
            "time_between",
            column="created_at",
            begin="2026-11-01 00:00:00",
            end="2026-11-03 12:00:00",
            format=None,
        ),
        3,
        "rows 1, 2, 3 (end inclusive)",
    ),
    (
        check(
            "fresh_text",
            "time_between",
            column="paid_on",
            begin="2026-11-01 10:00:00",
            end="2026-11-04 13:00:00",
            format="dd/MM/yyyy HH:mm",
        ),
        3,
        "rows 1, 2, 4 (both ends inclusive); 'garbage' does not parse",
    ),
    (check("range", "outside_range", column="amount", min=0, max=100), 2, "-3.00 and 120.00; 0.00 is in"),
    (check("range_min", "outside_range", column="amount", min="0", max=None), 1, "-3.00"),
    (check("avg", "aggregate", column="amount", function="avg"), 31.625, "189.75 / 6 non-NULL"),
    (check("sum", "aggregate", column="amount", function="sum"), 189.75, "10.5-3+7.25+120+55+0"),
    (check("min", "aggregate", column="amount", function="min"), -3.0, ""),
    (check("max", "aggregate", column="amount", function="max"), 120.0, ""),
    (check("dup_email", "duplicate_values", column="customer_email"), 2, "a@example.com, b@example; NULL no value"),
    (check("dup_status", "duplicate_values", column="status"), 1, "paid (1, 2, 4)"),
    (
        check("accuracy", "unmatched_rows", target="t", mappings=ACCURACY),
        4,
        "NULL (2), '' (3), b (4, 7): `=` is SQL equality, a NULL matches nothing",
    ),
    (
        check("accuracy_null_safe", "unmatched_rows", target="t", mappings=ACCURACY_NULL_SAFE),
        3,
        "'' (3), b (4, 7): `<=>` matches the NULL of row 2 with the target's NULL",
    ),
    (check("sql", "custom_sql", sql="SELECT count(*) AS big FROM ${src_table} WHERE amount > 50"), 2, "120, 55"),
]
VALUE_COMPARISON = check(
    "compare",
    "value_comparison",
    target="t",
    sql="SELECT count(*) FROM ${src_table}",
    comparison_sql="SELECT count(*) FROM ${target_table}",
)
EXPECTED_ERROR_ROW_COUNTS = {
    "dup_email": 4,
    "dup_status": 3,
    "accuracy": 4,
    "accuracy_null_safe": 3,
    "null_email": 2,
}


@pytest.fixture(params=["parquet", "csv", "postgresql", "mariadb"])
def sources(request):
    fixture = {
        "parquet": "parquet_sources",
        "csv": "csv_sources",
        "postgresql": "pg_sources",
        "mariadb": "mariadb_sources",
    }
    return request.getfixturevalue(fixture[request.param])


def test_every_metric_kind_matches_its_hand_computed_statistic(spark, sources):
    import dq_engine

    spec = make_spec(sources, [case[0] for case in CASES] + [VALUE_COMPARISON])
    document = dq_engine.run(spec, spark=spark)

    assert document["batches"] == {
        "b": {"rows": 7, "error": None, "engine": "spark"},
        "t": {"rows": 3, "error": None, "engine": "spark"},
    }
    problems = []
    for spec_check, expected, why in CASES:
        outcome = document["checks"][spec_check["id"]]
        if outcome["status"] != "ok" or outcome["statistic"] != pytest.approx(expected):
            problems.append(f"{spec_check['id']}: expected {expected} ({why}), got {outcome}")
    assert not problems, "\n".join(problems)
    compare = document["checks"]["compare"]
    assert (compare["status"], compare["statistic"], compare["comparison"]) == ("ok", 7.0, 3.0)
    for check_id, rows in EXPECTED_ERROR_ROW_COUNTS.items():
        assert document["checks"][check_id]["error_row_count"] == rows, check_id
    assert document["checks"]["avg"]["error_row_count"] is None
    assert isinstance(document["checks"]["avg"]["statistic"], float)  # Decimal → float
    stats = document["plan"]["batches"]["b"]
    assert stats["aggregate_passes"] == 1 and stats["isolation_passes"] == 0
    assert (stats["fused_checks"], stats["fused_sql_checks"], stats["sql_queries"]) == (20, 1, 2)
    assert (stats["group_bys"], stats["joins"]) == (2, 2)


def test_listed_values_and_patterns_reach_spark_exactly_as_written(spark, data_dir):
    """Values travel as SQL literals: quotes, backslashes, `${...}` and unicode must arrive intact."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    import dq_engine

    values = ["${biz_date}", "it's", "a\\b", "é1", "tab\there", "\\u0041"]
    path = data_dir / "literals.parquet"
    pq.write_table(pa.table({"v": [*values, "other", None]}), path)
    pattern = r"^(\$\{biz_date\}|it's|a\\b|é\d|tab\there|\\u0041)$"
    spec = {
        "run_id": "literals",
        "sources": {"s": {"kind": "file", "format": "parquet", "path": str(path)}},
        "batches": {"b": {"source": "s"}},
        "checks": [
            check("listed", "not_in_list_or_null", column="v", values=values),
            check("pattern", "regexp_mismatch", column="v", pattern=pattern),
            check("automaton", "regexp_mismatch", column="v", pattern=r"^[a-z]+$"),
        ],
    }

    outcomes = dq_engine.run(spec, spark=spark)["checks"]

    assert outcomes["listed"]["statistic"] == 2  # 'other' and NULL
    assert outcomes["pattern"]["statistic"] == 1  # 'other' only; NULL is not counted
    assert outcomes["automaton"]["statistic"] == 6  # all but 'other'
