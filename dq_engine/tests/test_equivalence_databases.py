"""Same answers on every engine, databases: each built-in template that can run in a database,
pushed down into PostgreSQL and MariaDB, against the Spark engine reading the same table.

Parametrized (engine × source) like the file-source equivalence test, so the two merge into one
table of cases. Compared per check: status, statistic, exact error-row count and the stored error
rows themselves (every row: the limit is above each count), and for row-level rule sets and
schema contracts each rule's count, the `_dq` / `_dq_failed_checks` marks of the stored rows, the
cleansed output's rows and the findings. The rows hold NULLs, empty strings, unicode values and a
unicode column name; batch b is filtered (row 8 must never count) and so is the accuracy target t.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from dq_engine.rowchecks import expand
from dq_engine.rowchecks.contract import parse_contract
from dq_engine.rowchecks.spec_checks import with_rule_checks
from dq_engine.tests.conftest import NOTE, check, make_spec
from dq_engine.tests.test_metrics import CASES, VALUE_COMPARISON
from dq_engine.tests.test_row_rules import CHECK_YAML, CONTRACT_YAML

pytestmark = pytest.mark.spark

# Everything test_metrics computes by hand, but times held as text (Spark's datetime patterns,
# which the databases lack: refused for pushdown, tested below), plus checks that store rows.
PUSHED = [case[0] for case in CASES if case[0]["id"] != "fresh_text"]
STORING = {
    c["id"] for c in PUSHED if c["metric"].get("kind") in ("conditional_count", "duplicate_values", "unmatched_rows")
}
CHECKS = [
    *({**c, "error_rows": c["id"] in STORING} for c in PUSHED),
    VALUE_COMPARISON,
    check(
        "sql_filtered", "custom_sql", sql="SELECT sum(amount) / count(*) FROM ${src_table} t WHERE t.status = 'paid'"
    ),
    check(
        "sql_cte",
        "custom_sql",
        sql="WITH x AS (SELECT * FROM ${src_table} WHERE amount IS NULL) SELECT count(*) FROM x",
    ),
    check("enum_unicode", "not_in_list_or_null", error_rows=True, column=NOTE, values=["ok", "Zoë", "négatif"]),
    check("range_time", "outside_range", error_rows=True, column="created_at", min="2026-11-01 00:00:00", max=None),
]
# Beyond test_row_rules' set (NULLs, '', unicode, a nested chain, a critical rule, notNullIfSet,
# in, like, maxLen, re): negate, minLen, text ordered by code point, times and a negated chain.
MORE_RULES = f"""
  - status > PAID                                # 'PAID' < 'paid' < 'refunded' < 'void' by code point
  - name: note_set
    fn: minLen
    fields: ["{NOTE}"]
    args: [1]
  - name: not_before_november
    fn: lt
    negate: true
    fields: [created_at]
    args: ['2026-11-01 00:00:00']
  - name: not_paid_and_big
    type: chain
    clause: all
    negate: true
    checks: [status == paid, amount >= 100]
  - name: odd_emails
    fn: re
    negate: true
    fields: [customer_email]
    args: ['^[a-d]@']
