"""Same answers on every engine: every built-in template runs on every engine
that can read its source, over data with NULLs, empty strings, unicode values and column names,
with and without filters, and each engine's statistic, error-row count and stored error rows are
compared with Spark's; for row-level rule sets also each rule's count (the spec checks the platform
adds), the `_dq` / `_dq_failed_checks` marks of the stored rows and the cleansed output's rows, for
schema contracts the findings.

Structured by parameters: SOURCE_KINDS names each kind of source (Parquet, CSV, JSON here) with
the fixture that writes the data there and the engines that read it. Another source kind (a database, read by Spark and
pushdown) joins by adding a fixture and an entry; the cases stay the same.

A case an engine declines (its `reason_cannot_check` says Spark answers it differently: a Java-only
regex, non-portable SQL) is not run on it: `auto` sends such a batch to Spark, which the test
checks by asking the engine for its reason. What cannot be made the same is documented in the
README ("Engines: where the answers may differ") and pinned by the tests at the end.
"""

from __future__ import annotations

import csv
import math
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from dq_engine.engines import make_engine
from dq_engine.spec import JobSpec
from dq_engine.vocabulary import engine_metric

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
UNICODE = "Ünïcode näme"

# orders: NULLs, empty strings, unicode, duplicates, values at the edges of the checks below.
ORDER_COLUMNS = ["id", UNICODE, "status", "amount", "qty", "created", "day", "created_text", "customer_id"]
ORDERS = [
    (1, "a@b.co", "paid", Decimal("10.50"), 1, datetime(2024, 1, 1, 0, 0), date(2024, 1, 1), "2024-01-01 00:00:00", 1),
    (
        2,
        "Zoë@exämple.org",
        "shipped",
        Decimal("0.00"),
        2,
        datetime(2024, 1, 2, 12, 30),
        date(2024, 1, 2),
        "2024-01-02 12:30:00",
        2,
    ),
    (2, "", "paid", Decimal("-3.25"), 3, datetime(2024, 1, 3, 23, 59, 59), date(2024, 1, 3), "2024-1-3 10:00:00", 3),
    (3, None, "", Decimal("99.99"), 100, None, None, None, None),
    (4, "bad email", None, None, 0, datetime(2023, 12, 31, 23, 59, 59), date(2023, 12, 31), "not a time", 9),
    (
        None,
        "日本語@例え.jp",
        "PAID",
        Decimal("100.01"),
        None,
        datetime(2024, 2, 1),
        date(2024, 2, 1),
        "2024-02-01 00:00:00",
        1,
    ),
    (
        6,
        "emoji😀@x.io",
        "void",
        Decimal("55.55"),
        5,
        datetime(2024, 1, 15, 8, 0),
        date(2024, 1, 15),
        "2024-01-15T08:00:00",
        2,
    ),
    (6, " ", "shipped", Decimal("1.00"), 7, datetime(2024, 1, 10), date(2024, 1, 10), "2024-01-10", 4),
    (7, "a@b.co", "paid", Decimal("2.00"), 7, datetime(2024, 1, 4), date(2024, 1, 4), "2024-01-04 00:00:00", 1),
]
CUSTOMER_COLUMNS = ["customer_id", "name"]
CUSTOMERS = [(1, "Ana"), (2, "Björn"), (3, None), (None, "nobody"), (5, "")]

EMAIL = r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$"


def _accuracy(operator: str = "=") -> dict[str, Any]:
    return {"mapping_columns": [{"src_field": "customer_id", "operator": operator, "target_field": "customer_id"}]}


