"""A row_level_check through the API with a real Celery worker on Redis and Spark, against real
PostgreSQL: per-check failed rows in the result's details, a critical failure blocking whatever
the threshold, error rows with `_dq` and `_dq_failed_checks` filtered by check name, and the
preview answered by the warm worker."""

from __future__ import annotations

import pyarrow.dataset as pa_ds
import pytest

from .conftest import SCHEMA, VERDICT, preview_and_wait
from .conftest import create_check as _check
from .conftest import start_and_wait as _run

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

# conftest.ROWS (order_id, customer_email, status, amount), hand-checked:
# email NULL: order 2 | email set but no "@": orders 3 (""), 7 ("not-an-email") | amount < 0: order 3
# status not in (paid, shipped, void): order 4 (bogus); the NULL status of an order 5 passes
CHECKS_YAML = """checks:
  - customer_email ~= @
  - amount >= 0
  - status in ('paid', 'shipped', 'void')
  - name: email_present
    fn: notNull
    fields: [customer_email]
    critical: true
"""
EXPECTED = [
    {"name": "check-customer_email-re", "failed_rows": 2, "critical": False},
    {"name": "check-amount-ge", "failed_rows": 1, "critical": False},
    {"name": "check-status-in", "failed_rows": 1, "critical": False},
    {"name": "email_present", "failed_rows": 1, "critical": True},
]


def test_a_row_level_check_counts_each_rule_marks_its_rows_and_a_critical_failure_blocks(
    cast, api_as, warehouse, celery_worker_process, file_roots
):
    client = api_as(cast.author)
    lenient = {**VERDICT, "threshold": 100}  # the invalid rows alone would pass: 4 - 0 <= 100
    check = _check(
        client,
        "orders rows",
        "row_level_check",
        src_datasource_id=warehouse.pk,
        src_table=f"{SCHEMA}.orders",
        checks_yaml=CHECKS_YAML,
        output_path=str(file_roots / "cleansed"),
        **lenient,
    )
    run = _run(client, [check])

    assert run["status"] == "failed" and run["blocking"] is True
    (result,) = run["results"]
    assert result["statistics_value"] == 4.0  # order ids 2, 3, 4, 7
    assert result["details"]["checks"] == EXPECTED
    assert result["status"] == "fail" and result["blocks"] is True and result["failure_strategy"] == "block"
    assert "Critical checks failed: email_present" in result["message"]

    # The worker writes at most DQ_ERROR_ROWS_LIMIT=2 rows; those it wrote carry their marks.
    page = client.get(f"/api/v1/results/{result['id']}/error-rows/?page_size=50").json()
    assert page["columns"][-3:] == ["_dq", "_dq_failed_checks", "_dq_check"]
    marks = {
        2: (1, "email_present"),
        3: (2, "check-customer_email-re,check-amount-ge"),
        4: (1, "check-status-in"),
        7: (1, "check-customer_email-re"),
    }
    by_id = {row[0]: (row[-3], row[-2]) for row in page["rows"]}
    assert by_id and all(marks[order] == mark for order, mark in by_id.items())
    # The cleansed layer: every row of the batch with its marks, in a folder of this run's own.
    folder = file_roots / "cleansed" / f"run-{run['id']}-attempt-1"
    assert result["details"]["output_path"] == str(folder)
    cleansed = pa_ds.dataset(str(folder), format="parquet").to_table().to_pylist()
    assert len(cleansed) == 10
    assert {(row["order_id"], row["_dq"], row["_dq_failed_checks"]) for row in cleansed if row["_dq"]} == {
        (order, *mark) for order, mark in marks.items()
    }
    only_re = client.get(f"/api/v1/results/{result['id']}/error-rows/?check_name=check-customer_email-re").json()
    assert {row[0] for row in only_re["rows"]} == {o for o in by_id if "customer_email-re" in marks[o][1]}


def test_the_preview_answers_each_check_s_failures_on_a_sample_from_the_warm_worker(
    cast, api_as, warehouse, celery_worker_process, settings
):
    client = api_as(cast.author)
    body = {
        "checks_yaml": CHECKS_YAML,
        "src_datasource_id": warehouse.pk,
        "src_table": f"{SCHEMA}.orders",
        "src_filter": "order_id <= 4",
    }
    settings.DQ_PREVIEW_TIMEOUT = 120  # the first preview may start the worker's SparkSession
    posted, first = preview_and_wait(client, body, timeout=150)
    assert (posted, first["status"]) == (202, "done"), first
    warm = preview_and_wait(client, {**body, "src_filter": "order_id >= 4"}, timeout=20)[1]
    limited = preview_and_wait(client, {**body, "src_filter": None, "limit": 3}, timeout=20)[1]

    assert first["rows"] == 4 and first["invalid_rows"] == 3  # rows 2, 3, 4
    assert [c["failed_rows"] for c in first["checks"]] == [1, 1, 1, 1]
    assert warm["status"] == "done", warm
    assert (warm["rows"], warm["invalid_rows"]) == (7, 2)  # orders 4 (bogus), 7 (not-an-email)
    assert [c["failed_rows"] for c in warm["checks"]] == [1, 0, 1, 0]
    assert limited["rows"] == 3  # the sample's size


def test_a_preview_of_local_files_runs_on_duckdb_without_starting_spark(cast, api_as, lake, celery_worker_process):
    client = api_as(cast.author)
    # lake orders (order_id, status, amount): (1, paid, 1.5), (2, NULL, 2.0), (3, void, NULL)
    body = {
        "checks_yaml": "checks:\n  - status in ('paid')\n  - amount >= 2\n",
        "src_datasource_id": lake.pk,
        "src_table": "orders",
    }

    posted, answer = preview_and_wait(client, body)

    assert (posted, answer["status"]) == (202, "done"), answer
    # status in: order 3 (void; NULL passes) | amount >= 2: order 1 (1.5; NULL passes)
    assert (answer["engine"], answer["rows"], answer["invalid_rows"]) == ("duckdb", 3, 2)
    assert [c["failed_rows"] for c in answer["checks"]] == [1, 1]
