"""Who a batch runs for, what it shows to whom, and who may release and re-validate it.

The world: `shop` is open to everyone and owned by the analysts (the author); `vault` is limited
to the analysts. The author's check "orders match vault" compares shop's orders with a sum read
from vault's payments. Runs end here without a worker: each finished by hand with the values a
check would have measured, then read back through the API as a user would.
"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from conftest import PG_PROBE_DATASOURCE
from executions.models import Result, Run
from gates.models import Batch, Release, TablePolicy

from .conftest import NULL_CHECK, SCHEMA, create_check, register

pytestmark = pytest.mark.django_db
ORDERS = f"{SCHEMA}.orders"
SECRET_CHECK = "orders match vault"
SECRET_VALUE = 253202


@pytest.fixture
def vault(make_datasource, cast, shop):
    return make_datasource(name="vault", allowed_groups=[cast.analysts], **PG_PROBE_DATASOURCE)


@pytest.fixture
def checks(cast, api_as, shop, vault) -> dict[str, int]:
    client = api_as(cast.author)
    secret = create_check(
        client,
        SECRET_CHECK,
        "multi_table_value_comparison",
        src_datasource_id=shop.pk,
        src_table=ORDERS,
        statistics_name="orders",
        statistics_execute_sql="SELECT count(*) AS n FROM ${src_table}",
        target_datasource_id=vault.pk,
        target_table=f"{SCHEMA}.payments",
        comparison_name="vault_sum",
        comparison_execute_sql="SELECT sum(order_id) AS n FROM ${target_table}",
        check_type="statistics_minus_comparison",
        operator="eq",
        threshold=0,
        failure_strategy="block",
    )
    emails = create_check(client, "emails present", "null_check", src_datasource_id=shop.pk, src_table=ORDERS,
                          failure_strategy="alert", **NULL_CHECK)  # fmt: skip
    return {"secret": secret, "emails": emails}


def finish(run: Run, measured: dict[int, tuple[str, float, float]]) -> None:
    """End a run as its engine would: one result per check version, {check id: (status, value, expected)}."""
    assert Run.claim(run.pk, run.attempt)
    run.refresh_from_db()
    for version in run.check_versions.all():
        status, value, expected = measured[version.parent_check_id]
        Result.objects.create(
            run=run,
            check_version=version,
            rule_check_id=version.parent_check_id,
            batch=run.batches["assignments"][str(version.pk)]["batch"],
            status=status,
            statistic_name="n",
            statistics_value=value,
            comparison_value=expected,
            check_type="statistics_minus_comparison",
            operator=version.params["operator"],
            threshold=0,
            failure_strategy=version.params["failure_strategy"],
            verdict=f"{value} - {expected} → {status}",
            identity=version.content_hash,
            data_time=run.data_time,
        )
    run.finish(Run.Status.FAILED if any(m[0] == "fail" for m in measured.values()) else Run.Status.PASSED, False)


def page(client, batch_id: int) -> dict:
    response = client.get(f"/api/v1/batches/{batch_id}/")
    assert response.status_code == 200, response.json()
    return response.json()


def says_nothing_of_the_secret_check(body: dict) -> None:
    text = json.dumps(body)
    for secret in (SECRET_CHECK, "vault", "payments", str(SECRET_VALUE), "vault_sum"):
        assert secret not in text, secret


def gate(client) -> dict:
    return client.get("/api/v1/gate/", {"datasource": "shop", "table": ORDERS, "partition": "dt:2026-11-29"}).json()


# --- a batch runs only what its registrant may read -------------------------------------------------
def test_an_outsiders_batch_does_not_run_a_check_reading_data_they_may_not_read(cast, api_as, shop, checks):
    outsider, author = api_as(cast.outsider), api_as(cast.author)
    body = register(outsider, shop, ORDERS, partition={"dt": "2026-11-29"})
    run = Run.objects.get()
    assert [v.parent_check_id for v in run.check_versions.all()] == [checks["emails"]]
    assert {d["datasource"] for d in run.batches["definitions"].values()} == {"shop"}  # vault never read

    finish(run, {checks["emails"]: ("pass", 0, 0)})
    shown = page(outsider, body["id"])
    # The check left out counts as undecided: the table's fail mode (closed by default) holds the batch.
    assert (shown["state"], shown["may_consume"]) == ("awaiting_approval", False)
    assert shown["attempts"][0]["skipped_checks"] == [
        {"check": None, "name": "a check you cannot see", "failure_strategy": "block"}
    ]
    assert "not run: its requester may not read what it compares with" in shown["transitions"][-2]["reason"]
    says_nothing_of_the_secret_check(shown)
    assert gate(outsider)["may_consume"] is False
    # Its owner sees which check it was.
    assert page(author, body["id"])["attempts"][0]["skipped_checks"][0] == {
        "check": checks["secret"],
        "name": SECRET_CHECK,
        "failure_strategy": "block",
    }


def test_an_outsiders_batch_with_only_checks_they_may_not_read_runs_nothing_and_follows_the_fail_mode(
    cast, api_as, shop, vault, checks
):
    client = api_as(cast.author)
    client.delete(f"/api/v1/checks/{checks['emails']}/")
    TablePolicy.objects.create(datasource=shop, table=ORDERS, fail_mode="fail_open")
    outsider = api_as(cast.outsider)
    body = register(outsider, shop, ORDERS, partition={"dt": "2026-11-29"})
    assert not Run.objects.exists()
    assert body["state"] == "published" and body["attempts"] == []  # fail open, as its owners chose
    assert "None of the 1 check(s) bound to shop.dq_gates.orders was run" in body["transitions"][0]["reason"]
    says_nothing_of_the_secret_check(body)


def test_an_owners_re_validation_runs_every_check_and_the_outsider_sees_only_that_a_hidden_check_failed(
    cast, api_as, shop, checks
):
    outsider, author = api_as(cast.outsider), api_as(cast.author)
    body = register(outsider, shop, ORDERS, partition={"dt": "2026-11-29"})
    finish(Run.objects.get(), {checks["emails"]: ("pass", 0, 0)})
    page(outsider, body["id"])  # concluded: awaiting approval
    assert author.post(f"/api/v1/batches/{body['id']}/revalidate/").status_code == 202
    second = Run.objects.latest("pk")
    assert sorted(v.parent_check_id for v in second.check_versions.all()) == sorted(checks.values())
    finish(second, {checks["emails"]: ("pass", 0, 0), checks["secret"]: ("fail", 3, SECRET_VALUE)})

    shown = page(outsider, body["id"])
    assert (shown["state"], shown["may_consume"]) == ("quarantined", False)
    latest = shown["attempts"][1]
    assert latest["hidden_checks"] == 1 and [v["check"] for v in latest["check_versions"]] == [checks["emails"]]
    hidden = [r for r in latest["results"] if r["hidden"]]
    assert len(hidden) == 1 and hidden[0]["verdict"] == "a check you cannot see failed"
    assert (hidden[0]["status"], hidden[0]["comparison_value"], hidden[0]["check"]) == ("fail", None, None)
    assert [f["datasource"] for f in latest["filters"]] == ["shop"]
    assert shown["reason"] == "Quarantined: blocking check 'a check that also reads another datasource' failed."
    says_nothing_of_the_secret_check(shown)
    assert gate(outsider) == {
        "state": "quarantined",
        "may_consume": False,
        "batch": body["id"],
        "reason": shown["reason"],
    }

    owners = page(author, body["id"])["attempts"][1]
    secret = next(r for r in owners["results"] if r["check"] == checks["secret"])
    assert (secret["hidden"], secret["check_name"], secret["comparison_value"]) == (False, SECRET_CHECK, SECRET_VALUE)
    assert sorted(f["datasource"] for f in owners["filters"]) == ["shop", "vault"]


# --- releases and re-validations: the datasource's owners and admins ---------------------------------
@pytest.fixture
def held(cast, api_as, shop) -> int:
    """A batch of the open shop, registered by the outsider, awaiting approval (no check reads it)."""
    body = register(api_as(cast.outsider), shop, ORDERS, partition={"dt": "2026-11-29"})
    assert body["state"] == "awaiting_approval"
    return body["id"]


def release(client, batch_id: int, days: float = 1, **extra):
    until = (timezone.now() + timedelta(days=days)).isoformat()
    return client.post(
        f"/api/v1/batches/{batch_id}/release/", {"reason": "month end", "expires_at": until, **extra}, format="json"
    )


def test_only_the_datasources_owners_and_admins_release_a_batch(cast, api_as, shop, held, django_user_model):
    assert page(api_as(cast.outsider), held)["may_change"] is False  # the page offers no release
    assert page(api_as(cast.author), held)["may_change"] is True
    refused = release(api_as(cast.outsider), held, days=365 * 7973)  # the outsider registered it
    assert refused.status_code == 403 and "owners of datasource 'shop'" in refused.json()["message"]
    shop.owner_groups.clear()
    assert release(api_as(cast.author), held).status_code == 403  # may use shop, owns it no more
    steward = django_user_model.objects.create_user("steward", password="steward-pass-123")
    assert release(api_as(steward), held).status_code == 403
    granted = api_as(cast.admin).patch(f"/api/v1/datasources/{shop.pk}/", {"owners": ["steward"]}, format="json")
    assert granted.status_code == 200 and granted.json()["owners"] == ["steward"]
    assert (
        api_as(cast.author).patch(f"/api/v1/datasources/{shop.pk}/", {"owners": ["author"]}, format="json").status_code
        == 403
    )
    ok = release(api_as(steward), held)
    assert ok.status_code == 200 and ok.json()["state"] == "published"
    assert ok.json()["releases"][0]["released_by"] == "steward"
    assert Batch.objects.get(pk=held).state == "published"


def test_a_member_of_a_restricted_datasource_who_does_not_own_it_cannot_release_its_batches(
    cast, api_as, vault, gate_tables
):
    body = register(api_as(cast.admin), vault, ORDERS, partition={"dt": "2026-11-29"})
    member = api_as(cast.author)  # in the analysts: may read vault, does not own it
    assert page(member, body["id"])["state"] == "awaiting_approval"
    assert release(member, body["id"], days=1).status_code == 403
    assert member.post(f"/api/v1/batches/{body['id']}/revalidate/").status_code == 403
    stewards = Group.objects.create(name="vault stewards")
    cast.author.groups.add(stewards)
    vault.owner_groups.set([stewards])
    assert release(member, body["id"], days=1).status_code == 200


def test_a_release_lasts_at_most_the_configured_days_and_takes_no_scope(cast, api_as, held, settings):
    owner = api_as(cast.author)
    too_long = release(owner, held, days=31)
    assert too_long.status_code == 400
    assert too_long.json()["fields"]["expires_at"] == [
        "A release lasts at most 30 days (DQ_RELEASE_MAX_DAYS); release again when it expires."
    ]
    settings.DQ_RELEASE_MAX_DAYS = 2
    assert "at most 2 days" in release(owner, held, days=3).json()["fields"]["expires_at"][0]
    scoped = release(owner, held, days=1, scope="finance only")
    assert scoped.status_code == 400 and "takes no scope" in scoped.json()["fields"]["scope"][0]
    assert not Release.objects.exists()
    assert release(owner, held, days=1.9).status_code == 200


def test_re_validation_is_for_owners_and_records_who_ended_the_release(cast, api_as, shop, held, django_user_model):
    author = api_as(cast.author)
    assert release(author, held, days=1).status_code == 200
    refused = api_as(cast.outsider).post(f"/api/v1/batches/{held}/revalidate/")
    assert refused.status_code == 403
    assert Release.objects.get().ended_at is None and Batch.objects.get(pk=held).state == "published"

    colleague = django_user_model.objects.create_user("colleague", password="colleague-pass-123")
    colleague.groups.add(cast.analysts)  # another owner
    ended = api_as(colleague).post(f"/api/v1/batches/{held}/revalidate/")
    assert ended.status_code == 202, ended.json()
    shown = ended.json()["releases"][0]
    assert (shown["ended_by"], shown["end_reason"]) == ("colleague", "ended by colleague's re-validation")
    moved = [t for t in ended.json()["transitions"] if t["to_state"] == "pending_validation"][-1]
    assert moved["by"] == "colleague"
    assert moved["reason"] == "Re-validation requested by colleague. It ended the release by author."
