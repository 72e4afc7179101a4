"""Alerts in each channel's language: one run, a Chinese and an English mail channel, both
delivered to the real SMTP server in this process; a channel's language is chosen when it is
created (by default the creating request's) and validated like any other field."""

import pytest

from watching.models import AlertChannel, Notification

pytestmark = pytest.mark.django_db
URL = "/api/v1/alert-channels/"
FAILING = 2  # the engine reports 2 NULL statuses; the check allows 0


def _mail_channel(name: str, address: str, language: str) -> AlertChannel:
    channel = AlertChannel(name=name, kind="email", notify_on=["fail", "error", "recovery"], language=language)
    channel.target = address
    channel.save()
    return channel


def test_a_failing_run_mails_a_chinese_channel_in_chinese_and_an_english_channel_in_english(
    cast, make_check, smtp_server, finish_run
):
    _mail_channel("数据组", "zh-team@example.com", "zh-hans")
    _mail_channel("data team", "en-team@example.com", "en")
    check = make_check("statuses present", failure_strategy="block")
    run = finish_run([check], {check: FAILING})

    mails = {m["to"][0]: m for m in smtp_server.wait_for(2)}
    chinese, english = mails["zh-team@example.com"], mails["en-team@example.com"]
    assert chinese["subject"] == f"[数据质量] 运行 {run.pk}：statuses present：1 个检查失败 — 阻断"
    assert "✗ statuses present — 失败（失败策略：阻断，会阻断）" in chinese["text"]
    assert "统计项 null_count.nulls：实际值 = 2；期望值 = 0" in chinese["text"]
    assert "当 实际值 − 期望值 ≤ 0 时通过：2 − 0 = 2 > 0 → 失败" in chinese["text"]
    assert f"运行页面：http://127.0.0.1:8000/runs/{run.pk}" in chinese["text"]
    assert "Pass when" not in chinese["text"] and "expected" not in chinese["text"]

    assert english["subject"] == f"[DQ] Run {run.pk}: statuses present: 1 check failed — BLOCKS"
    assert "✗ statuses present — FAIL (block, blocks)" in english["text"]
    assert "statistic null_count.nulls = 2; expected 0" in english["text"]
    assert "Pass when actual − expected ≤ 0: 2 − 0 = 2 > 0 → fail" in english["text"]
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in english["subject"] + english["text"])
    assert Notification.objects.filter(run=run, status="sent").count() == 2


def test_a_check_that_could_not_be_evaluated_is_told_in_the_channels_language_with_the_reason(
    cast, make_check, smtp_server, finish_run
):
    _mail_channel("数据组", "zh-team@example.com", "zh-hans")
    _mail_channel("data team", "en-team@example.com", "en")
    broken = make_check("statuses readable")
    fine = make_check("statuses fine")
    run = finish_run([broken, fine], {broken: "error", fine: 0})

    mails = {m["to"][0]: m for m in smtp_server.wait_for(2)}
    chinese, english = mails["zh-team@example.com"]["text"], mails["en-team@example.com"]["text"]
    assert mails["zh-team@example.com"]["subject"] == f"[数据质量] 运行 {run.pk}：statuses readable：1 个无法判定"
    assert f"运行 {run.pk}（调度，业务日期 {run.biz_date:%Y-%m-%d}）结束：错误。" in chinese
    # The engine's sentence is worded in the channel's language; what the database said stays as written.
    assert "错误：无法读取table orders：permission denied." in chinese
    assert "error: The table orders could not be read: permission denied." in english
    assert "statuses fine" not in chinese and "statuses fine" not in english