"""
CONTRACTS = {
    "contract": CONTRACT_YAML,  # a missing column, a wrong type, NULLs in two, strict: an extra
    "contract_kept": "columns:\n  - {name: order_id, type: integer, nullable: false}\n"
    "  - {name: amount, type: decimal}\n  - {name: created_at, type: timestamp}\n  - {name: paid_on, type: string}\n",
}


def rule_checks(output: str) -> list[dict]:
    """A rule set (its invalid rows, marked error rows, the cleansed output in `output`, one spec
    check per rule) and schema contracts (their findings, one spec check per non-nullable column)."""
    rules = {
        "id": "rules",
        "name": "row rules",
        "batch": "b",
        "target_batch": None,
        "metric": {"kind": "row_rules", "rules": expand(CHECK_YAML + MORE_RULES), "output": output},
        "error_rows": True,
    }
    contracts = [
        {
            "id": cid,
            "name": cid,
            "batch": "b",
            "target_batch": None,
            "metric": {"kind": "schema_contract", "contract": parse_contract(text)},
            "error_rows": False,
        }
        for cid, text in CONTRACTS.items()
    ]
    return [spec_check for c in [rules, *contracts] for spec_check in with_rule_checks(c)]


def _findings(outcome: dict) -> list[str]:
    import re

    return [re.sub(r"^column (.+) is .+, not ", r"column \1 is *, not ", f) for f in outcome.get("findings") or []]


ENGINE_CASES = [("pushdown", "postgresql"), ("pushdown", "mariadb")]
SOURCE_FIXTURES = {"postgresql": "pg_sources", "mariadb": "mariadb_sources"}


def _run(spec: dict, engine: str, spark):
    import dq_engine

    for batch in spec["batches"].values():
        batch["engine"] = engine
    return dq_engine.run(spec, spark=spark)


def _stored(path: str | None) -> list[tuple]:
    import pyarrow.dataset as ds

    if path is None:
        return []
    rows = ds.dataset(path, format="parquet", ignore_prefixes=[".", "_"]).to_table().to_pylist()
    return sorted((tuple(_plain(v) for v in row.values()) for row in rows), key=repr)


def _plain(value):
    """A stored value as both writers agree on it: numbers by value, times as naive UTC."""
    if isinstance(value, Decimal):
        return value.normalize()
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


@pytest.mark.parametrize(("engine", "source"), ENGINE_CASES)
def test_every_database_template_gives_spark_s_statistic_count_and_stored_rows(
    engine, source, spark, request, tmp_path
):
    sources = request.getfixturevalue(SOURCE_FIXTURES[source])
    spark_checks, checks = (CHECKS + rule_checks(str(tmp_path / f"cleansed_{e}")) for e in ("spark", engine))
    spark_doc = _run(
        make_spec(sources, spark_checks, error_rows={"root": str(tmp_path / "spark"), "limit": 100}), "spark", spark
    )
    doc = _run(make_spec(sources, checks, error_rows={"root": str(tmp_path / engine), "limit": 100}), engine, spark)

    assert doc["batches"]["b"] == {"rows": 7, "error": None, "engine": engine}
    assert doc["spark_application_id"] is None
    for check_spec in checks:
        cid = check_spec["id"]
        mine, reference = doc["checks"][cid], spark_doc["checks"][cid]
        assert reference["status"] == "ok", (cid, reference["message"])
        assert mine["status"] == "ok", (cid, mine["message"])
        assert math.isclose(mine["statistic"], reference["statistic"], rel_tol=1e-9), (cid, mine, reference)
        assert mine["comparison"] == reference["comparison"], cid
        assert mine["error_row_count"] == reference["error_row_count"], cid
        assert mine["error_rows_written"] == reference["error_rows_written"], cid
        assert _stored(mine["error_rows_path"]) == _stored(reference["error_rows_path"]), cid
        assert _findings(mine) == _findings(reference), cid
        assert _stored(mine.get("output_path")) == _stored(reference.get("output_path")), cid
    # What the rows hold (conftest.ORDERS rows 1..7), beyond test_row_rules' hand counts:
    # status > PAID: every non-NULL status but 'PAID' (row 6) | minLen 1: row 5 ('') | not before
    # November: row 6 (Oct 31) | not (paid and >= 100): row 4 (120) | not ^[a-d]@: rows 1, 4, 5, 6, 7
    assert [doc["checks"][f"rules#{i}"]["statistic"] for i in range(8, 13)] == [1, 1, 1, 1, 5]
    assert doc["checks"]["rules"]["statistic"] == 7.0  # row 1 now fails `odd_emails`
    assert len(_stored(doc["checks"]["rules"]["output_path"])) == 7
    assert doc["checks"]["contract_kept"]["statistic"] == 0.0 and not doc["checks"]["contract_kept"].get("findings")
    plan = doc["plan"]["batches"]["b"]
    assert plan["aggregate_passes"] == 1 and plan["isolation_passes"] == 0  # one fused query for the row-level set
    assert plan["group_bys"] == 2  # one per uniqueness key