# (case id, template key, params beyond the tables). `src_filter` / `target_filter` filter the batch.
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("null_unicode_column", "null_check", {"src_field": UNICODE}),
    ("null_numeric", "null_check", {"src_field": "id"}),
    ("null_filtered", "null_check", {"src_field": "status", "src_filter": "qty > 1"}),
    ("null_unicode_filter", "null_check", {"src_field": "status", "src_filter": f"`{UNICODE}` IS NOT NULL"}),
    ("sql_count", "custom_sql", {"statistics_execute_sql": "SELECT count(*) FROM ${src_table} WHERE status = 'paid'"}),
    ("sql_avg", "custom_sql", {"statistics_execute_sql": "SELECT avg(qty) AS a FROM ${src_table}"}),
    ("sql_distinct", "custom_sql", {"statistics_execute_sql": "SELECT count(DISTINCT status) FROM ${src_table}"}),
    (
        "sql_grouped",
        "custom_sql",
        {
            "statistics_execute_sql": "SELECT max(n) FROM (SELECT status, count(*) AS n FROM ${src_table} "
            "GROUP BY status) AS g"
        },
    ),
    (
        "sql_java_only",
        "custom_sql",
        {"statistics_execute_sql": "SELECT count(*) FROM ${src_table} WHERE status RLIKE '^p'"},
    ),
    ("accuracy_equal", "multi_table_accuracy", _accuracy("=")),
    ("accuracy_null_safe", "multi_table_accuracy", _accuracy("<=>")),
    ("accuracy_filtered", "multi_table_accuracy", {**_accuracy("="), "target_filter": "name IS NOT NULL"}),
    (
        "value_comparison",
        "multi_table_value_comparison",
        {
            "statistics_execute_sql": "SELECT count(*) FROM ${src_table}",
            "comparison_execute_sql": "SELECT count(*) FROM ${target_table} WHERE customer_id IS NOT NULL",
        },
    ),
    ("length_unicode", "field_length_check", {"src_field": UNICODE, "logic_operator": ">", "field_length": 6}),
    ("length_exact", "field_length_check", {"src_field": "status", "logic_operator": "=", "field_length": 4}),
    ("length_number", "field_length_check", {"src_field": "qty", "logic_operator": ">=", "field_length": 2}),
    ("unique_id", "uniqueness_check", {"src_field": "id"}),
    ("unique_unicode", "uniqueness_check", {"src_field": UNICODE}),
    ("unique_filtered", "uniqueness_check", {"src_field": "status", "src_filter": "qty > 1"}),
    ("regexp_email", "regexp_check", {"src_field": UNICODE, "regexp_pattern": EMAIL}),
    ("regexp_dot_end", "regexp_check", {"src_field": "status", "regexp_pattern": "^.a.d$"}),
    ("regexp_number", "regexp_check", {"src_field": "qty", "regexp_pattern": r"^\d$"}),
    ("regexp_java_only", "regexp_check", {"src_field": UNICODE, "regexp_pattern": r"^(?=.*@)\p{L}+"}),
    (
        "time_timestamp",
        "timeliness_check",
        {"src_field": "created", "begin_time": "2024-01-01 00:00:00", "deadline": "2024-01-03 23:59:59"},
    ),
    (
        "time_date",
        "timeliness_check",
        {"src_field": "day", "begin_time": "2024-01-02 00:00:00", "deadline": "2024-01-15 00:00:00"},
    ),
    (
        "time_text_format",
        "timeliness_check",
        {
            "src_field": "created_text",
            "begin_time": "2024-01-01 00:00:00",
            "deadline": "2024-01-31 00:00:00",
            "datetime_format": "yyyy-MM-dd HH:mm:ss",
        },
    ),
    (
        "time_text_default",
        "timeliness_check",
        {"src_field": "created_text", "begin_time": "2024-01-01 00:00:00", "deadline": "2024-01-31 00:00:00"},
    ),
    ("enum_text", "enumeration_check", {"src_field": "status", "enum_list": ["paid", "shipped"]}),
    ("enum_unicode", "enumeration_check", {"src_field": UNICODE, "enum_list": ["a@b.co", "Zoë@exämple.org"]}),
    ("enum_numbers", "enumeration_check", {"src_field": "qty", "enum_list": [1, 2, "x", "7"]}),
    ("count_all", "table_count_check", {}),
    ("count_filtered", "table_count_check", {"src_filter": "status = 'paid' AND amount > 0"}),
    ("range_decimal", "value_range_check", {"src_field": "amount", "min_value": 0, "max_value": 100}),
    ("range_min_only", "value_range_check", {"src_field": "qty", "min_value": 1}),
    ("range_date", "value_range_check", {"src_field": "day", "min_value": "2024-01-02"}),
    ("range_timestamp", "value_range_check", {"src_field": "created", "max_value": "2024-01-03 00:00:00"}),
    ("avg_decimal", "column_aggregate_check", {"src_field": "amount", "aggregate": "avg"}),
    ("sum_int", "column_aggregate_check", {"src_field": "qty", "aggregate": "sum"}),
    ("min_decimal", "column_aggregate_check", {"src_field": "amount", "aggregate": "min"}),
    ("max_int_filtered", "column_aggregate_check", {"src_field": "qty", "aggregate": "max", "src_filter": "id > 2"}),
]

