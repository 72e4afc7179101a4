"""A batch whose partition has no rows, validated by a real worker on a real PostgreSQL table: a
check that would pass on it is `unknown` (no rows are no evidence), so the batch follows its fail
mode instead of being published as if the data were fine."""

from __future__ import annotations

import pytest

from executions.models import Result

from .conftest import NULL_CHECK, SCHEMA, create_check, register, wait_for_outcome

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
ORDERS = f"{SCHEMA}.orders"


def test_an_empty_partition_is_held_not_published_while_a_partition_with_rows_passes(
    cast, api_as, shop, celery_worker_process
):
    client = api_as(cast.author)
    create_check(client, "emails present", "null_check", src_datasource_id=shop.pk, src_table=ORDERS,
                 failure_strategy="block", **NULL_CHECK)  # fmt: skip

    empty = wait_for_outcome(client, register(client, shop, ORDERS, partition={"dt": "1999-01-01"})["id"])
    (result,) = empty["attempts"][0]["results"]
    # The table holds no row with dt = 1999-01-01: no NULL emails among no rows.
    assert result["rows_scanned"] == 0 and result["statistics_value"] == 0
    assert result["status"] == "unknown"
    assert Result.objects.get(pk=result["id"]).partition_key == '{"dt":"1999-01-01"}'
    assert "has no rows, and passing on no rows is no evidence → unknown" in result["verdict"]
    assert empty["state"] == "awaiting_approval" and not empty["may_consume"]

    # 2026-11-28 holds one row, its email present (conftest.ORDERS).
    full = wait_for_outcome(
        client, register(client, shop, ORDERS, partition={"dt": "2026-11-28"}, biz_date="2026-11-28")["id"]
    )
    (result,) = full["attempts"][0]["results"]
    assert result["rows_scanned"] == 1 and result["status"] == "pass"
    assert Result.objects.get(pk=result["id"]).partition_key == '{"dt":"${biz_date}"}'
    assert full["state"] == "published"