def test_a_channel_takes_the_language_of_the_request_that_creates_it_unless_told(cast, api_as):
    client = api_as(cast.admin)
    chinese = client.post(
        URL,
        {"name": "告警群", "kind": "email", "target": "ops@example.com"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9",
    )
    english = client.post(URL, {"name": "ops", "kind": "email", "target": "ops@example.com"}, format="json")
    told = client.post(
        URL,
        {"name": "ops en", "kind": "email", "target": "ops@example.com", "language": "en"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="zh-Hans",
    )
    assert (chinese.status_code, english.status_code, told.status_code) == (201, 201, 201)
    assert chinese.json()["language"] == "zh-hans" and english.json()["language"] == "en"
    assert told.json()["language"] == "en"
    assert AlertChannel.objects.get(name="告警群").language == "zh-hans"

    changed = client.patch(f"{URL}{english.json()['id']}/", {"language": "zh-hans"}, format="json")
    assert changed.status_code == 200 and AlertChannel.objects.get(name="ops").language == "zh-hans"


@pytest.mark.parametrize("language", ["fr", "zh_CN", "", None])
def test_a_channel_language_other_than_en_or_zh_hans_is_a_400_naming_language(cast, api_as, language):
    response = api_as(cast.admin).post(
        URL, {"name": "ops", "kind": "email", "target": "ops@example.com", "language": language}, format="json"
    )
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["language"]
    assert not AlertChannel.objects.exists()


def test_the_language_error_is_worded_in_the_callers_language(cast, api_as):
    response = api_as(cast.admin).post(
        URL,
        {"name": "ops", "kind": "email", "target": "ops@example.com", "language": "fr"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="zh-Hans",
    )
    assert response.json()["fields"]["language"] == ["未知语言“fr”；请选择 en（英语）或 zh-hans（简体中文）。"]


def test_a_test_message_to_a_chinese_channel_is_in_chinese(cast, api_as, smtp_server):
    channel = _mail_channel("数据组", "zh-team@example.com", "zh-hans")
    response = api_as(cast.admin).post(f"{URL}{channel.pk}/test/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200, response.json()
    (mail,) = smtp_server.wait_for(1)
    assert mail["subject"] == "[数据质量] 渠道 数据组 的测试消息"
    assert "检查失败的告警将发送到此渠道（数据组）。" in mail["text"]
    assert response.json()["message"] == "Test message sent to zh-team@example.com."  # the caller's language


@pytest.mark.parametrize(
    ("cron", "chinese", "english"),
    [
        ("0 2 * * *", "每天 02:00（Asia/Shanghai）", "every day at 02:00 Asia/Shanghai"),
        (
            "30 8 * * 1-5",
            "每个工作日（星期一至星期五） 08:30（Asia/Shanghai）",
            "every weekday (Monday to Friday) at 08:30 Asia/Shanghai",
        ),
        (
            "0 6,18 * * 0,6",
            "每星期六和星期日 06:00和18:00（Asia/Shanghai）",
            "every Saturday and Sunday at 06:00 and 18:00 Asia/Shanghai",
        ),
        ("*/15 * * * *", "每 15 分钟（Asia/Shanghai）", "every 15 minutes (Asia/Shanghai)"),
    ],
)
def test_a_schedule_is_described_in_the_readers_language(cast, api_as, make_check, cron, chinese, english):
    check = make_check("statuses present")
    body = {"name": "nightly", "cron": cron, "timezone": "Asia/Shanghai", "checks": [check.pk]}
    client = api_as(cast.author)
    created = client.post("/api/v1/schedules/", body, format="json", HTTP_ACCEPT_LANGUAGE="zh-Hans")
    assert created.status_code == 201, created.json()
    assert created.json()["description"] == chinese
    assert client.get(f"/api/v1/schedules/{created.json()['id']}/").json()["description"] == english


def test_a_bad_cron_is_refused_in_the_callers_language_naming_cron(cast, api_as, make_check):
    check = make_check("statuses present")
    body = {"name": "nightly", "cron": "0 2 * *", "timezone": "UTC", "checks": [check.pk]}
    response = api_as(cast.author).post("/api/v1/schedules/", body, format="json", HTTP_ACCEPT_LANGUAGE="zh-Hans")
    assert response.status_code == 400
    assert response.json()["fields"]["cron"] == [
        "cron 表达式应有五个字段（分钟 小时 日期 月份 星期），实际有 4 个：例如 `0 2 * * *` 表示每天 02:00。"
    ]