# Row-level rule sets (check.yaml) and schema contracts over the same rows. `OUTPUT` asks for the
# cleansed output (a folder per engine, filled in by equivalence_spec).
OUTPUT = "<cleansed>"
RULES_SHORT = """checks:
  - amount >= 0
  - status in ('paid', 'shipped', '')
  - qty < 50
  - status != void
  - created <= '2024-01-10 00:00:00'
  - day > '2024-01-01'
"""
RULES_FULL = f"""checks:
  - name: email_set
    fn: notNull
    fields: ["{UNICODE}"]
    critical: true
  - name: email_shape
    fn: re
    fields: ["{UNICODE}"]
    args: ['^[^@ ]+@[^@ ]+[.][a-z]+$']
  - name: short_enough
    fn: maxLen
    fields: ["{UNICODE}", status]
    args: [7]
  - name: not_blank
    fn: minLen
    fields: ["{UNICODE}"]
    args: [1]
  - name: id_and_customer
    fn: notNullIfSet
    fields: [id, customer_id]
  - name: not_a_dot_co
    fn: like
    negate: true
    fields: ["{UNICODE}"]
    args: ['%.co']
  - name: unicode_listed
    fn: in
    fields: ["{UNICODE}"]
    args: ['Zoë@exämple.org', '日本語@例え.jp', 'emoji😀@x.io', '']
  - name: qty_text
    fn: like
    fields: [qty]
    args: ['_']
  - name: not_exactly_paid
    fn: eq
    negate: true
    fields: [status]
    args: [paid]
"""
RULES_CHAIN = """checks:
  - type: chain
    name: paid_or_cheap
    clause: any
    checks:
      - status == paid
      - type: chain
        clause: all
        negate: true
        checks: [amount > 50, qty >= 5]
  - type: chain
    clause: all
    negate: true
    critical: true
    checks:
      - status == shipped
      - id < 3
"""
CONTRACT_TYPES = f"""columns:
  - {{name: id, type: integer}}
  - {{name: "{UNICODE}", type: string}}
  - {{name: status, type: integer}}
  - {{name: amount, type: number}}
  - {{name: created, type: timestamp}}
  - {{name: day, type: date}}
  - {{name: created_text, type: timestamp}}
  - {{name: shipped, type: boolean}}
  - {{name: refunded, required: false}}
"""
CONTRACT_NULLS = f"""strict: true
columns:
  - {{name: id, type: integer, nullable: false}}
  - {{name: "{UNICODE}", nullable: false}}
  - {{name: status, type: string, nullable: false}}
  - {{name: qty, type: number, nullable: true}}
  - {{name: customer_id, type: number, nullable: false}}
  - {{name: AMOUNT}}
"""
CASES += [
    ("rules_short", "row_level_check", {"checks_yaml": RULES_SHORT}),
    ("rules_full", "row_level_check", {"checks_yaml": RULES_FULL, "output_path": OUTPUT}),
    ("rules_chain", "row_level_check", {"checks_yaml": RULES_CHAIN, "output_path": OUTPUT}),
    ("rules_filtered", "row_level_check", {"checks_yaml": RULES_SHORT, "src_filter": "qty > 1", "output_path": OUTPUT}),
    ("rules_java_only", "row_level_check", {"checks_yaml": "checks:\n  - status ~= ^(?=p)\\w+\n"}),
    ("rules_escaped_like", "row_level_check", {"checks_yaml": "checks:\n  - status like 'p\\%'\n"}),
    ("contract_types", "schema_contract_check", {"contract_yaml": CONTRACT_TYPES}),
    ("contract_nulls_strict", "schema_contract_check", {"contract_yaml": CONTRACT_NULLS}),
]
# Cases an engine declines, and the words of its reason (auto sends these to Spark).
DECLINED = {
    "duckdb": {
        "sql_java_only": "RegexpLike",
        "regexp_java_only": "Java's regex engine",
        "rules_java_only": "rule 'check-status-re': the regular expression '^(?=p)\\\\w+' needs Java's regex engine",
        "rules_escaped_like": "rule 'check-status-like': the like pattern 'p\\\\%' holds a backslash",
    }
}


