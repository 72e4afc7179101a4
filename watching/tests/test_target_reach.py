"""Alert targets cannot reach inside: loopback, link-local (cloud metadata), private, unspecified
and multicast addresses, in every spelling and behind a host name, are refused when a channel is
saved (400 naming `target`) and again when a message is sent (a name may resolve elsewhere by
then), unless DQ_ALERT_ALLOWED_HOSTS names them. What a target answers reaches administrators
only; everyone else who may read the run sees its HTTP status."""

from __future__ import annotations

import socket

import pytest
import requests

from watching.channels import reach
from watching.models import AlertChannel, DeliveryAttempt, Notification

pytestmark = pytest.mark.django_db
URL = "/api/v1/alert-channels/"
FAILING = 2


@pytest.fixture
def resolver(monkeypatch):
    """Host names of the test resolved to chosen addresses (`resolver["name"] = "10.0.0.5"`); the
    seam is the resolver the guard itself calls, so everything above it is the real code."""
    table: dict[str, str] = {}
    real = reach._real_getaddrinfo

    def fake(host, port, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else host
        if name in table:
            family = socket.AF_INET6 if ":" in table[name] else socket.AF_INET
            return [(family, socket.SOCK_STREAM, 6, "", (table[name], port or 0))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(reach, "_real_getaddrinfo", fake)
    return table


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("http://169.254.169.254/latest/meta-data/", "a cloud metadata address"),
        ("http://[fd00:ec2::254]/", "a cloud metadata address"),
        ("http://127.0.0.1:8080/hook", "a loopback address"),
        ("http://localhost/hook", "a loopback address"),
        ("http://2130706433/", "a loopback address"),  # 127.0.0.1 as one decimal number
        ("http://0177.0.0.1/", "a loopback address"),  # octal
        ("http://0x7f.0.0.1/", "a loopback address"),  # hex
        ("http://127.1/", "a loopback address"),  # the short form
        ("http://[::1]/", "a loopback address"),
        ("http://[::ffff:127.0.0.1]/", "a loopback address"),  # IPv4-mapped IPv6
        ("http://[::ffff:a9fe:a9fe]/", "a cloud metadata address"),  # 169.254.169.254, mapped, in hex
        ("http://169.254.1.1/", "a link-local address"),
        ("http://[fe80::1]/", "a link-local address"),
        ("http://10.1.2.3/", "a private address"),
        ("http://172.16.0.1/", "a private address"),
        ("http://192.168.1.1/", "a private address"),
        ("http://[fd12::1]/", "a private address"),
        ("http://0.0.0.0/", "the unspecified address"),
        ("http://224.0.0.1/", "a multicast address"),
    ],
)
def test_a_webhook_to_an_inside_address_is_refused_at_save_naming_target(cast, api_as, target, reason):
    response = api_as(cast.admin).post(URL, {"name": "in", "kind": "webhook", "target": target}, format="json")
    assert response.status_code == 400
    (message,) = response.json()["fields"]["target"]
    assert f"is {reason}" in message and "DQ_ALERT_ALLOWED_HOSTS" in message
    assert not AlertChannel.objects.exists()


@pytest.mark.parametrize(
    ("kind", "target"),
    [
        ("apprise", "json://10.0.0.7:8080/hook"),
        ("apprise", "xml://169.254.169.254/"),
        ("apprise", "form://2130706433/"),
        ("apprise", "jsons://[::1]/"),
        ("email", "mailto://user:pass@192.168.0.2?to=ops@example.com"),
    ],
)
def test_apprise_and_mail_targets_with_an_inside_host_are_refused_at_save(cast, api_as, kind, target):
    response = api_as(cast.admin).post(URL, {"name": "in", "kind": kind, "target": target}, format="json")
    assert response.status_code == 400
    assert "DQ_ALERT_ALLOWED_HOSTS" in response.json()["fields"]["target"][0]


def test_a_host_name_that_resolves_inside_is_refused_at_save(cast, api_as, resolver):
    resolver["hooks.corp.example"] = "10.20.30.40"
    target = "https://hooks.corp.example/dq"
    response = api_as(cast.admin).post(URL, {"name": "in", "kind": "webhook", "target": target}, format="json")
    assert response.status_code == 400
    assert response.json()["fields"]["target"] == [
        "The target's host hooks.corp.example (10.20.30.40) is a private address; alert targets must be public "
        "addresses unless an administrator lists the host in DQ_ALERT_ALLOWED_HOSTS."
    ]


