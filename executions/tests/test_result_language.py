"""A result is recorded once, in English, and read in the reader's language: its verdict is worded
again from the numbers it was judged by, and the platform's own messages (a check that could
not be evaluated, a worker that died) are recognised and worded again; what a database said
stays as it said it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from executions.models import Result, Run
from executions.reaper import end_runs_whose_worker_died
from executions.recording import record_results

pytestmark = pytest.mark.django_db
CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-Hans"}


@pytest.fixture
def make_check(cast, api_as, pg_datasource):
    def make(name: str, **verdict) -> int:
        params = {
            "src_datasource_id": pg_datasource.pk,
            "src_table": "dq_test.orders",
            "src_field": "customer_email",
            "check_type": "statistics_minus_comparison",
            "operator": "le",
            "threshold": 0,
            "comparison_type": "fix_value",
            "comparison_value": 0,
            **verdict,
        }
        response = api_as(cast.author).post(
            "/api/v1/checks/", {"name": name, "template": "null_check", "params": params}, format="json"
        )
        assert response.status_code == 201, response.json()
        return response.json()["id"]

    return make


def _finish(api, checks: list[int], outcomes: dict[int, dict]) -> int:
    """Start a run of the checks and record the engine's document for it (no engine here)."""
    run_id = api.post("/api/v1/runs/", {"checks": checks}, format="json").json()["id"]
    Run.claim(run_id, 1)
    run = Run.objects.get(pk=run_id)
    document = {str(v.pk): outcomes[v.parent_check_id] for v in run.check_versions.all()}
    record_results(run, {"checks": document, "batches": {}})
    return run_id


def test_a_verdict_is_chinese_for_a_chinese_reader_and_english_otherwise_from_one_stored_result(
    cast, api_as, make_check
):
    nulls = make_check("emails present")
    percent = make_check("emails mostly present", check_type="statistics_comparison_percentage", threshold=50)
    client = api_as(cast.author)
    run_id = _finish(
        client, [nulls, percent], {nulls: {"status": "ok", "statistic": 3}, percent: {"status": "ok", "statistic": 3}}
    )

    chinese = {r["check_name"]: r for r in client.get(f"/api/v1/runs/{run_id}/", **CHINESE).json()["results"]}
    english = {r["check_name"]: r for r in client.get(f"/api/v1/runs/{run_id}/").json()["results"]}
    assert chinese["emails present"]["verdict"] == "当 实际值 − 期望值 ≤ 0 时通过：3 − 0 = 3 > 0 → 失败"
    assert chinese["emails present"]["formula"] == "当 实际值 − 期望值 ≤ 0 时通过"
    assert english["emails present"]["verdict"] == "Pass when actual − expected ≤ 0: 3 − 0 = 3 > 0 → fail"
    # An expected value of 0 makes the percentage 0 (as DolphinScheduler did), said in each language.
    assert chinese["emails mostly present"]["verdict"] == (
        "当 实际值 ÷ 期望值 × 100 ≤ 50 时通过：（期望值 0 ≤ 0，因此百分比为 0） = 0 ≤ 50 → 通过"
    )
    assert english["emails mostly present"]["verdict"] == (
        "Pass when actual ÷ expected × 100 ≤ 50: (expected 0 ≤ 0, so the percentage is 0) = 0 ≤ 50 → pass"
    )

    # One stored row behind both answers: the record is English, whoever reads it.
    stored = Result.objects.get(run_id=run_id, check_version__name="emails present")
    assert stored.verdict == english["emails present"]["verdict"]
    single = client.get(f"/api/v1/results/{stored.pk}/", **CHINESE).json()
    assert single["verdict"] == chinese["emails present"]["verdict"]


def test_a_check_the_engine_could_not_evaluate_says_why_in_both_languages_beside_a_healthy_one(
    cast, api_as, make_check
):
    # The column was dropped after the check was written: the engine says so for that check only.
    broken = make_check("emails typo")
    fine = make_check("amounts present", src_field="amount")
    client = api_as(cast.author)
    unknown_column = {
        "status": "error",
        "message": "Unknown column 'customer_email'; the batch has the columns order_id, amount.",
    }
    run_id = _finish(client, [broken, fine], {broken: unknown_column, fine: {"status": "ok", "statistic": 0}})

    chinese = client.get(f"/api/v1/runs/{run_id}/", **CHINESE).json()
    english = client.get(f"/api/v1/runs/{run_id}/").json()
    assert chinese["message"] == "2 个检查中有 1 个无法判定。"
    assert english["message"] == "1 of 2 checks could not be evaluated."
    by_name = {r["check_name"]: r for r in chinese["results"]}
    assert by_name["emails typo"]["status"] == "error"
    assert by_name["emails typo"]["message"] == "未知字段 'customer_email'；该批次的字段有 order_id, amount。"
    assert by_name["amounts present"]["verdict"] == "当 实际值 − 期望值 ≤ 0 时通过：0 − 0 = 0 ≤ 0 → 通过"
    english_typo = next(r for r in english["results"] if r["check_name"] == "emails typo")
    assert english_typo["message"] == unknown_column["message"]