# --- the sources -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def parquet_files(tmp_path_factory) -> dict[str, dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    base = tmp_path_factory.mktemp("equivalence_parquet")
    types = [pa.int64(), pa.string(), pa.string(), pa.decimal128(10, 2), pa.int32(), pa.timestamp("us")]
    types += [pa.date32(), pa.string(), pa.int64()]
    columns = [pa.array(values, type=t) for values, t in zip(zip(*ORDERS, strict=True), types, strict=True)]
    orders = pa.table(columns, names=ORDER_COLUMNS)
    (base / "orders").mkdir()
    pq.write_table(orders.slice(0, 5), base / "orders" / "part-00000.parquet")
    pq.write_table(orders.slice(5), base / "orders" / "part-00001.parquet")
    customers = pa.table(
        [pa.array(v, type=t) for v, t in zip(zip(*CUSTOMERS, strict=True), [pa.int64(), pa.string()], strict=True)],
        names=CUSTOMER_COLUMNS,
    )
    pq.write_table(customers, base / "customers.parquet")
    return {
        "orders": {"kind": "file", "format": "parquet", "path": str(base / "orders")},
        "customers": {"kind": "file", "format": "parquet", "path": str(base / "customers.parquet")},
    }


@pytest.fixture(scope="module")
def csv_files(tmp_path_factory) -> dict[str, dict[str, Any]]:
    """CSV as Spark reads it by default (header, types inferred): NULL and '' are both an empty
    field, so both engines read NULL for them."""
    base = tmp_path_factory.mktemp("equivalence_csv")
    for name, header, rows in (("orders", ORDER_COLUMNS, ORDERS), ("customers", CUSTOMER_COLUMNS, CUSTOMERS)):
        with open(base / f"{name}.csv", "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(header)
            writer.writerows([["" if v is None else _csv_text(v) for v in row] for row in rows])
    return {
        "orders": {"kind": "file", "format": "csv", "path": str(base / "orders.csv")},
        "customers": {"kind": "file", "format": "csv", "path": str(base / "customers.csv")},
    }


def _csv_text(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if isinstance(value, datetime) else str(value)


@pytest.fixture(scope="module")
def json_files(tmp_path_factory) -> dict[str, dict[str, Any]]:
    """JSON lines as a service would write them: times and dates as strings, decimals as numbers.
    Spark keeps such strings strings and orders the columns by name; DuckDB reads them the same way
    (dq_engine/duckdb/readers.py), so time checks read the text on both."""
    import json

    base = tmp_path_factory.mktemp("equivalence_json")
    for name, header, rows in (("orders", ORDER_COLUMNS, ORDERS), ("customers", CUSTOMER_COLUMNS, CUSTOMERS)):
        (base / name).mkdir()
        lines = [json.dumps(dict(zip(header, map(_json_value, row), strict=True)), ensure_ascii=False) for row in rows]
        (base / name / "part-00000.json").write_text("\n".join(lines[:4]) + "\n", encoding="utf-8")
        (base / name / "part-00001.json").write_text("\n".join(lines[4:]) + "\n", encoding="utf-8")
    return {
        "orders": {"kind": "file", "format": "json", "path": str(base / "orders")},
        "customers": {"kind": "file", "format": "json", "path": str(base / "customers")},
    }


def _json_value(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime | date):
        return _csv_text(value) if isinstance(value, datetime) else value.isoformat()
    return value


# Cases that end `error` on every engine for a kind of source: JSON has no date or time types, and a
# value range needs one (a time window on text parses it instead, so time checks do run).
EXPECTED_ERRORS = {"json": {"range_date", "range_timestamp"}}

# source kind -> (fixture writing the data, engines that read it; the first is the reference)
SOURCE_KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "parquet": ("parquet_files", ("spark", "duckdb")),
    "csv": ("csv_files", ("spark", "duckdb")),
    "json": ("json_files", ("spark", "duckdb")),
}


# --- building and running the spec -----------------------------------------------------------------
def _templates() -> dict[str, dict[str, Any]]:
    catalog = yaml.safe_load((ROOT / "rules" / "catalog" / "templates.yaml").read_text(encoding="utf-8"))
    return {t["key"]: t for t in catalog["templates"]}


def equivalence_spec(sources: dict[str, dict[str, Any]], engine: str, root: Path, cases=CASES) -> JobSpec:
    """One spec holding every case: a batch per (table, filter), every check asking for error rows;
    a row-level rule set with one spec check per rule, as the platform runs it (executions/jobs.py),
    and its cleansed output (OUTPUT) in a folder of this engine's own, beside `root`."""
    from dq_engine.rowchecks.spec_checks import with_rule_checks

    templates = _templates()
    batches: dict[tuple[str, str | None], str] = {}

    def batch(table: str, condition: str | None) -> str:
        return batches.setdefault((table, condition), f"{table}_{len(batches)}")

    checks = []
    for case_id, key, params in cases:
        rule_json = templates[key]["rule_json"]
        if params.get("output_path") == OUTPUT:
            params = {**params, "output_path": str(root.parent / f"{root.name}_cleansed" / case_id)}
        checks += with_rule_checks(
            {
                "id": case_id,
                "name": case_id,
                "batch": batch("orders", params.get("src_filter")),
                "target_batch": batch("customers", params.get("target_filter"))
                if key in ("multi_table_accuracy", "multi_table_value_comparison")
                else None,
                "metric": engine_metric(rule_json["metric"], params),
                "error_rows": rule_json["error_rows"] == "matching_rows",
            }
        )
    return JobSpec.from_dict(
        {
            "run_id": f"equivalence-{engine}",
            "sources": sources,
            "batches": {
                name: {"source": table, "filter": condition, "engine": engine}
                for (table, condition), name in batches.items()
            },
            "checks": checks,
            "error_rows": {"root": str(root), "limit": 100},
        }
    )


def run_on(engine: str, spec: JobSpec, spark) -> dict[str, Any]:
    import dq_engine
    from dq_engine.rowchecks.spec_checks import DETAIL_SEPARATOR

    declined = {}
    kept = []
    reader = make_engine(engine)
    for check in spec.checks:
        reason = getattr(reader, "reason_cannot_check", lambda c: None)(check)
        if reason:  # a rule set's rule checks go with it (selection sends the batch to Spark)
            declined[check.id.split(DETAIL_SEPARATOR)[0]] = reason
        else:
            kept.append(check)
    kept = [check for check in kept if check.id.split(DETAIL_SEPARATOR)[0] not in declined]
    from dataclasses import replace

    document = dq_engine.run(replace(spec, checks=kept), spark=spark)
    document["declined"] = declined
    return document


def stored_rows(path: str | None) -> list[tuple]:
    """The stored error rows, as sorted tuples of comparable values (the check-name column dropped)."""
    if not path:
        return []
    import pyarrow.dataset as ds

    table = ds.dataset(path, format="parquet", ignore_prefixes=[".", "_"]).to_table()
    rows = [tuple(_comparable(row[c]) for c in table.column_names if c != "_dq_check") for row in table.to_pylist()]
    return sorted(rows, key=repr)


def _comparable(value: Any) -> Any:
    if isinstance(value, Decimal | float) and not isinstance(value, bool):
        return round(float(value), 9)
    if isinstance(value, datetime):
        return value.replace(tzinfo=None)
    return value


def _same_statistic(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.fixture(scope="module")
def answers(request, spark, tmp_path_factory) -> dict[str, dict[str, dict[str, Any]]]:
    """{source kind: {engine: result document}}; every engine's run over the same data."""
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for kind, (fixture, engines) in SOURCE_KINDS.items():
        sources = request.getfixturevalue(fixture)
        results[kind] = {}
        for engine in engines:
            root = tmp_path_factory.mktemp(f"errors_{kind}_{engine}")
            results[kind][engine] = run_on(engine, equivalence_spec(sources, engine, root), spark)
    return results


# --- the tests -------------------------------------------------------------------------------------
# Templates whose statistic no engine answers the same way twice, or at all: a freshness age is
# measured at run time (each engine runs at another moment; dq_engine/tests/test_freshness_metric.py
# checks it on every engine against the age worked out from the newest row), and a file's age and
# schema changes are answered by the platform from metadata and the catalog, not by an engine
# (executions/tests and monitors/tests check them).
COVERED_ELSEWHERE = {"freshness_check", "file_freshness_check", "schema_change_check"}


def test_every_built_in_template_has_an_equivalence_case():
    covered = {key for _, key, _ in CASES} | COVERED_ELSEWHERE
    missing = sorted(set(_templates()) - covered)
    assert not missing, f"Add equivalence cases for the templates {', '.join(missing)} (CASES above)."


def findings(outcome: dict[str, Any]) -> list[str]:
    """A contract's findings, the type each engine names ("string", "varchar") left out."""
    import re

    return [re.sub(r"^column (.+) is .+, not ", r"column \1 is *, not ", f) for f in outcome.get("findings") or []]


def cleansed_rows(outcome: dict[str, Any]) -> list[tuple]:
    """A rule set's cleansed output (every row with `_dq`, `_dq_failed_checks`) as sorted tuples."""
    return stored_rows(outcome.get("output_path"))


@pytest.mark.parametrize("kind", list(SOURCE_KINDS))
def test_every_engine_gives_sparks_statistics_counts_and_error_rows(answers, kind):
    engines = SOURCE_KINDS[kind][1]
    reference = answers[kind][engines[0]]
    assert reference["declined"] == {}
    errors = {k: o["message"] for k, o in reference["checks"].items() if o["status"] != "ok"}
    assert set(errors) == EXPECTED_ERRORS.get(kind, set()), errors
    for engine in engines[1:]:
        document = answers[kind][engine]
        assert {b["engine"] for b in document["batches"].values()} == {engine}
        differences = []
        for case_id in reference["checks"]:  # every case, and each rule of a rule set ("<case>#<n>")
            if case_id.split("#")[0] in document["declined"]:
                continue
            want, got = reference["checks"][case_id], document["checks"][case_id]
            if want["status"] == "error":
                if got["status"] != "error":
                    differences.append((case_id, "status", want["message"], got["status"]))
            elif got["status"] != "ok" or not _same_statistic(want["statistic"], got["statistic"]):
                differences.append((case_id, "statistic", want["statistic"], got["statistic"], got["message"]))
            elif want["comparison"] != got["comparison"] or want["error_row_count"] != got["error_row_count"]:
                differences.append((case_id, "counts", want, got))
            elif stored_rows(want["error_rows_path"]) != stored_rows(got["error_rows_path"]):
                differences.append(
                    (case_id, "rows", stored_rows(want["error_rows_path"]), stored_rows(got["error_rows_path"]))
                )
            elif findings(want) != findings(got):
                differences.append((case_id, "findings", findings(want), findings(got)))
            elif cleansed_rows(want) != cleansed_rows(got) or bool(want.get("output_path")) != bool(
                got.get("output_path")
            ):
                differences.append((case_id, "cleansed", cleansed_rows(want), cleansed_rows(got)))
        assert differences == [], f"{engine} on {kind} differs from Spark"
        assert sum(1 for c in document["checks"].values() if c["error_rows_written"]) > 10  # rows were compared


@pytest.mark.parametrize("kind", list(SOURCE_KINDS))
def test_what_an_engine_declines_it_declines_with_a_reason(answers, kind):
    for engine in SOURCE_KINDS[kind][1][1:]:
        declined = answers[kind][engine]["declined"]
        assert set(declined) == set(DECLINED.get(engine, {}))
        for case_id, words in DECLINED.get(engine, {}).items():
            assert words in declined[case_id]


def test_the_data_holds_what_the_cases_are_about(answers):
    """The reference numbers show the NULLs, empty strings and unicode the cases rely on."""
    parquet, csv_ = answers["parquet"]["spark"]["checks"], answers["csv"]["spark"]["checks"]
    assert parquet["null_unicode_column"]["statistic"] == 2.0  # one NULL, one ''
    assert csv_["null_unicode_column"]["statistic"] == 2.0  # '' is an empty field: NULL in CSV
    assert parquet["regexp_email"]["statistic"] == 6.0  # "", " ", "bad email" and three non-ASCII addresses
    assert parquet["length_unicode"]["statistic"] == 4.0  # characters, not bytes: "Zoë@exämple.org" is 15
    assert parquet["unique_id"]["statistic"] == 2.0 and parquet["unique_id"]["error_row_count"] == 4


# --- differences that cannot be removed (README, "Engines: where the answers may differ") ------------
def _one_check_doc(engine: str, sources: dict, check: dict, spark) -> dict[str, Any]:
    import dq_engine

    spec = {
        "run_id": "difference",
        "sources": sources,
        "batches": {"b": {"source": "t", "engine": engine}},
        "checks": [{"id": "c", "name": "c", "batch": "b", **check}],
    }
    return dq_engine.run(spec, spark=spark)["checks"]["c"]


def test_the_text_form_of_a_double_differs_between_engines_as_documented(spark, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"x": pa.array([1.0e20, 0.5], pa.float64())}), tmp_path / "t.parquet")
    sources = {"t": {"kind": "file", "format": "parquet", "path": str(tmp_path / "t.parquet")}}
    length = {
        "metric": {
            "kind": "conditional_count",
            "predicate": "length_compare",
            "column": "x",
            "operator": "=",
            "length": 6,
        }
    }

    # Spark writes 1.0E20 (6 characters), DuckDB 1e+20 (5); 0.5 is 0.5 on both.
    assert _one_check_doc("spark", sources, length, spark)["statistic"] == 1.0
    assert _one_check_doc("duckdb", sources, length, spark)["statistic"] == 0.0


