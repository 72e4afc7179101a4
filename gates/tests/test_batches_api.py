"""Registering batches, releasing them and asking the gate, without a worker (the runs stay queued)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from sqlglot import exp

from dq_engine.sql_safety import parse_filter
from executions.models import Run
from executions.starting import with_partition
from gates.models import Batch, Release
from gates.tasks import expire_releases

from .conftest import NULL_CHECK, SCHEMA, create_check, register

pytestmark = pytest.mark.django_db
ORDERS = f"{SCHEMA}.orders"


def test_a_partition_column_the_table_lacks_is_a_400_naming_partition(cast, api_as, shop):
    response = api_as(cast.author).post(
        "/api/v1/batches/", {"datasource": shop.pk, "table": ORDERS, "partition": {"day": "2026-11-29"}}, format="json"
    )
    assert response.status_code == 400
    assert "no column 'day'" in response.json()["fields"]["partition"][0]
    assert not Batch.objects.exists()


def test_an_unknown_table_is_a_400_naming_table(cast, api_as, shop):
    response = api_as(cast.author).post(
        "/api/v1/batches/", {"datasource": shop.pk, "table": "dq_gates.nope"}, format="json"
    )
    assert response.status_code == 400 and "has no table" in response.json()["fields"]["table"][0]


def test_a_batch_runs_every_bound_check_in_one_run_on_its_partition(cast, api_as, shop):
    client = api_as(cast.author)
    first = create_check(client, "emails", "null_check", src_datasource_id=shop.pk, src_table=ORDERS,
                         failure_strategy="block", src_filter="order_id > 0", **NULL_CHECK)  # fmt: skip
    second = create_check(client, "ids", "null_check", src_datasource_id=shop.pk, src_table=ORDERS,
                          failure_strategy="alert", **{**NULL_CHECK, "src_field": "order_id"})  # fmt: skip
    create_check(client, "other table", "null_check", src_datasource_id=shop.pk, src_table=f"{SCHEMA}.payments",
                 failure_strategy="alert", **NULL_CHECK)  # fmt: skip
    body = register(client, shop, ORDERS, partition={"dt": "2026-11-29"}, biz_date="2026-11-29")
    run = Run.objects.get()
    assert body["attempts"][0]["run"] == run.pk and run.trigger == "api" and str(run.biz_date) == "2026-11-29"
    assert sorted(v["check"] for v in body["attempts"][0]["check_versions"]) == [first, second]
    assert body["attempts"][0]["rule_set_hash"] == run.rule_set_hash
    filters = sorted(d["filter"] for d in run.batches["definitions"].values())
    assert filters == ["`dt` = '2026-11-29'", "`order_id` > 0 AND `dt` = '2026-11-29'"]


def test_the_partition_filter_is_built_as_a_tree_so_a_quote_in_a_value_stays_a_value():
    text = with_partition("order_id > 0 OR order_id IS NULL", {"dt": "2026' OR '1'='1"})
    tree = parse_filter(text)
    assert isinstance(tree, exp.And) and isinstance(tree.this.unnest(), exp.Or)
    assert tree.expression.expression.this == "2026' OR '1'='1"  # one literal, whatever it holds


def test_a_batch_no_check_reads_is_unknown_and_follows_the_fail_mode(cast, api_as, shop):
    body = register(api_as(cast.author), shop, ORDERS, partition={"dt": "2026-11-29"})
    assert body["state"] == "awaiting_approval" and body["policy_state"] == "awaiting_approval"
    assert [(t["from_state"], t["to_state"]) for t in body["transitions"]] == [
        ("pending_validation", "unknown"),
        ("unknown", "awaiting_approval"),
    ]
    assert "No check reads shop.dq_gates.orders" in body["transitions"][0]["reason"]
    assert not Run.objects.exists()


def test_a_release_needs_a_future_expiry_and_a_held_batch(cast, api_as, shop):
    client = api_as(cast.author)
    body = register(client, shop, ORDERS, partition={"dt": "2026-11-29"})
    past = client.post(
        f"/api/v1/batches/{body['id']}/release/", {"reason": "x", "expires_at": "2020-01-01T00:00:00Z"}, format="json"
    )
    assert past.status_code == 400 and "future" in past.json()["fields"]["expires_at"][0]
    assert client.post(f"/api/v1/batches/{body['id']}/release/", {}, format="json").json()["fields"].keys() == {
        "reason",
        "expires_at",
    }
    until = (timezone.now() + timedelta(hours=1)).isoformat()
    ok = client.post(
        f"/api/v1/batches/{body['id']}/release/", {"reason": "approved", "expires_at": until}, format="json"
    )
    assert ok.status_code == 200 and ok.json()["state"] == "published"
    assert ok.json()["releases"][0]["released_by"] == "author"
    again = client.post(
        f"/api/v1/batches/{body['id']}/release/", {"reason": "again", "expires_at": until}, format="json"
    )
    assert again.status_code == 409 and "only a quarantined batch" in again.json()["message"]


@pytest.mark.parametrize("expiry", ["", "   ", None])
def test_a_release_without_an_expiry_is_told_to_give_one_not_shown_datetime_formats(cast, api_as, shop, expiry):
    client = api_as(cast.author)
    body = register(client, shop, ORDERS, partition={"dt": "2026-11-29"})

    answer = client.post(
        f"/api/v1/batches/{body['id']}/release/", {"reason": "month end", "expires_at": expiry}, format="json"
    )

    assert answer.status_code == 400
    message = " ".join(answer.json()["fields"]["expires_at"])
    assert "release always expires" in message and "wrong format" not in message
    assert set(answer.json()["fields"]) == {"expires_at"}


def test_beat_ends_due_releases_and_returns_their_batches_to_the_policy(cast, api_as, shop):
    client = api_as(cast.author)
    body = register(client, shop, ORDERS, partition={"dt": "2026-11-29"})
    until = (timezone.now() + timedelta(hours=1)).isoformat()
    client.post(f"/api/v1/batches/{body['id']}/release/", {"reason": "ok", "expires_at": until}, format="json")
    assert expire_releases() == 0
    Release.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert expire_releases() == 1
    batch = Batch.objects.get(pk=body["id"])
    assert batch.state == "awaiting_approval" and batch.transitions.last().actor_label == "release expiry"


def test_the_gate_answers_no_batch_bad_partitions_and_by_name_or_id(cast, api_as, shop):
    client = api_as(cast.author)
    none = client.get("/api/v1/gate/", {"datasource": "shop", "table": ORDERS, "partition": "dt:2026-11-29"})
    assert none.json() == {
        "state": None,
        "may_consume": False,
        "batch": None,
        "reason": "No batch of shop.dq_gates.orders dt=2026-11-29 is registered.",
    }
    bad = client.get("/api/v1/gate/", {"datasource": "shop", "table": ORDERS, "partition": "dt"})
    assert bad.status_code == 400 and "column:value" in bad.json()["fields"]["partition"][0]
    body = register(client, shop, ORDERS, partition={"dt": "2026-11-29"})
    by_id = client.get("/api/v1/gate/", {"datasource": shop.pk, "table": ORDERS, "partition": "dt:2026-11-29"})
    assert by_id.json()["batch"] == body["id"] and by_id.json()["state"] == "awaiting_approval"


def test_the_cli_exits_2_when_no_batch_is_registered(cast, shop):
    with pytest.raises(CommandError) as raised:
        call_command("dq_gate", "--datasource", "shop", "--table", ORDERS, "--partition", "dt=2026-11-29")
    assert raised.value.returncode == 2 and "no batch" in str(raised.value)


def test_an_outsider_cannot_register_a_batch_on_a_datasource_of_others(cast, api_as, shop):
    shop.allowed_groups.set([cast.analysts])
    response = api_as(cast.outsider).post("/api/v1/batches/", {"datasource": shop.pk, "table": ORDERS}, format="json")
    assert response.status_code == 400 and "datasource" in response.json()["fields"]


def test_the_table_page_says_who_answers_for_the_table_owners_and_admins_not_other_readers(cast, api_as, shop):
    query = {"datasource": shop.pk, "table": ORDERS}
    answers = {
        user.username: api_as(user).get("/api/v1/gated-table/", query)
        for user in (cast.admin, cast.author, cast.outsider)
    }
    assert {name: r.status_code for name, r in answers.items()} == {"admin": 200, "author": 200, "outsider": 200}
    assert {name: r.json()["may_change"] for name, r in answers.items()} == {
        "admin": True,  # an administrator
        "author": True,  # in the owner group, the analysts
        "outsider": False,  # may read the open datasource, answers for nothing
    }
