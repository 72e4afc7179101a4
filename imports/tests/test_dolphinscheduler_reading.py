"""The export reader on its own (no database): Quartz crons, enum lists, mixed spellings."""

from __future__ import annotations

import pytest

from imports import dolphinscheduler as ds

from .conftest import export_data


@pytest.mark.parametrize(
    ("quartz", "cron"),
    [
        ("0 0 2 * * ? *", "0 2 * * *"),
        ("0 0 2 * * ?", "0 2 * * *"),
        ("0 15 10 ? * MON-FRI", "15 10 * * MON-FRI"),
        ("0 30 6 ? * 2-6 *", "30 6 * * 1-5"),
        ("0 0 12 ? * 1,7", "0 12 * * 0,6"),
        ("0 0/5 * * * ? *", "0/5 * * * *"),
        ("0 0 0 1 * ? *", "0 0 1 * *"),
        ("0 0 8 ? * 2/2", "0 8 * * 1/2"),
        ("0 0 9 ? * MON-WED", "0 9 * * MON-WED"),  # the W of WED is a name, not Quartz's W
    ],
)
def test_a_quartz_cron_becomes_the_five_field_cron_that_fires_at_the_same_times(quartz, cron):
    assert ds.quartz_to_cron(quartz) == cron


@pytest.mark.parametrize(
    ("quartz", "why"),
    [
        ("*/30 * * * * ? *", "fires at seconds"),
        ("0 0 2 * * ? 2025", "limited to the years"),
        ("0 0 2 L * ? *", "L, W or #"),
        ("0 0 2 ? * 6#3", "L, W or #"),
        ("0 2 * * *", "six or seven fields"),
    ],
)
def test_a_quartz_cron_this_platform_cannot_express_is_refused_with_why(quartz, why):
    with pytest.raises(ValueError, match=why):
        ds.quartz_to_cron(quartz)


def test_an_enum_list_reads_quoted_texts_and_bare_numbers():
    assert ds.parse_enum_list("'paid','shipped', 'void'") == ["paid", "shipped", "void"]
    assert ds.parse_enum_list("1, 2,3.5") == [1, 2, 3.5]
    assert ds.parse_enum_list("'it''s', \"a,b\"") == ["it's", "a,b"]
    with pytest.raises(ValueError, match="quote texts"):
        ds.parse_enum_list("paid, void")
    with pytest.raises(ValueError, match="empty"):
        ds.parse_enum_list("")


def test_the_same_task_reads_the_same_with_numbers_and_with_numeric_strings():
    task = export_data()[0]["taskDefinitionList"][0]
    as_strings = {k: str(v) for k, v in task["taskParams"]["ruleInputParameter"].items()}
    twin = {**task, "taskParams": {**task["taskParams"], "ruleId": "1", "ruleInputParameter": as_strings}}

    numbers = ds.read_export([{"processDefinition": {"name": "a"}, "taskDefinitionList": [task]}])
    strings = ds.read_export([{"processDefinition": {"name": "a"}, "taskDefinitionList": [twin]}])

    assert numbers.tasks[0].params == strings.tasks[0].params
    assert numbers.tasks[0].params["operator"] == "le" and numbers.tasks[0].ds_datasources == {"src_datasource_id": "1"}


def test_a_length_check_without_logic_operator_compares_with_equals_as_dolphinscheduler_did():
    task = export_data()[1]["taskDefinitionList"][0]
    given = {k: v for k, v in task["taskParams"]["ruleInputParameter"].items() if k != "logic_operator"}
    task = {**task, "taskParams": {**task["taskParams"], "ruleInputParameter": given}}

    read = ds.read_export([{"processDefinition": {"name": "a"}, "taskDefinitionList": [task]}]).tasks[0]

    assert read.params["logic_operator"] == "=" and "compared lengths with '='" in read.notes[0]


def test_an_export_nested_too_deeply_or_too_large_is_refused():
    deep: list = []
    for _ in range(ds.MAX_DEPTH + 1):
        deep = [deep]
    with pytest.raises(ds.ExportInvalid, match="nested more than"):
        ds.read_export(deep)
    with pytest.raises(ds.ExportInvalid, match="larger than"):
        ds.load_json(b" " * (ds.MAX_EXPORT_BYTES + 1))


def test_checks_take_their_task_names_and_the_workflow_name_only_when_two_workflows_share_one():
    workflows = export_data()[:2]
    workflows[1]["taskDefinitionList"][0]["name"] = "orders copied"  # also a task of daily_orders_dq

    names = [t.check_name for t in ds.read_export(workflows).data_quality]

    assert "orders copied (daily_orders_dq)" in names and "orders copied (customer_checks)" in names
    assert "big orders" in names and len(set(names)) == len(names)