def test_text_times_in_forms_other_than_iso_are_null_on_duckdb_as_documented(spark, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"t": ["2024", "2024-01-05 10:00:00+01:00", "2024-01-05"]}), tmp_path / "t.parquet")
    sources = {"t": {"kind": "file", "format": "parquet", "path": str(tmp_path / "t.parquet")}}
    window = {
        "metric": {
            "kind": "conditional_count",
            "predicate": "time_between",
            "column": "t",
            "begin": "2023-12-01 00:00:00",
            "end": "2024-02-01 00:00:00",
            "format": None,
        }
    }

    assert _one_check_doc("spark", sources, window, spark)["statistic"] == 3.0  # a year alone, a zone: Spark reads them
    assert _one_check_doc("duckdb", sources, window, spark)["statistic"] == 1.0  # only the ISO date


# Hand-counted from ORDERS (rows r1..r9 in order). In CSV '' is an empty field, read as NULL:
# r3's email and r4's status are NULL there, and NULLs pass every value check.
HAND_COUNTED = {
    # notNull: r4 | re: r3 '', r5, r8 ' ' | maxLen 7: r2, r5, r6, r7 | minLen: r3 | notNullIfSet: r4, r6
    # not like %.co: r1, r9 | in: r1, r5, r8, r9 | qty like _: r4 (100) | not == paid: r1, r3, r9
    "parquet": {"rules_full": [1, 3, 4, 1, 2, 2, 4, 1, 3], "chain_failing": {4, 6, 7}},
    # notNull: r3, r4 | re: r5, r8 | minLen: none | the others as in Parquet
    # the chain: r4's status is NULL, so `status == paid` holds
    "csv": {"rules_full": [2, 2, 4, 0, 2, 2, 4, 1, 3], "chain_failing": {6, 7}},
    # JSON keeps '' as Parquet does; its times and dates are text (compared as text, same answers)
    "json": {"rules_full": [1, 3, 4, 1, 2, 2, 4, 1, 3], "chain_failing": {4, 6, 7}},
}
# contract_types: status is no integer, created_text no timestamp, shipped is missing; in JSON also
# created and day (text); contract_nulls_strict's extra columns in the batch's order (JSON: by name).
CONTRACT_FINDINGS = {
    "types": ["column status is *, not integer", "column created_text is *, not timestamp", "missing column shipped"],
    "extras": ["extra column created", "extra column day", "extra column created_text"],
}
JSON_CONTRACT_FINDINGS = {
    "types": [
        "column status is *, not integer",
        "column created is *, not timestamp",
        "column day is *, not date",
        "column created_text is *, not timestamp",
        "missing column shipped",
    ],
    "extras": ["extra column created", "extra column created_text", "extra column day"],
}


