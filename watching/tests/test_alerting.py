"""After a run ends: incidents and one message per run per channel, delivered to a real SMTP
server and a real HTTP server in this process (Celery tasks run eagerly here; the worker test
sends them through Redis). Remote services (Slack, DingTalk, …) are replaced at one seam only:
the `send` of Apprise's plug-in for that service."""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from executions.models import Result, Run
from watching.models import AlertChannel, CheckMute, DeliveryAttempt, Incident, Notification

pytestmark = pytest.mark.django_db

FAILING, PASSING = 2, 0  # the statistic the engine reports: 2 NULL statuses, or none


def test_a_failing_run_sends_one_email_and_one_webhook_with_the_failures_and_a_link(
    cast, make_check, channels, smtp_server, webhook_server, finish_run
):
    nulls = make_check("statuses present", failure_strategy="block")
    broken = make_check("statuses readable")
    fine = make_check("statuses fine")
    run = finish_run([nulls, broken, fine], {nulls: FAILING, broken: "error", fine: PASSING})
    assert run.status == Run.Status.ERROR and run.blocking is True

    (mail,) = smtp_server.wait_for(1)
    assert mail["to"] == ["dq-team@example.com"] and mail["from"] == "dq@example.com"
    assert mail["subject"] == f"[DQ] Run {run.pk}: 1 check failed, 1 could not be evaluated — BLOCKS"
    text = mail["text"]
    assert "✗ statuses present — FAIL (block, blocks)" in text
    assert "statistic null_count.nulls = 2; expected 0" in text
    assert "Pass when actual − expected ≤ 0: 2 − 0 = 2 > 0 → fail" in text
    assert "batch: lake orders (full)" in text
    assert "✗ statuses readable — ERROR (alert, does not block)" in text and "permission denied" in text
    assert "statuses fine" not in text
    assert f"Run page: http://127.0.0.1:8000/runs/{run.pk}" in text

    (hook,) = webhook_server.wait_for(1)
    body = hook["json"]
    assert hook["content_type"] == "application/json" and body["event"] == "dq.run"
    assert body["run"] == {
        "id": run.pk,
        "status": "error",
        "blocking": True,
        "trigger": "schedule",
        "biz_date": run.biz_date.isoformat(),
        "url": f"http://127.0.0.1:8000/runs/{run.pk}",
    }
    failed = {f["check_name"]: f for f in body["failures"]}
    assert set(failed) == {"statuses present", "statuses readable"}
    assert failed["statuses present"]["statistics_value"] == 2 and failed["statuses present"]["comparison_value"] == 0
    assert failed["statuses present"]["blocks"] is True and failed["statuses present"]["verdict"].endswith("→ fail")
    assert (
        failed["statuses present"]["batch"]["table"] == "orders" and body["text"] == text.replace("\r\n", "\n").strip()
    )
    assert Notification.objects.filter(run=run, status="sent").count() == 2
    assert Incident.objects.unresolved().count() == 2


def test_a_second_failure_within_realert_after_sends_nothing_and_joins_the_incident(
    cast, make_check, channels, smtp_server, webhook_server, finish_run, settings
):
    check = make_check("statuses present")
    finish_run([check], {check: FAILING})
    second = finish_run([check], {check: FAILING})
    assert len(smtp_server.mails) == 1 and len(webhook_server.requests) == 1
    assert not Notification.objects.filter(run=second).exists()
    (incident,) = Incident.objects.all()
    assert incident.status == "open" and incident.occurrences == 2 and incident.last_result.run_id == second.pk

    Incident.objects.update(last_notified_at=timezone.now() - timedelta(seconds=settings.DQ_REALERT_AFTER + 1))
    third = finish_run([check], {check: FAILING})
    assert Notification.objects.filter(run=third).count() == 2  # a day later it is said again
    assert len(webhook_server.wait_for(2)) == 2


