"""Batches on a real PostgreSQL table, validated by a real Celery worker: the state machine, the
gate and its CLI, a release that expires, re-validation, alert-only failures and fail modes."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from gates.models import Batch, FailMode, Release, TablePolicy

from .conftest import NULL_CHECK, SCHEMA, create_check, register, wait_for_outcome

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
ROOT = Path(__file__).resolve().parents[2]
ORDERS = f"{SCHEMA}.orders"


def dq_gate(worker, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "dq_gate", *args],
        cwd=ROOT,
        env=worker.env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def gate(client, table=ORDERS, partition="dt:2026-11-29", datasource="shop") -> dict:
    response = client.get("/api/v1/gate/", {"datasource": datasource, "table": table, "partition": partition})
    assert response.status_code == 200, response.json()
    return response.json()


def test_a_failing_block_check_quarantines_the_batch_until_a_release_that_expires(
    cast, api_as, shop, gate_tables, celery_worker_process
):
    client = api_as(cast.author)
    create_check(client, "emails present", "null_check", src_datasource_id=shop.pk, src_table=ORDERS,
                 failure_strategy="block", **NULL_CHECK)  # fmt: skip
    body = register(
        client,
        shop,
        ORDERS,
        partition={"dt": "2026-11-29"},
        biz_date="2026-11-29",
        data_version="commit-7f3a",
        producer={"instance_id": "dolphin-88", "attempt": 2},
    )
    assert body["state"] == "pending_validation"
    batch = wait_for_outcome(client, body["id"])
    assert batch["state"] == "quarantined" and not batch["may_consume"]
    assert [(t["from_state"], t["to_state"]) for t in batch["transitions"]] == [
        ("pending_validation", "validating"),
        ("validating", "failed"),
        ("failed", "quarantined"),
    ]
    first = batch["attempts"][0]
    assert first["trigger"] == "api" and first["filters"][0]["partition"] == {"dt": "2026-11-29"}
    # Exactly the partition was read: its 3 rows, one of them without an email.
    assert [(r["status"], r["statistics_value"], r["rows_scanned"]) for r in first["results"]] == [("fail", 1, 3)]
    assert gate(client)["may_consume"] is False
    held = dq_gate(celery_worker_process, "--datasource", "shop", "--table", ORDERS, "--partition", "dt=2026-11-29")
    assert held.returncode == 1, held.stderr
    assert "quarantined" in held.stderr and "emails present" in held.stderr

    response = client.post(
        f"/api/v1/batches/{body['id']}/release/",
        {
            "reason": "finance needs it for the month end",
            "expires_at": (timezone.now() + timedelta(minutes=30)).isoformat(),
        },
        format="json",
    )
    assert response.status_code == 200, response.json()
    released = response.json()
    assert released["state"] == "published"
    assert released["releases"][0]["released_by"] == "author"
    assert released["releases"][0]["reason"] == "finance needs it for the month end"
    assert gate(client) == {
        "state": "published",
        "may_consume": True,
        "batch": body["id"],
        "reason": released["reason"],
    }
    consume = dq_gate(celery_worker_process, "--datasource", "shop", "--table", ORDERS, "--partition", "dt=2026-11-29")
    assert consume.returncode == 0, consume.stderr
    assert consume.stdout.startswith("may consume")

    # Half an hour later (the expiry moved back rather than waited for), before any beat tick:
    # the gate's read catches up.
    Release.objects.filter(batch_id=body["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    expired = gate(client)
    assert expired["state"] == "quarantined" and expired["may_consume"] is False
    transitions = client.get(f"/api/v1/batches/{body['id']}/").json()["transitions"]
    assert (transitions[-1]["to_state"], transitions[-1]["by"]) == ("quarantined", "release expiry")

    # The release was for that batch only: the next one follows the policy again.
    following = register(client, shop, ORDERS, partition={"dt": "2026-11-30"}, biz_date="2026-11-30")
    assert wait_for_outcome(client, following["id"])["state"] == "quarantined"

    # The producer fixes the data; a re-validation is a second attempt, the first one kept.
    gate_tables.execute(f"UPDATE {ORDERS} SET customer_email = 'c@x.io' WHERE dt = '2026-11-29'")
    response = client.post(f"/api/v1/batches/{body['id']}/revalidate/")
    assert response.status_code == 202, response.json()
    fixed = wait_for_outcome(client, body["id"])
    assert fixed["state"] == "published" and fixed["attempt"] == 2
    assert [a["results"][0]["status"] for a in fixed["attempts"]] == ["fail", "pass"]
    assert fixed["attempts"][0]["run"] != fixed["attempts"][1]["run"]
    assert fixed["revalidated_with_changed_rules"] is False and fixed["releases"][0]["end_reason"] == "expired"


def test_alert_failures_publish_with_warnings_and_changed_rules_are_said(cast, api_as, shop, celery_worker_process):
    client = api_as(cast.author)
    payments = f"{SCHEMA}.payments"
    check = create_check(client, "payment emails", "null_check", src_datasource_id=shop.pk, src_table=payments,
                         failure_strategy="alert", **NULL_CHECK)  # fmt: skip
    body = register(client, shop, payments, partition={"dt": "2026-11-29"}, schedule_type="backfill")
    batch = wait_for_outcome(client, body["id"])
    assert batch["state"] == "published" and batch["may_consume"]
    assert batch["warnings"] == ["Check 'payment emails' failed (alert only)."]
    assert batch["attempts"][0]["trigger"] == "backfill"

    edited = client.patch(
        f"/api/v1/checks/{check}/", {"params": {**_params(client, check), "threshold": 1}}, format="json"
    )
    assert edited.status_code == 200, edited.json()
    assert client.post(f"/api/v1/batches/{body['id']}/revalidate/").status_code == 202
    again = wait_for_outcome(client, body["id"])
    assert again["attempt"] == 2 and again["revalidated_with_changed_rules"] is True
    assert again["notice"] == "re-validated with changed rules"
    assert again["attempts"][0]["rule_set_hash"] != again["attempts"][1]["rule_set_hash"]


def _params(client, check_id):
    return client.get(f"/api/v1/checks/{check_id}/").json()["params"]


def test_an_unreachable_datasource_follows_the_tables_fail_mode(cast, api_as, shop, closed_port, celery_worker_process):
    client = api_as(cast.admin)
    create_check(client, "emails present", "null_check", src_datasource_id=shop.pk, src_table=ORDERS,
                 failure_strategy="block", **NULL_CHECK)  # fmt: skip
    shop.port = closed_port
    shop.save()
    closed = wait_for_outcome(client, register(client, shop, ORDERS, partition={"dt": "2026-11-29"})["id"])
    assert closed["state"] == "awaiting_approval" and not closed["may_consume"]
    assert "fail closed, the default policy" in closed["reason"]
    assert "could not be reached" in closed["notes"][0]
    assert closed["attempts"][0]["results"][0]["status"] == "error"
    held = dq_gate(celery_worker_process, "--datasource", "shop", "--table", ORDERS, "--partition", "dt=2026-11-29")
    assert held.returncode == 1 and "awaiting_approval" in held.stderr

    TablePolicy.objects.create(datasource=shop, table="", fail_mode=FailMode.FAIL_CLOSED)
    TablePolicy.objects.create(datasource=shop, table=ORDERS, fail_mode=FailMode.FAIL_OPEN)
    opened = wait_for_outcome(client, register(client, shop, ORDERS, partition={"dt": "2026-11-30"})["id"])
    assert opened["state"] == "published" and opened["may_consume"]
    assert "fail open, the policy of table dq_gates.orders" in opened["warnings"][0]
    assert Batch.objects.get(pk=opened["id"]).transitions.count() == 3


def test_a_forged_partition_value_cannot_publish_the_quarantined_partition_it_spells(
    cast, api_as, shop, gate_tables, celery_worker_process
):
    # The rows of country=CN,status=CREATED miss an email (the block check fails on them); no row
    # has country 'CN,status=CREATED', so a batch of that one-column partition has nothing to fail.
    shipments = f"{SCHEMA}.shipments"
    gate_tables.execute(f"CREATE TABLE {shipments} (country text, status text, customer_email text)")
    gate_tables.execute(f"INSERT INTO {shipments} VALUES ('CN', 'CREATED', NULL), ('CN', 'SHIPPED', 'a@x.io')")
    gate_tables.execute(f"GRANT SELECT ON {shipments} TO dq_password_probe")
    author, outsider = api_as(cast.author), api_as(cast.outsider)
    create_check(author, "emails present", "null_check", src_datasource_id=shop.pk, src_table=shipments,
                 failure_strategy="block", **NULL_CHECK)  # fmt: skip
    real = register(author, shop, shipments, partition={"country": "CN", "status": "CREATED"})
    assert wait_for_outcome(author, real["id"])["state"] == "quarantined"

    forged = register(outsider, shop, shipments, partition={"country": "CN,status=CREATED"})
    forged = wait_for_outcome(outsider, forged["id"])
    # It read no row: passing on nothing is no evidence, so the table's fail mode holds it.
    assert (forged["state"], forged["may_consume"]) == ("awaiting_approval", False)
    assert [(r["status"], r["rows_scanned"]) for r in forged["attempts"][0]["results"]] == [("unknown", 0)]

    asked = gate(outsider, shipments, ["country:CN", "status:CREATED"])
    assert (asked["batch"], asked["state"], asked["may_consume"]) == (real["id"], "quarantined", False)
    cli = dq_gate(celery_worker_process, "--datasource", "shop", "--table", shipments,
                  "--partition", "country=CN", "--partition", "status=CREATED")  # fmt: skip
    assert cli.returncode == 1 and f"batch {real['id']}" in cli.stderr
