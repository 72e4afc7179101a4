"""Row-level rules (check.yaml) on every engine: per-check failed counts, invalid rows, NULL rules
and the `_dq` / `_dq_failed_checks` marks of the error rows, on Parquet (Spark, DuckDB), PostgreSQL
and MariaDB (Spark, pushdown), all in the batch's one aggregate pass.

The counts below are worked out by hand from conftest.ORDERS rows 1..7 (the batch's filter).
"""

from __future__ import annotations

import pyarrow.dataset as pa_ds
import pytest

from dq_engine.rowchecks import expand
from dq_engine.rowchecks.spec_checks import rule_details, with_rule_checks
from dq_engine.tests.conftest import NOTE, ORDER_COLUMNS, make_spec, spark_work

pytestmark = pytest.mark.spark

CHECK_YAML = f"""
checks:
  - amount >= 0                                # row 2 (-3.00); row 5's NULL passes
  - customer_email ~= @example\\.com$           # rows 3 (''), 4, 7 ('b@example'); row 2's NULL passes
  - status in ('paid', 'void')                 # rows 5 (refunded), 6 (PAID); row 7's NULL passes
  - name: email_set
    fn: notNull
    fields: [customer_email]
    critical: true                             # row 2
  - fn: notNullIfSet
    fields: [status, amount]                   # row 5 (amount NULL), row 7 (status NULL)
  - name: note_short
    fn: maxLen
    fileds: ["{NOTE}"]                         # the seed's typo, tolerated
    args: [3]                                  # rows 2 (négatif), 6 (über long note); row 3's NULL passes
  - fn: like
    negate: true
    fields: [customer_email]
    args: ['%@example']                        # rows 4, 7
  - type: chain                                # rows 3, 5, 6 (status not paid)
    clause: all
    checks:
      - status == paid
      - type: chain
        clause: any
        checks: [amount > 50, amount < 11]
"""
EXPECTED_FAILED = {
    "check-amount-ge": 1,
    "check-customer_email-re": 3,
    "check-status-in": 2,
    "email_set": 1,
    "check-status-amount-notNullIfSet": 2,
    "note_short": 2,
    "check-customer_email-like": 2,
    "chain-all-8": 3,
}
EXPECTED_MARKS = {  # order_id → the checks it fails, in rule-set order
    2: ["check-amount-ge", "email_set", "note_short"],
    3: ["check-customer_email-re", "chain-all-8"],
    4: ["check-customer_email-re", "check-customer_email-like"],
    5: ["check-status-in", "check-status-amount-notNullIfSet", "chain-all-8"],
    6: ["check-status-in", "note_short", "chain-all-8"],
    7: ["check-customer_email-re", "check-status-amount-notNullIfSet", "check-customer_email-like"],
}


# (source fixture, engine): each store read by Spark and by the engine `auto` gives it.
STORES = [
    ("parquet_sources", "spark"),
    ("parquet_sources", "duckdb"),
    ("pg_sources", "spark"),
    ("pg_sources", "pushdown"),
    ("mariadb_sources", "spark"),
    ("mariadb_sources", "pushdown"),
]


def _on(spec, engine):
    for batch in spec["batches"].values():
        batch["engine"] = engine
    return spec


def _row_rules_spec(sources, tmp_path, text=CHECK_YAML):
    check = {
        "id": "rr",
        "name": "row rules",
        "batch": "b",
        "target_batch": None,
        "metric": {"kind": "row_rules", "rules": expand(text)},
        "error_rows": True,
    }
    return make_spec(sources, with_rule_checks(check), error_rows={"root": str(tmp_path / "errors"), "limit": 100})


