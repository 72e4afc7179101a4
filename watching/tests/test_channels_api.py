"""GET/POST /api/v1/alert-channels/, GET/PATCH/DELETE …/{id}/, POST …/{id}/test/: admin-managed,
each kind's target validated at save, targets write-only and never shown again (API or admin)."""

import pytest

from watching.models import AlertChannel, Notification

pytestmark = pytest.mark.django_db
URL = "/api/v1/alert-channels/"

# kind → (a good target whose secret part is in SECRETS, a bad target)
TARGETS = {
    "email": ("ops@example.com, dba@example.org", "not-an-address"),
    "webhook": ("https://example.com/hooks/x?token=webhookSecret0123", "ftp://example.com/x"),
    "slack": ("https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/slackSecret0123456", "https://example.com/T/B/x"),
    "dingtalk": (
        "https://oapi.dingtalk.com/robot/send?access_token=dingSecret0123456789",
        "https://oapi.dingtalk.com/robot/send",
    ),
    "wecom": (
        "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=wecomSecret0123",
        "https://qyapi.weixin.qq.com/cgi-bin/webhook/send",
    ),
    "feishu": (
        "https://open.feishu.cn/open-apis/bot/v2/hook/feishuSecret0123",
        "https://open.feishu.cn/open-apis/bot/v2/hook/",
    ),
    "telegram": ("tgram://123456789:AAHtelegramSecretabcdefghijklmnopq/-1001234567890", "tgram://notatoken"),
    "apprise": ("discord://4174216298/discordSecretJHMHI8qBe7bk2ZwO5U711o3", "windows://"),
}
SECRETS = [
    "webhookSecret0123",
    "slackSecret0123456",
    "dingSecret0123456789",
    "wecomSecret0123",
    "feishuSecret0123",
    "AAHtelegramSecretabcdefghijklmnopq",
    "discordSecretJHMHI8qBe7bk2ZwO5U711o3",
]


@pytest.mark.parametrize("kind", list(TARGETS))
def test_each_kind_refuses_a_bad_target_at_save_naming_target(cast, api_as, kind):
    response = api_as(cast.admin).post(URL, {"name": kind, "kind": kind, "target": TARGETS[kind][1]}, format="json")
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["target"] and response.json()["fields"]["target"][0]