def test_a_run_whose_worker_died_tells_the_reader_to_retry_in_their_language(cast, api_as, make_check, settings):
    check = make_check("emails present")
    client = api_as(cast.author)
    run_id = client.post("/api/v1/runs/", {"checks": [check]}, format="json").json()["id"]
    assert Run.claim(run_id, 1, "worker-7")
    stale = timezone.now() - timedelta(seconds=settings.DQ_WORKER_STALE_AFTER + 60)
    Run.objects.filter(pk=run_id).update(started_at=stale)

    assert end_runs_whose_worker_died(timezone.now(), alive=[]) == 1

    chinese = client.get(f"/api/v1/runs/{run_id}/", **CHINESE).json()
    english = client.get(f"/api/v1/runs/{run_id}/").json()
    assert chinese["status"] == "error"
    said = "执行此运行的工作进程（worker-7）在完成前停止了（被终止、崩溃或失联）；请重试该运行。"
    assert chinese["message"] == said and chinese["results"][0]["message"] == said
    assert english["message"] == (
        "The worker running this run (worker-7) stopped before it finished (killed, crashed or lost); retry the run."
    )


def test_the_formula_preview_speaks_the_readers_language(cast, api_as):
    query = {"check_type": "comparison_minus_statistics", "operator": "ge", "threshold": "10"}
    client = api_as(cast.author)
    assert client.get("/api/v1/formula/", query, **CHINESE).json()["formula"] == "当 期望值 − 实际值 ≥ 10 时通过"
    assert client.get("/api/v1/formula/", query).json()["formula"] == "Pass when expected − actual ≥ 10"
    missing = client.get("/api/v1/formula/", {"operator": "ge"}, **CHINESE)
    assert missing.status_code == 400 and missing.json()["fields"]["threshold"] == ["该字段是必填项。"]


def test_a_workflow_waiting_on_a_run_reads_its_verdicts_in_the_language_it_asked_for(cast, api_as, make_check):
    """The run-and-wait answer a DolphinScheduler HTTP task logs: the marker stays, the words follow
    the request (DolphinScheduler's own `language` header here)."""
    failing = make_check("emails present")
    client = api_as(cast.author)
    run_id = _finish(client, [failing], {failing: {"status": "ok", "statistic": 3}})

    chinese = client.get(f"/api/v1/runs/{run_id}/verdict/?wait=0", HTTP_LANGUAGE="zh_CN")
    english = client.get(f"/api/v1/runs/{run_id}/verdict/?wait=0")
    assert chinese.status_code == english.status_code == 200  # an `alert` failure blocks nothing
    assert chinese.json()["marker"] == english.json()["marker"] == "DQ_VERDICT=PASSED"
    assert chinese.json()["results"][0]["message"] == "当 实际值 − 期望值 ≤ 0 时通过：3 − 0 = 3 > 0 → 失败"
    assert english.json()["results"][0]["message"] == "Pass when actual − expected ≤ 0: 3 − 0 = 3 > 0 → fail"
    assert chinese.json()["message"] == f"运行 {run_id} 已结束（失败），没有阻断（仅告警：emails present）。"


def test_a_result_names_its_built_in_rule_in_the_readers_language(cast, api_as, make_check):
    check = make_check("emails present")
    client = api_as(cast.author)
    run_id = _finish(client, [check], {check: {"status": "ok", "statistic": 0}})

    chinese = client.get(f"/api/v1/runs/{run_id}/", **CHINESE).json()["results"][0]
    english = client.get(f"/api/v1/runs/{run_id}/").json()["results"][0]
    assert (chinese["template_name"], english["template_name"]) == ("空值检测", "Null check")
    listed = client.get("/api/v1/results/", {"run": run_id}, **CHINESE).json()["results"][0]
    assert listed["template_name"] == "空值检测"