@pytest.mark.parametrize(("store", "engine"), STORES)
def test_each_check_counts_its_failed_rows_and_error_rows_carry_their_marks(spark, request, tmp_path, store, engine):
    import dq_engine

    spec = _on(_row_rules_spec(request.getfixturevalue(store), tmp_path), engine)
    document = dq_engine.run(spec, spark=spark)
    assert document["batches"]["b"]["engine"] == engine

    outcome = document["checks"]["rr"]
    assert outcome["status"] == "ok", outcome["message"]
    assert outcome["statistic"] == 6.0  # every row but row 1 fails something
    details = rule_details("rr", spec["checks"][0]["metric"]["rules"], document["checks"])
    assert {d["name"]: d["failed_rows"] for d in details} == EXPECTED_FAILED
    assert [d["name"] for d in details if d["critical"]] == ["email_set"]
    assert document["plan"]["batches"]["b"]["aggregate_passes"] == 1

    stored = pa_ds.dataset(outcome["error_rows_path"], format="parquet").to_table().to_pylist()
    marks = {row["order_id"]: (row["_dq"], row["_dq_failed_checks"]) for row in stored}
    assert marks == {order: (len(names), ",".join(names)) for order, names in EXPECTED_MARKS.items()}
    assert {"customer_email", "status", "amount", NOTE} <= set(stored[0])  # beside all columns


def test_thirty_checks_run_in_the_one_aggregate_pass_and_read_the_source_once(spark, parquet_sources, tmp_path):
    import dq_engine

    thirty = "checks:\n" + "".join(
        f"  - name: c{i}\n    fn: ge\n    fields: [amount]\n    args: [{i}]\n" for i in range(30)
    )
    one = "checks:\n  - amount >= 0\n"
    spec_30 = _row_rules_spec(parquet_sources, tmp_path, thirty)
    spec_1 = _row_rules_spec(parquet_sources, tmp_path, one)
    for spec in (spec_30, spec_1):
        spec["batches"] = {"b": {"source": "orders"}}  # no filter: every scan reads all 8 rows
        spec["error_rows"] = None
    document_30 = dq_engine.run(spec_30, spark=spark)
    document_1 = dq_engine.run(spec_1, spark=spark)
    work_30 = spark_work(spark, document_30["plan"]["job_group"])
    work_1 = spark_work(spark, document_1["plan"]["job_group"])

    assert document_30["plan"]["batches"]["b"]["aggregate_passes"] == 1
    assert document_30["plan"]["batches"]["b"]["fused_checks"] == 31  # the rule set and its 30 rules
    assert work_30 == work_1  # 30 checks cost the jobs and source reads that 1 costs
    assert work_30["input_records"] == 8
    details = rule_details("rr", spec_30["checks"][0]["metric"]["rules"], document_30["checks"])
    # amounts of the 8 rows: 10.50, -3, 7.25, 120, NULL, 55, 0, 99.99; `amount >= i` fails below i
    amounts = [10.50, -3, 7.25, 120, 55, 0, 99.99]
    assert [d["failed_rows"] for d in details] == [sum(a < i for a in amounts) for i in range(30)]


@pytest.mark.parametrize(("store", "engine"), [("parquet_sources", "duckdb"), ("pg_sources", "pushdown")])
def test_thirty_checks_are_one_aggregate_query_on_duckdb_and_pushdown(spark, request, tmp_path, store, engine):
    import dq_engine

    thirty = "checks:\n" + "".join(
        f"  - name: c{i}\n    fn: ge\n    fields: [amount]\n    args: [{i}]\n" for i in range(30)
    )
    spec = _on(_row_rules_spec(request.getfixturevalue(store), tmp_path, thirty), engine)
    spec["batches"] = {"b": {"source": "orders", "engine": engine}}  # all 8 rows
    spec["error_rows"] = None
    document = dq_engine.run(spec, spark=spark)

    plan = document["plan"]["batches"]["b"]
    assert document["batches"]["b"]["engine"] == engine
    assert (plan["aggregate_passes"], plan["isolation_passes"], plan["fused_checks"]) == (1, 0, 31)
    details = rule_details("rr", spec["checks"][0]["metric"]["rules"], document["checks"])
    amounts = [10.50, -3, 7.25, 120, 55, 0, 99.99]  # row 5's NULL passes every rule
    assert [d["failed_rows"] for d in details] == [sum(a < i for a in amounts) for i in range(30)]
    assert document["checks"]["rr"]["statistic"] == 4.0  # 10.50, -3, 7.25 and 0 are below c29's 29