@pytest.mark.parametrize("allowed", [["10.20.30.40"], ["10.20.0.0/16"], ["hooks.corp.example"]])
def test_the_allow_list_admits_a_named_host_or_network(cast, api_as, resolver, settings, allowed):
    resolver["hooks.corp.example"] = "10.20.30.40"
    settings.DQ_ALERT_ALLOWED_HOSTS = allowed
    target = "https://hooks.corp.example/dq"
    response = api_as(cast.admin).post(URL, {"name": "in", "kind": "webhook", "target": target}, format="json")
    assert response.status_code == 201, response.json()


def test_the_test_receiver_is_refused_without_the_allow_list_and_receives_nothing(
    cast, api_as, webhook_server, settings
):
    settings.DQ_ALERT_ALLOWED_HOSTS = []
    client = api_as(cast.admin)
    response = client.post(URL, {"name": "hook", "kind": "webhook", "target": webhook_server.url}, format="json")
    assert response.status_code == 400 and "127.0.0.1 is a loopback address" in response.json()["fields"]["target"][0]

    settings.DQ_ALERT_ALLOWED_HOSTS = ["127.0.0.1"]
    channel = client.post(URL, {"name": "hook", "kind": "webhook", "target": webhook_server.url}, format="json").json()
    settings.DQ_ALERT_ALLOWED_HOSTS = []  # the administrator takes it off the list again
    answer = client.post(f"{URL}{channel['id']}/test/").json()
    assert answer["ok"] is False and "127.0.0.1 is a loopback address" in answer["message"]
    assert webhook_server.requests == []


def test_a_name_that_resolves_inside_only_at_send_time_is_refused_then(
    cast, api_as, webhook_server, resolver, settings
):
    settings.DQ_ALERT_ALLOWED_HOSTS = []
    port = webhook_server.url.split(":")[2].split("/")[0]
    resolver["rebind.example"] = "93.184.215.14"  # public when the channel is saved
    client = api_as(cast.admin)
    target = f"http://rebind.example:{port}/hooks/dq"
    channel = client.post(URL, {"name": "rebind", "kind": "webhook", "target": target}, format="json")
    assert channel.status_code == 201, channel.json()

    resolver["rebind.example"] = "127.0.0.1"  # and the receiver on this machine when it is sent
    answer = client.post(f"{URL}{channel.json()['id']}/test/").json()
    assert answer["ok"] is False and "rebind.example (127.0.0.1) is a loopback address" in answer["message"]
    assert webhook_server.requests == []


def test_every_connection_made_while_sending_goes_to_a_checked_address(webhook_server, resolver, settings):
    # Past the check before sending (a resolver answering differently the next time): the
    # connection itself resolves through the guard, which keeps only addresses a target may reach.
    settings.DQ_ALERT_ALLOWED_HOSTS = []
    port = webhook_server.url.split(":")[2].split("/")[0]
    resolver["rebind.example"] = "127.0.0.1"
    with reach.guarded_connections(), pytest.raises(requests.ConnectionError, match="loopback address"):
        requests.post(f"http://rebind.example:{port}/hooks/dq", json={}, timeout=5)
    assert webhook_server.requests == []
    with reach.guarded_connections(also_allowed=["rebind.example"]):
        assert requests.post(f"http://rebind.example:{port}/hooks/dq", json={}, timeout=5).status_code == 200
    assert len(webhook_server.requests) == 1


def test_a_target_s_answer_reaches_admins_only_and_readers_of_the_run_see_its_status(
    cast, api_as, webhook_server, make_check, finish_run
):
    webhook_server.status, webhook_server.answer = 500, b"db password is hunter2; internal host db-7.corp"
    admin = api_as(cast.admin)
    channel = admin.post(
        URL, {"name": "hook", "kind": "webhook", "target": webhook_server.url, "notify_on": ["fail"]}, format="json"
    ).json()

    tested = admin.post(f"{URL}{channel['id']}/test/").json()
    assert tested["ok"] is False and "HTTP 500" in tested["message"] and "hunter2" in tested["message"]

    check = make_check("statuses present")
    run = finish_run([check], {check: FAILING})
    listing = api_as(cast.author).get("/api/v1/notifications/", {"run": run.pk})
    assert listing.status_code == 200
    (notification,) = listing.json()["results"]
    assert notification["error"] == "The webhook answered HTTP 500."
    assert {a["error"] for a in notification["attempts"]} == {"The webhook answered HTTP 500."}
    stored = list(Notification.objects.values_list("error", flat=True)) + list(
        DeliveryAttempt.objects.values_list("error", flat=True)
    )
    assert stored and not [text for text in stored if "hunter2" in text]