def test_a_change_of_blocking_is_said_at_once(cast, api_as, make_check, channels, webhook_server, finish_run):
    check = make_check("statuses present")
    finish_run([check], {check: FAILING})
    params = {**check.params, "failure_strategy": "block"}
    assert (
        api_as(cast.author).patch(f"/api/v1/checks/{check.pk}/", {"params": params}, format="json").status_code == 200
    )
    check.refresh_from_db()
    blocking = finish_run([check], {check: FAILING})
    assert blocking.blocking and Notification.objects.filter(run=blocking).count() == 2
    assert webhook_server.wait_for(2)[1]["json"]["failures"][0]["blocks"] is True


def test_a_pass_resolves_the_incident_and_sends_one_recovery(
    cast, make_check, channels, smtp_server, webhook_server, finish_run
):
    check = make_check("statuses present")
    finish_run([check], {check: FAILING})
    recovered = finish_run([check], {check: PASSING})
    (incident,) = Incident.objects.all()
    assert incident.status == "resolved" and incident.resolved_by is None
    assert incident.resolved_by_result.run_id == recovered.pk
    mails = smtp_server.wait_for(2)
    assert len(mails) == 2 and mails[1]["subject"] == f"[DQ] Run {recovered.pk}: 1 recovered"
    assert "✓ statuses present passes again" in mails[1]["text"]
    assert webhook_server.wait_for(2)[1]["json"]["recoveries"][0]["incident"] == incident.pk
    finish_run([check], {check: PASSING})
    assert len(smtp_server.mails) == 2  # passing again and again says nothing


def test_a_muted_check_opens_its_incident_but_sends_nothing(cast, make_check, channels, webhook_server, finish_run):
    check = make_check("statuses present")
    CheckMute.objects.create(rule_check=check, until=timezone.now() + timedelta(hours=2), muted_by=cast.author)
    run = finish_run([check], {check: FAILING})
    assert Incident.objects.get().status == "open" and not Notification.objects.filter(run=run).exists()
    assert webhook_server.requests == []


def test_each_channel_gets_only_the_events_and_checks_it_listens_to(cast, make_check, webhook_server, finish_run, lake):
    mine, other = make_check("mine"), make_check("other")

    def channel(name, **fields):
        made = AlertChannel(name=name, kind="webhook", notify_on=fields.pop("notify_on", ["fail", "error", "recovery"]))
        made.target = webhook_server.url
        made.save()
        for relation, values in fields.items():
            getattr(made, relation).set(values)
        return made

    channel("errors only", notify_on=["error"])
    channel("mine only", checks=[mine])
    channel("lake", datasources=[lake])
    run = finish_run([mine, other], {mine: FAILING, other: FAILING})
    sent = {n.channel_name: n for n in Notification.objects.filter(run=run)}
    assert set(sent) == {"mine only", "lake"}
    assert [f["check_name"] for f in sent["mine only"].payload["failures"]] == ["mine"]
    assert sorted(f["check_name"] for f in sent["lake"].payload["failures"]) == ["mine", "other"]


def test_a_channel_whose_server_is_down_is_retried_and_recorded_failed_while_results_stand(
    cast, make_check, finish_run, closed_port, settings, caplog
):
    settings.DQ_NOTIFY_ATTEMPTS = 3
    settings.DQ_ALERT_ALLOWED_HOSTS = ["127.0.0.1"]  # a closed port of this machine stands for a dead server
    down = AlertChannel(name="down", kind="webhook", notify_on=["fail"])
    down.target = f"http://127.0.0.1:{closed_port}/hook?token=downSecret-0042"
    down.save()
    check = make_check("statuses present")
    run = finish_run([check], {check: FAILING})
    (notification,) = Notification.objects.filter(run=run)
    assert notification.status == "failed" and notification.attempt == 3
    attempts = list(DeliveryAttempt.objects.filter(notification=notification).values_list("number", "ok"))
    assert attempts == [(1, False), (2, False), (3, False)]
    assert "could not be reached" in notification.error and "downSecret-0042" not in notification.error
    assert Run.objects.get(pk=run.pk).status == Run.Status.FAILED
    assert list(run.results.values_list("status", "statistics_value")) == [(Result.Status.FAIL, 2.0)]
    assert "downSecret-0042" not in caplog.text