@pytest.mark.parametrize("kind", list(SOURCE_KINDS))
def test_rule_sets_and_contracts_count_what_the_rows_hold_on_every_engine(answers, kind):
    """The numbers the rows hold (HAND_COUNTED and below), on Spark and on DuckDB."""
    expected = HAND_COUNTED[kind]
    for engine in SOURCE_KINDS[kind][1]:
        checks = answers[kind][engine]["checks"]

        def rules(case: str, n: int, checks=checks) -> list[float]:
            return [checks[f"{case}#{i}"]["statistic"] for i in range(n)]

        # amount >= 0: r3 | status in: r6 PAID, r7 void | qty < 50: r4 | != void: r7
        # created <= 01-10: r6, r7 | day > 01-01: r1, r5
        assert (checks["rules_short"]["statistic"], rules("rules_short", 6)) == (6.0, [1, 2, 1, 1, 2, 2]), engine
        assert checks["rules_filtered"]["statistic"] == 3.0  # of qty > 1 (r2 r3 r4 r7 r8 r9): r3, r4, r7
        assert rules("rules_full", 9) == expected["rules_full"], engine
        assert checks["rules_full"]["statistic"] == 9.0  # every row fails one of them
        # paid or not (amount > 50 and qty >= 5): r4, r6 (qty NULL passes), r7 | not (shipped, id < 3): r2
        chain = expected["chain_failing"]
        assert checks["rules_chain"]["statistic"] == 1 + len(chain), engine
        assert rules("rules_chain", 2) == [len(chain), 1], engine
        marks = {(row["id"], row[UNICODE]): (row["_dq"], row["_dq_failed_checks"]) for row in _cleansed(checks)}
        assert len(marks) == 9, engine  # every row of the batch, the valid ones too
        want = {(row[0], row[1]): (0, "") for row in ORDERS}
        want[(2, "Zoë@exämple.org")] = (1, "chain-all-2")
        want.update({(ORDERS[r - 1][0], ORDERS[r - 1][1]): (1, "paid_or_cheap") for r in chain})
        if kind == "csv":
            want = {(i, e if e != "" else None): mark for (i, e), mark in want.items()}
        assert marks == want, engine
        contract = JSON_CONTRACT_FINDINGS if kind == "json" else CONTRACT_FINDINGS
        assert checks["contract_types"]["statistic"] == len(contract["types"]), engine
        assert findings(checks["contract_types"]) == contract["types"], engine
        # NULLs in id (r6), the email (r4), status (r5), customer_id (r4); extra created, day, created_text
        assert checks["contract_nulls_strict"]["statistic"] == 7.0, engine
        assert findings(checks["contract_nulls_strict"]) == contract["extras"], engine


def _cleansed(checks: dict[str, Any]) -> list[dict[str, Any]]:
    """The chain case's cleansed output as rows by column name (JSON orders its columns by name)."""
    import pyarrow.dataset as ds

    path = checks["rules_chain"]["output_path"]
    return ds.dataset(path, format="parquet", ignore_prefixes=[".", "_"]).to_table().to_pylist()