def test_an_engine_refusal_stored_in_english_reads_in_chinese_while_a_column_named_like_a_word_and_a_database_s_text_stay(
    cast, api_as, make_check
):
    """The engine records its refusals in English (dq_engine/words.py); a Chinese reader gets them
    in Chinese with the user's own text untouched: a column called `query` is not the word "query"."""
    refused = make_check("amounts filtered")
    unknown = make_check("queries counted")
    beside = make_check("emails present")
    client = api_as(cast.author)
    not_a_condition = "The filter must be a condition that is true or false for each row (for example amount > 0); found the number 1."
    unknown_column = "Unknown column in the filter: query. Known columns include: order_id, amount."
    database_said = "Table or view dq_test.gone not found; it was dropped, renamed and moved, or never created."
    run_id = _finish(
        client,
        [refused, unknown, beside],
        {
            refused: {"status": "error", "message": not_a_condition},
            unknown: {"status": "error", "message": unknown_column},
            beside: {"status": "error", "message": database_said},
        },
    )

    chinese = {r["check_name"]: r for r in client.get(f"/api/v1/runs/{run_id}/", **CHINESE).json()["results"]}
    english = {r["check_name"]: r for r in client.get(f"/api/v1/runs/{run_id}/").json()["results"]}
    assert chinese["amounts filtered"]["message"] == (
        "过滤条件必须是对每一行为真或假的条件（例如 amount > 0）；发现的是 数字 1。"
    )
    assert chinese["queries counted"]["message"] == "过滤条件中有未知字段：query。已知字段包括：order_id, amount。"
    # What a database said stays as it said it, though "… or …" and "… and …" have a fragment's shape.
    assert chinese["emails present"]["message"] == database_said
    assert english["amounts filtered"]["message"] == not_a_condition
    assert english["queries counted"]["message"] == unknown_column
    assert Result.objects.get(run_id=run_id, check_version__name="amounts filtered").message == not_a_condition


def test_what_the_duckdb_engine_really_writes_for_a_refused_filter_and_an_unknown_column_reads_in_chinese(
    parquet_dir,
):
    """The engine's own document, not a hand-written message: a batch whose filter stacks a DROP
    TABLE, and a check on a column the files lack beside a healthy row count."""
    from django.utils import translation

    import dq_engine
    from executions.stored_words import reworded

    orders = {"kind": "file", "format": "parquet", "path": str(parquet_dir / "orders")}
    spec = {
        "run_id": "words",
        "sources": {"orders": orders},
        "batches": {
            "dropping": {"source": "orders", "engine": "duckdb", "filter": "1=1; DROP TABLE x"},
            "all": {"source": "orders", "engine": "duckdb"},
        },
        "checks": [
            {"id": "refused", "name": "refused", "batch": "dropping", "metric": {"kind": "row_count"}},
            {
                "id": "typo",
                "name": "typo",
                "batch": "all",
                "metric": {"kind": "conditional_count", "predicate": "null_or_empty", "column": "stauts"},
            },
            {"id": "rows", "name": "rows", "batch": "all", "metric": {"kind": "row_count"}},
        ],
    }
    checks = dq_engine.run(spec, spark=lambda: pytest.fail("Spark must not start"))["checks"]

    assert checks["rows"] == {**checks["rows"], "status": "ok", "statistic": 3}
    refused, typo = checks["refused"]["message"], checks["typo"]["message"]
    assert refused.startswith("The filter of batch dropping was refused: ")
    assert refused.endswith("The filter must be a single boolean expression; found 2 statements.")
    assert typo.startswith("Unknown column 'stauts'; the batch has the columns ")
    with translation.override("zh-hans"):
        assert reworded(refused).startswith("批次 dropping 的过滤条件被拒绝：")
        assert reworded(refused).endswith("过滤条件必须是单个布尔表达式；发现了 2 条语句。")
        assert reworded(typo).startswith("未知字段 'stauts'；该批次的字段有 ")
        assert "order_id" in reworded(typo)


def test_the_run_page_says_why_each_batch_got_its_engine_in_the_readers_language(cast, api_as, make_check):
    check = make_check("emails present")
    client = api_as(cast.author)
    run_id = client.post("/api/v1/runs/", {"checks": [check]}, format="json").json()["id"]

    (chinese,) = client.get(f"/api/v1/runs/{run_id}/", **CHINESE).json()["batches"].values()
    (english,) = client.get(f"/api/v1/runs/{run_id}/").json()["batches"].values()
    assert english["engine_reason"] == "auto: a table in one database, computed by the database itself"
    assert chinese["engine_reason"] == "自动：同一数据库中的表，由数据库自身计算"