def test_a_backfill_neither_opens_incidents_nor_sends(cast, make_check, channels, webhook_server, finish_run):
    check = make_check("statuses present")
    finish_run([check], {check: FAILING}, trigger="backfill", biz_date=timezone.localdate() - timedelta(days=30))
    assert not Incident.objects.exists() and webhook_server.requests == []


REMOTE = {
    # kind: (target, the Apprise plug-in replaced, the target's secret part)
    "slack": (
        "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/slackSecret0123456",
        "slack.NotifySlack",
        "slackSecret0123456",
    ),
    "dingtalk": (
        "https://oapi.dingtalk.com/robot/send?access_token=dingSecret0123456789",
        "dingtalk.NotifyDingTalk",
        "dingSecret0123456789",
    ),
    "wecom": (
        "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=wecomSecret0123",
        "wecombot.NotifyWeComBot",
        "wecomSecret0123",
    ),
    "feishu": (
        "https://open.feishu.cn/open-apis/bot/v2/hook/feishuSecret0123",
        "feishu.NotifyFeishu",
        "feishuSecret0123",
    ),
    "telegram": (
        "tgram://123456789:AAHtelegramSecretabcdefghijklmnopq/-1001234567890",
        "telegram.NotifyTelegram",
        "AAHtelegramSecretabcdefghijklmnopq",
    ),
    "apprise": (
        "discord://4174216298/discordSecretJHMHI8qBe7bk2ZwO5U711o3",
        "discord.NotifyDiscord",
        "discordSecretJHMHI8qBe7bk2ZwO5U711o3",
    ),
}


def test_remote_services_get_the_run_message_through_apprise_and_no_token_reaches_a_log(
    cast, api_as, make_check, finish_run, monkeypatch, caplog, webhook_server, settings
):
    import importlib
    from collections import Counter

    settings.DQ_NOTIFY_ATTEMPTS = 2

    caplog.set_level(logging.DEBUG)
    received = []
    for kind, (target, plugin, _secret) in REMOTE.items():
        module, name = plugin.split(".")
        cls = getattr(importlib.import_module(f"apprise.plugins.{module}"), name)

        def fake_send(self, body, title="", *args, _kind=kind, **kwargs):
            received.append((_kind, title, body))
            return _kind != "telegram"  # one service refuses, to see the failure recorded too

        monkeypatch.setattr(cls, "send", fake_send)
        response = api_as(cast.admin).post(
            "/api/v1/alert-channels/",
            {"name": kind, "kind": kind, "target": target, "notify_on": ["fail"]},
            format="json",
        )
        assert response.status_code == 201, response.json()
    hook = AlertChannel(name="hook", kind="webhook", notify_on=["fail"])
    hook.target = webhook_server.url
    hook.save()
    check = make_check("statuses present")
    run = finish_run([check], {check: FAILING})

    assert Counter(k for k, _t, _b in received) == {**dict.fromkeys(REMOTE, 1), "telegram": 2}  # telegram retried
    for _kind, title, body in received:  # services without a title field get it in the body
        assert f"[DQ] Run {run.pk}: statuses present: 1 check failed" in f"{title}\n{body}"
        assert "statistic null_count.nulls = 2; expected 0" in body and f"/runs/{run.pk}" in body
    statuses = dict(Notification.objects.filter(run=run).values_list("channel_kind", "status"))
    assert statuses == {**{k: "sent" for k in REMOTE}, "telegram": "failed", "webhook": "sent"}
    notifications = api_as(cast.admin).get("/api/v1/notifications/", {"run": run.pk, "page_size": 50}).content.decode()
    for _target, _plugin, secret in REMOTE.values():
        assert secret not in caplog.text and secret not in notifications
    assert "hook-Secret-7781" not in caplog.text and "hook-Secret-7781" not in notifications