@pytest.mark.parametrize("kind", list(TARGETS))
def test_each_kind_keeps_a_good_target_encrypted_and_shows_only_a_preview(cast, api_as, kind):
    client = api_as(cast.admin)
    response = client.post(URL, {"name": kind, "kind": kind, "target": TARGETS[kind][0]}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["has_target"] is True and "target" not in body
    assert body["notify_on"] == ["fail", "error", "recovery"] and body["checks"] == [] and body["datasources"] == []
    channel = AlertChannel.objects.get(pk=body["id"])
    assert channel.target == TARGETS[kind][0] and TARGETS[kind][0] not in channel.target_ciphertext
    listing = client.get(URL).content.decode() + client.get(f"{URL}{body['id']}/").content.decode()
    assert not [s for s in SECRETS if s in listing]


def test_no_token_appears_in_responses_or_the_admin_pages(cast, api_as, client):
    api = api_as(cast.admin)
    ids = [
        api.post(URL, {"name": kind, "kind": kind, "target": good}, format="json").json()["id"]
        for kind, (good, _bad) in TARGETS.items()
    ]
    pages = [api.get(URL, {"page_size": 100}).content.decode()]
    pages.append(api.patch(f"{URL}{ids[1]}/", {"notify_on": ["fail"]}, format="json").content.decode())
    client.force_login(cast.admin)
    pages.append(client.get("/admin/watching/alertchannel/").content.decode())
    for channel_id in ids:
        pages.append(client.get(f"/admin/watching/alertchannel/{channel_id}/change/").content.decode())
    assert "hooks.slack.com/…" in pages[0]  # the preview is there …
    assert not [s for s in SECRETS if any(s in page for page in pages)]  # … the tokens are not


def test_only_admins_write_and_everyone_reads_without_targets(cast, api_as):
    body = {"name": "team", "kind": "webhook", "target": TARGETS["webhook"][0]}
    assert api_as(cast.author).post(URL, body, format="json").status_code == 403
    channel = api_as(cast.admin).post(URL, body, format="json").json()
    assert api_as(cast.author).get(f"{URL}{channel['id']}/").json()["target_preview"] == "https://example.com/…"
    assert api_as(cast.author).post(f"{URL}{channel['id']}/test/").status_code == 403
    assert api_as(cast.author).delete(f"{URL}{channel['id']}/").status_code == 403


def test_a_new_kind_needs_its_target_and_omitting_the_target_keeps_it(cast, api_as):
    client = api_as(cast.admin)
    channel = client.post(URL, {"name": "t", "kind": "webhook", "target": TARGETS["webhook"][0]}, format="json").json()
    renamed = client.patch(f"{URL}{channel['id']}/", {"name": "renamed"}, format="json")
    assert renamed.status_code == 200 and AlertChannel.objects.get(pk=channel["id"]).target == TARGETS["webhook"][0]
    switched = client.patch(f"{URL}{channel['id']}/", {"kind": "slack"}, format="json")
    assert switched.status_code == 400 and "target" in switched.json()["fields"]
    assert client.patch(f"{URL}{channel['id']}/", {"notify_on": []}, format="json").json()["fields"]["notify_on"]


def test_the_list_of_a_checks_channels_follows_its_checks_and_datasources(cast, api_as, make_check, lake):
    client = api_as(cast.admin)
    check, other = make_check("statuses present"), make_check("other")
    target = TARGETS["webhook"][0]
    client.post(URL, {"name": "everything", "kind": "webhook", "target": target}, format="json")
    client.post(URL, {"name": "by check", "kind": "webhook", "target": target, "checks": [other.pk]}, format="json")
    client.post(
        URL, {"name": "by source", "kind": "webhook", "target": target, "datasources": [lake.pk]}, format="json"
    )
    names = [c["name"] for c in api_as(cast.author).get(URL, {"check": check.pk}).json()["results"]]
    assert names == ["by source", "everything"]


def test_send_test_delivers_to_a_real_webhook_and_records_it(cast, api_as, webhook_server):
    client = api_as(cast.admin)
    channel = client.post(URL, {"name": "hook", "kind": "webhook", "target": webhook_server.url}, format="json").json()
    answer = client.post(f"{URL}{channel['id']}/test/").json()
    assert answer == {"ok": True, "message": f"Test message sent to {channel['target_preview']}."}
    (request,) = webhook_server.requests
    assert request["content_type"] == "application/json" and request["json"]["event"] == "dq.test"
    webhook_server.status = 500
    failed = client.post(f"{URL}{channel['id']}/test/").json()
    assert failed["ok"] is False and "HTTP 500" in failed["message"] and "hook-Secret-7781" not in failed["message"]
    assert list(Notification.objects.values_list("event", "status")) == [("test", "failed"), ("test", "sent")]


def test_rotate_secrets_re_encrypts_channel_targets_under_the_new_key(cast, api_as, settings):
    from cryptography.fernet import Fernet
    from django.core.management import call_command

    channel_id = (
        api_as(cast.admin)
        .post(URL, {"name": "hook", "kind": "webhook", "target": TARGETS["webhook"][0]}, format="json")
        .json()["id"]
    )
    new_key = Fernet.generate_key().decode()
    settings.DQ_FERNET_KEYS = [new_key, *settings.DQ_FERNET_KEYS]
    call_command("rotate_secrets")
    settings.DQ_FERNET_KEYS = [new_key]  # the old key dropped: the target must still read
    assert AlertChannel.objects.get(pk=channel_id).target == TARGETS["webhook"][0]
