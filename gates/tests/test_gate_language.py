"""The gate answers in the asker's language: a batch's reasons are recorded once (in English) as
its validation ends, and worded again for whoever asks — a workflow scheduler, the batch page.
The engine's answer is recorded directly (no worker: the run stays queued until it is)."""

from __future__ import annotations

import pytest

from executions.models import Run
from executions.recording import record_results

from .conftest import NULL_CHECK, SCHEMA, create_check, register

pytestmark = pytest.mark.django_db
ORDERS = f"{SCHEMA}.orders"
CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}


def _engine_answers(nulls: dict[str, float | str]) -> None:
    """Record the queued run's results: each check's NULL count by name, or "error"."""
    run = Run.objects.get()
    assert Run.claim(run.pk, run.attempt)
    checks, batches = {}, {}
    for version in run.check_versions.all():
        where = run.batches["assignments"][str(version.pk)]
        batches[where["batch"]] = {"rows": 3}
        answer = nulls[version.name]
        checks[str(version.pk)] = (
            {"status": "error", "message": "The engine returned no result."}
            if answer == "error"
            else {"status": "ok", "statistic": answer}
        )
    record_results(run, {"checks": checks, "batches": batches})


def _gate(client, **headers) -> dict:
    query = {"datasource": "shop", "table": ORDERS, "partition": "dt:2026-11-29"}
    response = client.get("/api/v1/gate/", query, **headers)
    assert response.status_code == 200, response.json()
    return response.json()


def test_a_quarantined_batch_is_explained_in_chinese_to_a_chinese_asker_and_in_english_otherwise(cast, api_as, shop):
    client = api_as(cast.author)
    create_check(client, "emails present", "null_check", src_datasource_id=shop.pk, src_table=ORDERS,
                 failure_strategy="block", **NULL_CHECK)  # fmt: skip
    create_check(client, "ids present", "null_check", src_datasource_id=shop.pk, src_table=ORDERS,
                 failure_strategy="alert", **{**NULL_CHECK, "src_field": "order_id"})  # fmt: skip
    batch = register(client, shop, ORDERS, partition={"dt": "2026-11-29"}, biz_date="2026-11-29")
    _engine_answers({"emails present": 1, "ids present": 0})

    chinese, english = _gate(client, **CHINESE), _gate(client)
    assert chinese == {
        "state": "quarantined",
        "may_consume": False,
        "batch": batch["id"],
        "reason": "已隔离：阻断检查 'emails present' 失败。",
    }
    assert english["reason"] == "Quarantined: blocking check 'emails present' failed."

    page = client.get(f"/api/v1/batches/{batch['id']}/", **CHINESE).json()
    assert [t["reason"] for t in page["transitions"]][-2:] == [
        "2 个检查中有 1 个失败：'emails present'",
        "已隔离：阻断检查 'emails present' 失败。",
    ]
    (evidence,) = [r for r in page["attempts"][0]["results"] if r["check_name"] == "emails present"]
    assert evidence["verdict"] == "当 实际值 − 期望值 ≤ 0 时通过：1 − 0 = 1 > 0 → 失败"


def test_an_undecided_batch_held_for_approval_says_why_in_chinese_with_the_checks_own_reason(cast, api_as, shop):
    client = api_as(cast.author)
    create_check(client, "emails present", "null_check", src_datasource_id=shop.pk, src_table=ORDERS,
                 failure_strategy="block", **NULL_CHECK)  # fmt: skip
    register(client, shop, ORDERS, partition={"dt": "2026-11-29"}, biz_date="2026-11-29")
    _engine_answers({"emails present": "error"})

    chinese = _gate(client, **CHINESE)
    assert chinese["state"] == "awaiting_approval" and chinese["may_consume"] is False
    assert chinese["reason"] == "待审批（失败阻断，默认策略）：1 个检查无法判定"
    assert _gate(client)["reason"] == "Awaiting approval (fail closed, the default policy): 1 check(s) could not decide"


def test_a_batch_no_check_reads_tells_a_chinese_asker_what_to_do(cast, api_as, shop):
    client = api_as(cast.author)
    register(client, shop, ORDERS, partition={"dt": "2026-11-29"})
    reason = _gate(client, **CHINESE)["reason"]
    assert reason == (
        "待审批（失败阻断，默认策略）：没有检查读取 shop.dq_gates.orders；请将检查绑定到该表，然后重新校验。"
    )


def test_asking_for_a_batch_never_registered_is_answered_in_the_askers_language(cast, api_as, shop):
    body = _gate(api_as(cast.author), **CHINESE)
    assert body == {
        "state": None,
        "may_consume": False,
        "batch": None,
        "reason": "shop.dq_gates.orders dt=2026-11-29 没有登记任何批次。",
    }


def test_the_table_page_names_its_policy_and_each_checks_verdict_in_the_readers_language(cast, api_as, shop):
    client = api_as(cast.author)
    create_check(client, "emails present", "null_check", src_datasource_id=shop.pk, src_table=ORDERS,
                 failure_strategy="block", **NULL_CHECK)  # fmt: skip
    register(client, shop, ORDERS, partition={"dt": "2026-11-29"}, biz_date="2026-11-29")
    _engine_answers({"emails present": 1})

    query = {"datasource": shop.pk, "table": ORDERS}
    chinese = client.get("/api/v1/gated-table/", query, **CHINESE).json()
    english = client.get("/api/v1/gated-table/", query).json()
    assert (chinese["fail_mode_source"], english["fail_mode_source"]) == ("默认策略", "the default policy")
    (zh_check,), (en_check,) = chinese["checks"], english["checks"]
    assert zh_check["last_result"]["verdict"] == "当 实际值 − 期望值 ≤ 0 时通过：1 − 0 = 1 > 0 → 失败"
    assert en_check["last_result"]["verdict"] == "Pass when actual − expected ≤ 0: 1 − 0 = 1 > 0 → fail"
