"""Rules answer in Simplified Chinese when asked: validation messages, the form-create JSON, the
template catalog and comparison types, while the catalog itself stays stored (and versioned) in
English. The expected words are DolphinScheduler's for its rules and fields."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import translation

from rules.models import ComparisonType, RuleTemplate, TemplateVersion

pytestmark = pytest.mark.django_db
CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-Hans"}
ROOT = Path(__file__).resolve().parents[2]

# DolphinScheduler's names of its ten rules (its data-quality rule list in Chinese).
DOLPHINSCHEDULER_RULES = {
    "null_check": "空值检测",
    "custom_sql": "自定义SQL",
    "multi_table_accuracy": "多表准确性",
    "multi_table_value_comparison": "两表值比对",
    "field_length_check": "字段长度校验",
    "uniqueness_check": "唯一性校验",
    "regexp_check": "正则表达式",
    "timeliness_check": "及时性校验",
    "enumeration_check": "枚举值校验",
    "table_count_check": "表行数校验",
}


def _bad_null_check(api, valid_params, **headers):
    params = {**valid_params["null_check"], "threshold": "abc", "src_field": "no_such_column"}
    return api.post(
        "/api/v1/checks/",
        {"name": "orders nulls", "template": "null_check", "params": params},
        format="json",
        **headers,
    )


def test_a_check_with_a_bad_threshold_and_a_missing_column_is_refused_field_by_field_in_chinese(
    cast, api_as, valid_params
):
    response = _bad_null_check(api_as(cast.author), valid_params, **CHINESE)
    assert response.status_code == 400 and response["Content-Language"] == "zh-hans"
    body = response.json()
    assert body["fields"]["params"]["threshold"] == ["阈值必须是数字；实际为 'abc'。"]
    (column,) = body["fields"]["params"]["src_field"]
    assert column.startswith("'dq_test.orders' 中不存在列 'no_such_column'；它有这些列：")
    assert "customer_email" in column  # the columns it has, named as the catalog names them
    assert body["message"] == "部分字段无效：params.src_field, params.threshold。"


def test_the_same_bad_check_asked_without_a_language_is_refused_in_english(cast, api_as, valid_params):
    body = _bad_null_check(api_as(cast.author), valid_params).json()
    assert body["fields"]["params"]["threshold"] == ["Threshold must be a number; got 'abc'."]
    assert body["fields"]["params"]["src_field"][0].startswith(
        "Column 'no_such_column' does not exist in 'dq_test.orders'; it has: "
    )
    assert body["message"] == "Some fields are not valid: params.src_field, params.threshold."


def _form(api, key, **headers):
    response = api.get(f"/api/v1/rule-templates/{key}/form/", **headers)
    assert response.status_code == 200
    return {rule["field"]: rule for rule in response.json()}


def test_the_null_checks_form_in_chinese_carries_dolphinschedulers_titles_and_check_types(cast, api_as):
    form = _form(api_as(cast.author), "null_check", **CHINESE)
    titles = {field: rule["title"] for field, rule in form.items()}
    assert titles["src_datasource_id"] == "源数据源"
    assert titles["src_table"] == "源数据表"
    assert titles["src_filter"] == "源表过滤条件"
    assert titles["src_field"] == "源表检测列"
    assert titles["check_type"] == "检测类型"
    assert titles["operator"] == "操作符"
    assert titles["threshold"] == "阈值"
    assert titles["failure_strategy"] == "失败策略"
    assert titles["comparison_type"] == "比对类型"
    check_types = {o["value"]: o["label"] for o in form["check_type"]["options"]}
    assert check_types == {
        "comparison_minus_statistics": "期望值-实际值",
        "statistics_minus_comparison": "实际值-期望值",
        "statistics_comparison_percentage": "实际值/期望值×100%",
        "statistics_comparison_difference_comparison_percentage": "|期望值-实际值|/期望值×100%",
    }
    assert {o["value"]: o["label"] for o in form["failure_strategy"]["options"]} == {"alert": "告警", "block": "阻断"}
    comparisons = {o["value"]: o["label"] for o in form["comparison_type"]["options"]}
    assert comparisons["fix_value"] == "固定值" and comparisons["daily_avg"] == "日均值"
    assert comparisons["weekly_avg"] == "周均值" and comparisons["monthly_avg"] == "月均值"
    assert comparisons["last_7_day_avg"] == "最近7天均值" and comparisons["src_table_total_rows"] == "源表总行数"
    assert form["src_datasource_id"]["validate"][0]["message"] == "请选择源数据源：此项必填。"
    assert form["threshold"]["validate"][-1]["message"] == "阈值必须是数字。"
    assert form["src_table"]["props"]["placeholder"] == "请选择数据表"
    assert "${biz_date}" in form["src_filter"]["info"] and "业务日期" in form["src_filter"]["info"]


def test_the_null_checks_form_without_a_language_stays_english(cast, api_as):
    form = _form(api_as(cast.author), "null_check")
    assert form["src_datasource_id"]["title"] == "Source datasource"
    assert [o["label"] for o in form["failure_strategy"]["options"]] == ["Alert", "Block"]


def test_the_accuracy_forms_mapping_rows_and_the_length_operators_are_chinese_too(cast, api_as):
    accuracy = _form(api_as(cast.author), "multi_table_accuracy", **CHINESE)
    assert accuracy["mapping_columns"]["title"] == "映射列"
    assert [r["title"] for r in accuracy["mapping_columns"]["props"]["rule"]] == ["源表检测列", "匹配", "目标表列"]
    assert accuracy["target_filter"]["title"] == "目标表过滤条件"
    comparisons = {o["value"]: o["label"] for o in accuracy["comparison_type"]["options"]}
    assert comparisons["target_table_total_rows"] == "目标表总行数"
    length = _form(api_as(cast.author), "field_length_check", **CHINESE)
    assert length["field_length"]["title"] == "字段长度限制" and length["logic_operator"]["title"] == "逻辑操作符"
    assert {o["value"]: o["label"] for o in length["logic_operator"]["options"]}[">"] == ">（长于）"


def test_the_template_list_in_chinese_names_dolphinschedulers_rules_in_its_words(cast, api_as):
    response = api_as(cast.author).get("/api/v1/rule-templates/?page_size=100", **CHINESE)
    templates = {t["key"]: t for t in response.json()["results"]}
    assert {key: templates[key]["name"] for key in DOLPHINSCHEDULER_RULES} == DOLPHINSCHEDULER_RULES
    null_check = templates["null_check"]
    assert null_check["description"] == "统计该列为 NULL 的行（文本列还包括空字符串）。"
    assert {i["field"]: i["title"] for i in null_check["inputs"]}["src_field"] == "源表检测列"
    timeliness = {i["field"]: i["title"] for i in templates["timeliness_check"]["inputs"]}
    assert (timeliness["begin_time"], timeliness["deadline"], timeliness["datetime_format"]) == (
        "起始时间",
        "截止时间",
        "时间格式",
    )
    # a template's own override of an entry's title is translated as well
    assert {i["field"]: i["title"] for i in templates["freshness_check"]["inputs"]}["src_field"] == (
        "时间列（日期或时间戳）"
    )


def test_an_admin_saving_a_comparison_type_read_in_chinese_keeps_its_english_name(cast, api_as):
    api = api_as(cast.admin)
    shown = api.get("/api/v1/comparison-types/daily_avg/", **CHINESE).json()
    assert shown["name"] == "日均值"
    saved = api.put("/api/v1/comparison-types/daily_avg/", shown, format="json", **CHINESE)
    assert saved.status_code == 200 and saved.json()["name"] == "日均值"
    stored = ComparisonType.objects.get(key="daily_avg")
    assert stored.name == "Daily average"  # so English readers still read English, Chinese ones Chinese
    assert api.get("/api/v1/comparison-types/daily_avg/").json()["name"] == "Daily average"


def test_serving_the_catalog_in_chinese_leaves_every_template_definition_and_version_as_it_was(cast, api_as):
    before = dict(RuleTemplate.objects.values_list("key", "definition_hash"))
    versions = dict(RuleTemplate.objects.values_list("key", "version"))
    copies = TemplateVersion.objects.count()
    api = api_as(cast.author)
    with translation.override("zh-hans"):
        call_command("load_rule_catalog", verbosity=0)  # the catalog reloaded while Chinese is active
    for key in before:
        _form(api, key, **CHINESE)
    api.get("/api/v1/rule-templates/?page_size=100", **CHINESE)
    assert dict(RuleTemplate.objects.values_list("key", "definition_hash")) == before
    assert dict(RuleTemplate.objects.values_list("key", "version")) == versions
    assert TemplateVersion.objects.count() == copies
    assert RuleTemplate.objects.get(key="null_check").name == "Null check"  # stored in English


def test_the_catalog_messages_module_lists_the_catalog_as_it_is_now():
    spec = importlib.util.spec_from_file_location("catalog_messages_script", ROOT / "scripts" / "catalog_messages.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    written = (ROOT / "rules" / "catalog_messages.py").read_text(encoding="utf-8")
    assert written == script.module_text(), "run: .venv/bin/python scripts/catalog_messages.py"
    # every name and title the YAML holds is there for makemessages
    for text in (
        "Null check",
        "Source column",
        "Expected − Actual",
        "Daily average",
        "Time column (date or timestamp)",
    ):
        assert f'"{text}"' in written


def test_a_check_cloned_in_chinese_is_named_as_a_chinese_user_would_name_a_copy(cast, api_as, valid_params):
    api = api_as(cast.author)
    created = api.post(
        "/api/v1/checks/",
        {"name": "订单空值", "template": "null_check", "params": valid_params["null_check"]},
        format="json",
    ).json()
    first = api.post(f"/api/v1/checks/{created['id']}/clone/", **CHINESE).json()
    second = api.post(f"/api/v1/checks/{created['id']}/clone/", **CHINESE).json()
    third = api.post(f"/api/v1/checks/{created['id']}/clone/").json()
    assert (first["name"], second["name"], third["name"]) == (
        "订单空值（副本）",
        "订单空值（副本 2）",
        "订单空值 (copy)",
    )
