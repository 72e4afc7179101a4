"""A run through the API on engine auto, PostgreSQL, with an accuracy check beside ordinary checks,
executed by a real Celery worker: every check gets its own number and verdict (the accuracy check
reads a second table of the same database, which must not take its siblings down)."""

from __future__ import annotations

import pytest

from .conftest import ROWS, SCHEMA, VERDICT
from .conftest import create_check as _check
from .conftest import start_and_wait as _run

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def test_an_auto_run_on_postgresql_with_an_accuracy_check_gives_every_check_its_verdict(
    cast, api_as, warehouse, celery_worker_process
):
    client = api_as(cast.author)
    src = {"src_datasource_id": warehouse.pk, "src_table": f"{SCHEMA}.orders"}
    ids = {
        "accuracy": _check(
            client,
            "orders have a low id in big",
            "multi_table_accuracy",
            **src,
            target_datasource_id=warehouse.pk,
            target_table=f"{SCHEMA}.big",
            target_filter="id <= 5",
            mapping_columns=[{"src_field": "order_id", "operator": "=", "target_field": "id"}],
            **VERDICT,
        ),
        "nulls": _check(client, "emails present", "null_check", **src, src_field="customer_email", **VERDICT),
        "count": _check(
            client, "ten orders", "table_count_check", **src, **{**VERDICT, "operator": "eq", "comparison_value": 10}
        ),
        "unique": _check(client, "ids unique", "uniqueness_check", **src, src_field="order_id", **VERDICT),
    }

    run = _run(client, list(ids.values()), engine="auto")

    results = {r["check"]: r for r in client.get(f"/api/v1/results/?run={run['id']}").json()["results"]}
    got = {name: (results[i]["status"], results[i]["statistics_value"]) for name, i in ids.items()}
    order_ids = [row[0] for row in ROWS]
    # Hand-counted from the conftest's ROWS: order ids 6, 6, 6 and 7 have no id <= 5 in `big`; one
    # NULL and one '' email; 10 rows; ids 5 and 6 occur more than once.
    assert sum(1 for i in order_ids if i > 5) == 4 and len(ROWS) == 10
    assert got == {
        "accuracy": ("fail", 4.0),
        "nulls": ("fail", 2.0),
        "count": ("pass", 10.0),
        "unique": ("fail", 2.0),
    }, {name: results[i]["message"] for name, i in ids.items()}
    assert run["status"] != "error", run