@pytest.mark.parametrize(("store", "engine"), STORES)
def test_a_cleansed_output_folder_that_exists_is_never_written_over(spark, request, tmp_path, store, engine):
    import dq_engine

    folder = tmp_path / "cleansed" / "run-1"
    folder.mkdir(parents=True)
    (folder / "part-0.parquet").write_bytes(b"another run's output")
    spec = _on(_row_rules_spec(request.getfixturevalue(store), tmp_path), engine)
    spec["checks"][0]["metric"]["output"] = str(folder)
    outcome = dq_engine.run(spec, spark=spark)["checks"]["rr"]

    assert outcome["status"] == "ok" and outcome["statistic"] == 6.0  # the statistic stands
    assert "The marked rows could not be written to" in outcome["message"] and "already exists" in outcome["message"]
    assert "output_path" not in outcome or outcome["output_path"] is None
    assert [p.name for p in folder.iterdir()] == ["part-0.parquet"]
    assert (folder / "part-0.parquet").read_bytes() == b"another run's output"


def test_a_check_on_a_column_the_batch_lacks_is_that_check_s_error(spark, parquet_sources, tmp_path):
    import dq_engine

    spec = _row_rules_spec(parquet_sources, tmp_path, "checks:\n  - amount >= 0\n  - amuont < 5\n")
    document = dq_engine.run(spec, spark=spark)

    assert document["checks"]["rr"]["status"] == "error"
    assert "unknown column 'amuont'" in document["checks"]["rr"]["message"]
    assert document["checks"]["rr#0"]["statistic"] == 1.0  # the other rule is still counted


@pytest.mark.parametrize(("store", "engine"), STORES)
def test_the_cleansed_output_holds_every_row_of_the_batch_with_its_marks(spark, request, tmp_path, store, engine):
    import dq_engine

    spec = _on(_row_rules_spec(request.getfixturevalue(store), tmp_path), engine)
    spec["checks"][0]["metric"]["output"] = str(tmp_path / "cleansed" / "run-1")
    document = dq_engine.run(spec, spark=spark)

    assert document["checks"]["rr"]["output_path"] == str(tmp_path / "cleansed" / "run-1")
    rows = pa_ds.dataset(document["checks"]["rr"]["output_path"], format="parquet").to_table().to_pylist()
    marks = {row["order_id"]: (row["_dq"], row["_dq_failed_checks"]) for row in rows}
    expected = {order: (len(names), ",".join(names)) for order, names in EXPECTED_MARKS.items()}
    assert marks == {1: (0, ""), **expected}  # rows 1..7 (the filter), the valid row 1 included
    assert set(rows[0]) == {*ORDER_COLUMNS, "_dq", "_dq_failed_checks"}


CONTRACT_YAML = """
strict: true
columns:
  - {name: order_id, type: integer, nullable: false}
  - {name: customer_email, type: string, nullable: false}   # NULL in row 2
  - {name: status, type: integer}                            # a text column
  - {name: amount, type: decimal, nullable: false}           # NULL in row 5
  - {name: shipped_at, type: timestamp}                      # missing (required by default)
  - {name: refunded_at, required: false}                     # missing, but optional
  - {name: created_at, type: timestamp}
  - {name: paid_on, type: string}
"""  # strict: the unlisted note column is an extra


@pytest.mark.parametrize(("store", "engine"), STORES)
def test_a_schema_contract_counts_and_names_each_violation_in_the_one_pass(spark, request, tmp_path, store, engine):
    import re

    import dq_engine
    from dq_engine.rowchecks.contract import parse_contract
    from dq_engine.rowchecks.spec_checks import contract_details

    contract = parse_contract(CONTRACT_YAML)
    check = {
        "id": "sc",
        "name": "contract",
        "batch": "b",
        "target_batch": None,
        "metric": {"kind": "schema_contract", "contract": contract},
        "error_rows": False,
    }
    spec = _on(make_spec(request.getfixturevalue(store), with_rule_checks(check)), engine)
    document = dq_engine.run(spec, spark=spark)

    assert document["batches"]["b"]["engine"] == engine
    assert document["checks"]["sc"]["status"] == "ok", document["checks"]["sc"]["message"]
    assert document["checks"]["sc"]["statistic"] == 5.0
    assert document["plan"]["batches"]["b"]["aggregate_passes"] == 1
    violations = contract_details("sc", contract, document["checks"])["violations"]
    assert [re.sub(r" is .*, not ", " is *, not ", v) for v in violations] == [
        "column status is *, not integer",
        "missing column shipped_at",
        f"extra column {NOTE}",
        "NULLs in non-nullable column customer_email (1 rows)",
        "NULLs in non-nullable column amount (1 rows)",
    ]
