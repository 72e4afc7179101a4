"""Configuring integrations through the API: bad input is a 400 naming the field, administrators
write, the test button reaches the receiver and says what happened."""

from __future__ import annotations

import pytest

from integrations.models import Delivery, Integration

pytestmark = pytest.mark.django_db

GOOD = {"name": "dagster prod", "kind": "dagster", "url": "https://dagster.example.com/prod"}


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"url": "ftp://dagster.example.com/"}, "url", "http://"),
        ({"url": "not a url"}, "url", "no spaces"),
        ({"url": "http://169.254.169.254/latest"}, "url", "metadata address"),
        ({"url": "http://10.0.0.5:3000/"}, "url", "private address"),
        ({"kind": "airflow"}, "kind", "valid choice"),
        ({"name": "two\nlines"}, "name", "control characters"),
        ({"asset_keys": {"1": "a//b"}}, "asset_keys", "empty parts"),
        ({"asset_keys": {"x": "a/b"}}, "asset_keys", "not a check id"),
        ({"asset_keys": {"987654": "a/b"}}, "asset_keys", "does not exist"),
        ({"kind": "openlineage", "asset_keys": {"1": "a"}}, "asset_keys", "Dagster"),
        ({"datasources": [987654]}, "datasources", "does not exist"),
    ],
)
def test_a_bad_integration_is_a_400_naming_the_field(api_as, cast, change, field, words):
    response = api_as(cast.admin).post("/api/v1/integrations/", {**GOOD, **change}, format="json")
    assert response.status_code == 400, response.json()
    messages = " ".join(str(m) for m in response.json()["fields"][field])
    assert words in messages, messages
    assert not Integration.objects.exists()


def test_a_member_reads_but_may_not_create_change_test_or_delete(api_as, cast, make_datasource):
    lake = make_datasource(name="open lake", type="postgresql", host="db.example.com", database="x", username="u")
    created = api_as(cast.admin).post("/api/v1/integrations/", {**GOOD, "datasources": [lake.pk]}, format="json")
    assert created.status_code == 201 and created.json()["permissions"] == ["change", "delete", "test"]
    member = api_as(cast.author)
    pk = created.json()["id"]
    assert member.get(f"/api/v1/integrations/{pk}/").json()["permissions"] == []
    assert member.post("/api/v1/integrations/", {**GOOD, "name": "mine"}, format="json").status_code == 403
    assert member.patch(f"/api/v1/integrations/{pk}/", {"enabled": False}, format="json").status_code == 403
    assert member.post(f"/api/v1/integrations/{pk}/test/").status_code == 403
    assert member.delete(f"/api/v1/integrations/{pk}/").status_code == 403
    assert Integration.objects.get(pk=pk).enabled is True and not Delivery.objects.exists()


def test_the_secret_is_kept_when_omitted_and_removed_when_empty(api_as, cast):
    admin = api_as(cast.admin)
    pk = admin.post("/api/v1/integrations/", {**GOOD, "secret": "tok-123456"}, format="json").json()["id"]
    kept = admin.patch(f"/api/v1/integrations/{pk}/", {"name": "renamed"}, format="json").json()
    assert kept["has_secret"] is True and Integration.objects.get(pk=pk).secret == "tok-123456"
    removed = admin.patch(f"/api/v1/integrations/{pk}/", {"secret": ""}, format="json").json()
    assert removed["has_secret"] is False and Integration.objects.get(pk=pk).secret == ""


def test_the_test_button_sends_a_report_to_the_receiver_and_records_it(api_as, cast, receiver):
    admin = api_as(cast.admin)
    for kind in ("dagster", "openlineage"):
        pk = admin.post(
            "/api/v1/integrations/", {"name": kind, "kind": kind, "url": receiver.url}, format="json"
        ).json()["id"]
        answer = admin.post(f"/api/v1/integrations/{pk}/test/").json()
        assert answer == {"ok": True, "message": f"Test report sent to {kind}."}
    dagster, lineage = receiver.requests
    assert dagster["path"] == "/dagster/prod/report_asset_check/dq_platform/test" and dagster["json"]["passed"] is True
    assert lineage["path"] == "/dagster/prod" and lineage["json"]["eventType"] == "COMPLETE"
    tests = Delivery.objects.filter(event="test")
    assert sorted(tests.values_list("kind", "status")) == [("dagster", "sent"), ("openlineage", "sent")]
    listed = admin.get("/api/v1/integration-deliveries/?status=sent").json()["results"]
    assert len(listed) == 2 and api_as(cast.author).get("/api/v1/integration-deliveries/").json()["results"] == []


def test_a_test_to_a_server_that_is_down_says_so_and_is_not_retried(api_as, cast, closed_port, settings):
    settings.DQ_ALERT_ALLOWED_HOSTS = ["127.0.0.1"]
    admin = api_as(cast.admin)
    url = f"http://127.0.0.1:{closed_port}/lineage"
    pk = admin.post("/api/v1/integrations/", {"name": "down", "kind": "openlineage", "url": url}, format="json").json()[
        "id"
    ]
    answer = admin.post(f"/api/v1/integrations/{pk}/test/").json()
    assert answer["ok"] is False and answer["message"].startswith("The integration could not be reached.")
    (delivery,) = Delivery.objects.all()
    assert (delivery.status, delivery.attempt) == ("failed", 1)


def test_bad_delivery_filters_are_a_400(api_as, cast):
    admin = api_as(cast.admin)
    assert admin.get("/api/v1/integration-deliveries/?run=x").json()["fields"]["run"]
    assert admin.get("/api/v1/integration-deliveries/?status=lost").json()["fields"]["status"]


def test_rotate_secrets_re_encrypts_integration_tokens_under_the_new_key(api_as, cast, settings):
    from cryptography.fernet import Fernet
    from django.core.management import call_command

    pk = api_as(cast.admin).post("/api/v1/integrations/", {**GOOD, "secret": "tok-7781x"}, format="json").json()["id"]
    new_key = Fernet.generate_key().decode()
    settings.DQ_FERNET_KEYS = [new_key, *settings.DQ_FERNET_KEYS]
    call_command("rotate_secrets")
    settings.DQ_FERNET_KEYS = [new_key]  # the old key dropped: the token must still read
    assert Integration.objects.get(pk=pk).secret == "tok-7781x"
