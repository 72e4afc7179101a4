"""The engine's refusals (dq_engine imports no Django and words them in English) reach a person
who saves a check in the language of the request: SQL safety refusing a filter, a check.yaml naming
a column the table lacks, a contract.yaml that is not one, the anomaly knobs that do not fit."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db
CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-Hans"}


def _save(api, template: str, params: dict, **headers):
    return api.post(
        "/api/v1/checks/",
        {"name": f"{template} in words", "template": template, "params": params},
        format="json",
        **headers,
    )


def test_a_filter_that_stacks_a_drop_table_is_refused_in_chinese_and_in_the_same_english_as_before_without(
    cast, api_as, valid_params
):
    params = {**valid_params["null_check"], "src_filter": "1=1; DROP TABLE x"}
    chinese = _save(api_as(cast.author), "null_check", params, **CHINESE)
    english = _save(api_as(cast.author), "null_check", params)

    assert chinese.status_code == english.status_code == 400
    assert chinese.json()["fields"]["params"]["src_filter"] == ["过滤条件必须是单个布尔表达式；发现了 2 条语句。"]
    assert english.json()["fields"]["params"]["src_filter"] == [
        "The filter must be a single boolean expression; found 2 statements."
    ]


def test_a_filter_calling_a_function_off_the_allow_list_names_the_filter_and_the_function_in_chinese(
    cast, api_as, valid_params
):
    params = {**valid_params["null_check"], "src_filter": "reflect('java.lang.Runtime', 'exec', 'id') IS NOT NULL"}
    chinese = _save(api_as(cast.author), "null_check", params, **CHINESE)
    english = _save(api_as(cast.author), "null_check", params)

    assert chinese.status_code == english.status_code == 400
    assert chinese.json()["fields"]["params"]["src_filter"] == [
        "过滤条件中不允许使用函数 `reflect`：数据质量 SQL 只能调用纯标量函数、聚合函数和窗口函数"
        "（不能读取文件或 URL、调用 Java 或生成行）。"
    ]
    assert english.json()["fields"]["params"]["src_filter"] == [
        "function `reflect` is not allowed in the filter: data-quality SQL may call only pure scalar, aggregate and "
        "window functions (nothing that reads files or URLs, calls Java or generates rows)."
    ]


def test_a_filter_naming_a_column_the_table_lacks_lists_the_known_columns_in_chinese(cast, api_as, valid_params):
    params = {**valid_params["null_check"], "src_filter": "amonut > 0"}
    (message,) = _save(api_as(cast.author), "null_check", params, **CHINESE).json()["fields"]["params"]["src_filter"]

    assert message.startswith("过滤条件中有未知字段：amonut。已知字段包括：")
    assert "amount" in message  # the catalog's column, so the typo shows


def test_a_check_yaml_with_an_unknown_column_and_a_misspelt_function_reports_both_at_their_lines_in_chinese(
    cast, api_as, valid_params
):
    params = {**valid_params["row_level_check"], "checks_yaml": "checks:\n  - stauts == paid\n"}
    chinese = _save(api_as(cast.author), "row_level_check", params, **CHINESE)
    english = _save(api_as(cast.author), "row_level_check", params)

    assert chinese.status_code == english.status_code == 400
    (message,) = chinese.json()["fields"]["params"]["checks_yaml"]
    assert message.startswith("第 2 行：checks[0].fields：未知字段 `stauts`；该表的字段有：")
    assert "amount" in message
    (said,) = english.json()["fields"]["params"]["checks_yaml"]
    assert said.startswith("line 2: checks[0].fields: unknown column `stauts`; the table has: ")

    misspelt = {**params, "checks_yaml": "checks:\n  - amount >= 0\n  - fn: notNul\n    fields: [amount]\n"}
    body = _save(api_as(cast.author), "row_level_check", misspelt, **CHINESE).json()
    assert body["fields"]["params"]["checks_yaml"] == [
        "第 3 行：checks[1].fn：未知函数 `notNul`；您是否想写 `notNull`？"
    ]


def test_a_contract_yaml_listing_a_column_twice_is_refused_in_chinese(cast, api_as, valid_params):
    contract = "columns:\n  - {name: order_id, type: integer}\n  - {name: order_id, type: intger}\n"
    params = {**valid_params["schema_contract_check"], "contract_yaml": contract}
    body = _save(api_as(cast.author), "schema_contract_check", params, **CHINESE).json()

    assert body["fields"]["params"]["contract_yaml"] == [
        "第 3 行：columns[1].type：未知类型 `intger`；您是否想写 `integer`？"
    ]


def test_a_value_range_whose_maximum_is_below_its_minimum_is_refused_in_chinese(cast, api_as, valid_params):
    params = {**valid_params["value_range_check"], "min_value": 10, "max_value": 1}
    chinese = _save(api_as(cast.author), "value_range_check", params, **CHINESE)
    english = _save(api_as(cast.author), "value_range_check", params)

    assert chinese.json()["fields"]["params"]["max_value"] == ["最大值不能小于最小值。"]
    assert english.json()["fields"]["params"]["max_value"] == ["The maximum must not be below the minimum."]


def test_anomaly_knobs_whose_fail_band_is_narrower_than_the_warn_band_are_refused_in_chinese(
    cast, api_as, valid_params
):
    params = {
        **valid_params["table_count_check"],
        "comparison_type": "anomaly",
        "operator": "le",
        "threshold": 0,
        "anomaly_k_warn": 4,
        "anomaly_k_fail": 3,
    }
    chinese = _save(api_as(cast.author), "table_count_check", params, **CHINESE)
    english = _save(api_as(cast.author), "table_count_check", params)

    assert chinese.status_code == english.status_code == 400
    assert chinese.json()["fields"]["params"]["anomaly_k_fail"] == ["不小于告警区间的 k，不超过 100。"]
    assert english.json()["fields"]["params"]["anomaly_k_fail"] == ["At least the warn band's k, at most 100."]
