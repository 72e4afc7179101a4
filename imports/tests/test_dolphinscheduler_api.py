"""POST /api/v1/imports/dolphinscheduler/ with a hand-written DolphinScheduler 3.2.2 export
(ds_export_3_2_2.json: three workflows, every rule id 1-10, numbers and numeric strings for the same
keys, one taskParams as a JSON string, SHELL and SQL tasks, and broken tasks) against real tables."""

from __future__ import annotations

import json
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from rules.models import Check
from watching.models import Schedule

from .conftest import export_data

pytestmark = pytest.mark.django_db
URL = "/api/v1/imports/dolphinscheduler/"
BROKEN = {"3001", "3002", "3003", "3004", "3005"}


def _post(client, **body):
    return client.post(URL, {"export": export_data(), **body}, format="json")


def _expected(warehouse, mirror) -> dict[str, tuple[str, str, dict]]:
    """Each importable task's check, written by hand from the fixture: {code: (name, template, params)}."""
    src = {"src_datasource_id": warehouse.pk, "src_table": "ds_import.orders"}
    fixed = {"comparison_type": "fix_value"}
    return {
        "1001": (
            "orders email not null",
            "null_check",
            {
                **src,
                "src_field": "customer_email",
                "check_type": "statistics_minus_comparison",
                "operator": "le",
                "threshold": 0,
                "failure_strategy": "block",
                **fixed,
                "comparison_value": 0,
            },
        ),
        "1002": (
            "big orders",
            "custom_sql",
            {
                **src,
                "src_filter": "status = 'paid'",
                "statistics_name": "big",
                "statistics_execute_sql": "SELECT count(*) AS big FROM ${src_table} WHERE amount > 50",
                "check_type": "statistics_minus_comparison",
                "operator": "eq",
                "threshold": 0,
                "failure_strategy": "alert",
                **fixed,
                "comparison_value": 4,
            },
        ),
        "1003": (
            "orders copied",
            "multi_table_accuracy",
            {
                **src,
                "target_datasource_id": mirror.pk,
                "target_table": "ds_import.orders_copy",
                "mapping_columns": [{"src_field": "order_id", "operator": "=", "target_field": "order_id"}],
                "check_type": "statistics_minus_comparison",
                "operator": "le",
                "threshold": 0,
                "failure_strategy": "alert",
                **fixed,
                "comparison_value": 0,
            },
        ),
        "1004": (
            "copy counts match",
            "multi_table_value_comparison",
            {
                **src,
                "statistics_name": "src_total",
                "statistics_execute_sql": "SELECT count(*) AS src_total FROM ${src_table}",
                "target_datasource_id": mirror.pk,
                "target_table": "ds_import.orders_copy",
                "comparison_name": "target_total",
                "comparison_execute_sql": "SELECT count(*) AS target_total FROM ${target_table}",
                "check_type": "statistics_minus_comparison",
                "operator": "eq",
                "threshold": 0,
                "failure_strategy": "block",
            },
        ),
        "2001": (
            "email length",
            "field_length_check",
            {
                **src,
                "src_field": "customer_email",
                "logic_operator": ">",
                "field_length": 12,
                "check_type": "statistics_minus_comparison",
                "operator": "le",
                "threshold": 1,
                "failure_strategy": "alert",
                **fixed,
                "comparison_value": 0,
            },
        ),
        "2002": (
            "order ids unique",
            "uniqueness_check",
            {
                **src,
                "src_field": "order_id",
                "check_type": "statistics_minus_comparison",
                "operator": "le",
                "threshold": 0,
                "failure_strategy": "block",
                **fixed,
                "comparison_value": 0,
            },
        ),
        "2003": (
            "email format",
            "regexp_check",
            {
                **src,
                "src_field": "customer_email",
                "regexp_pattern": r"^[^@]+@[^@]+\.[a-z]+$",
                "check_type": "statistics_comparison_percentage",
                "operator": "lt",
                "threshold": 10.5,
                "failure_strategy": "alert",
                "comparison_type": "src_table_total_rows",
            },
        ),
        "2004": (
            "orders on time",
            "timeliness_check",
            {
                **src,
                "src_field": "created_text",
                "begin_time": "2026-11-01 00:00:00",
                "deadline": "2026-11-30 23:59:59",
                "datetime_format": "yyyy/MM/dd HH:mm:ss",
                "check_type": "statistics_comparison_difference_comparison_percentage",
                "operator": "ge",
                "threshold": 80,
                "failure_strategy": "alert",
                "comparison_type": "src_table_total_rows",
            },
        ),
        "2005": (
            "statuses known",
            "enumeration_check",
            {
                **src,
                "src_field": "status",
                "enum_list": ["paid", "shipped", "void"],
                "check_type": "statistics_minus_comparison",
                "operator": "le",
                "threshold": 2,
                "failure_strategy": "alert",
                **fixed,
                "comparison_value": 0,
            },
        ),
        "2006": (
            "orders have rows",
            "table_count_check",
            {
                **src,
                "check_type": "statistics_minus_comparison",
                "operator": "eq",
                "threshold": 0,
                "failure_strategy": "block",
                **fixed,
                "comparison_value": 10,
            },
        ),
        "3006": (
            "rows like last week",
            "table_count_check",
            {
                "src_datasource_id": warehouse.pk,
                "src_table": "ds_import.orders_copy",  # no src_database: the one table of that name
                "check_type": "statistics_comparison_difference_comparison_percentage",
                "operator": "le",
                "threshold": 20,
                "failure_strategy": "alert",
                "comparison_type": "weekly_avg",
            },
        ),
    }


def test_a_dolphinscheduler_export_with_every_rule_imports_every_param(cast, api_as, shop):
    warehouse, mirror = shop
    expected = _expected(warehouse, mirror)

    response = _post(api_as(cast.author), datasource_map={"1": "warehouse", "2": str(mirror.pk)}, accept_partial=True)

    assert response.status_code == 201, response.json()
    body = response.json()
    imported = {item["task_code"]: item for item in body["imported"]}
    assert set(imported) == set(expected)
    for code, (name, template, params) in expected.items():
        check = Check.objects.get(pk=imported[code]["check_id"])
        assert (check.name, check.template.key, check.params) == (name, template, params), code
        assert check.owner == cast.author and imported[code]["link"] == f"/checks/{check.pk}"
        assert sorted(t.name for t in check.tags.all()) == ["dolphinscheduler"]
    assert Check.objects.count() == len(expected)
    assert {rule for _n, rule, _p in expected.values()} >= {
        "null_check",
        "custom_sql",
        "multi_table_accuracy",
        "multi_table_value_comparison",
        "field_length_check",
        "uniqueness_check",
        "regexp_check",
        "timeliness_check",
        "enumeration_check",
        "table_count_check",
    }
    assert "src_filter 'amount > 0' left out" in imported["2002"]["notes"][0]
    assert body["other_tasks"]["count"] == 3 and body["other_tasks"]["by_type"] == {"SHELL": 2, "SQL": 1}


def test_each_broken_task_is_skipped_with_a_reason_naming_what_to_fix(cast, api_as, shop):
    warehouse, mirror = shop

    body = _post(api_as(cast.author), datasource_map={"1": warehouse.pk, "2": mirror.pk}, accept_partial=True).json()

    skipped = {item["task_code"]: item for item in body["skipped"]}
    assert set(skipped) == BROKEN
    assert skipped["3001"]["task_name"] == "mystery rule" and "Rule id 42" in skipped["3001"]["reason"]
    assert skipped["3002"]["fields"] == {
        "src_datasource_id": [
            "DolphinScheduler datasource 9 is not mapped to a datasource here; map it (e.g. 9=warehouse) "
            "to import this task."
        ]
    }
    assert skipped["3003"]["fields"] == {
        "src_table": ["Table 'ds_import.orders_2019' does not exist in datasource 'warehouse'."]
    }
    assert list(skipped["3004"]["fields"]) == ["src_field"]
    assert "Column 'fax_number' does not exist in 'ds_import.orders'" in skipped["3004"]["reason"]
    assert skipped["3005"]["fields"] == {"threshold": ["Threshold must be a number; got 'ten'."]}
    assert all(item["workflow"] == "legacy_checks" for item in skipped.values())


def test_one_broken_task_refuses_the_whole_import_and_nothing_is_created(cast, api_as, shop):
    warehouse, mirror = shop

    response = _post(api_as(cast.author), datasource_map={"1": warehouse.pk, "2": mirror.pk}, create_schedules=True)

    assert response.status_code == 400
    body = response.json()
    assert set(body["fields"]["skipped"]) == BROKEN
    assert body["message"].startswith("Nothing was imported: 5 data-quality tasks cannot be imported")
    assert body["result"]["applicable"] is False and len(body["result"]["imported"]) == 11
    assert Check.objects.count() == 0 and Schedule.objects.count() == 0


def test_a_dry_run_creates_nothing_and_shows_what_would_happen(cast, api_as, shop):
    warehouse, mirror = shop
    client = api_as(cast.author)

    partial = _post(
        client,
        datasource_map={"1": warehouse.pk, "2": mirror.pk},
        dry_run=True,
        accept_partial=True,
        create_schedules=True,
    )
    whole = _post(client, datasource_map={"1": warehouse.pk, "2": mirror.pk}, dry_run=True)

    assert partial.status_code == 200 and whole.status_code == 200
    assert partial.json()["applicable"] is True and whole.json()["applicable"] is False
    assert len(partial.json()["imported"]) == 11 and len(partial.json()["skipped"]) == 5
    assert all(item["check_id"] is None for item in partial.json()["imported"])
    assert partial.json()["summary"].startswith("Dry run: checks that would be imported: 11,")
    assert Check.objects.count() == 0 and Schedule.objects.count() == 0


def test_workflow_schedules_become_schedules_that_run_at_the_same_wall_clock_time(cast, api_as, shop):
    warehouse, mirror = shop

    body = _post(
        api_as(cast.author),
        datasource_map={"1": warehouse.pk, "2": mirror.pk},
        accept_partial=True,
        create_schedules=True,
    ).json()

    answers = {s["workflow"]: s for s in body["schedules"]}
    daily = Schedule.objects.get(pk=answers["daily_orders_dq"]["schedule_id"])
    assert (daily.cron, daily.timezone, daily.enabled) == ("0 2 * * *", "Asia/Shanghai", True)
    shanghai = ZoneInfo("Asia/Shanghai")
    slots = daily.next_slots(3, after=datetime(2026, 12, 1, 12, 0, tzinfo=shanghai))
    assert [s.astimezone(shanghai).replace(tzinfo=None) for s in slots] == [
        datetime(2026, 12, 2, 2, 0),
        datetime(2026, 12, 3, 2, 0),
        datetime(2026, 12, 4, 2, 0),
    ]
    assert sorted(c.name for c in daily.checks.all()) == sorted(
        ["orders email not null", "big orders", "orders copied", "copy counts match"]
    )
    # Quartz 2-6 is Monday to Friday; the workflow's schedule was offline, so this one is paused.
    weekdays = Schedule.objects.get(pk=answers["customer_checks"]["schedule_id"])
    assert (weekdays.cron, weekdays.timezone, weekdays.enabled) == ("30 6 * * 1-5", "Europe/Berlin", False)
    berlin = weekdays.next_slots(5, after=datetime(2026, 12, 5, 12, 0, tzinfo=ZoneInfo("Europe/Berlin")))
    assert [s.strftime("%a %H:%M") for s in berlin] == ["Mon 06:30", "Tue 06:30", "Wed 06:30", "Thu 06:30", "Fri 06:30"]
    legacy = answers["legacy_checks"]
    assert legacy["created"] is False and legacy["cron"] is None
    assert legacy["reason"] == "'*/30 * * * * ? *' fires at seconds '*/30'; schedules here fire on whole minutes."
    assert Schedule.objects.count() == 2


def test_schedules_are_created_only_when_asked(cast, api_as, shop):
    warehouse, mirror = shop

    body = _post(api_as(cast.author), datasource_map={"1": warehouse.pk, "2": mirror.pk}, accept_partial=True).json()

    assert Schedule.objects.count() == 0
    assert all(not s["created"] for s in body["schedules"])


def test_importing_from_3_1_negates_each_operator_and_says_so(cast, api_as, shop):
    warehouse, mirror = shop
    client = api_as(cast.author)
    mapping = {"1": warehouse.pk, "2": mirror.pk}

    modern = _post(client, datasource_map=mapping, dry_run=True, accept_partial=True).json()
    legacy = _post(client, datasource_map=mapping, dry_run=True, accept_partial=True, ds_version="3.1").json()

    negation = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le"}
    modern_ops = {i["task_code"]: i["params"]["operator"] for i in modern["imported"]}
    legacy_ops = {i["task_code"]: i["params"]["operator"] for i in legacy["imported"]}
    assert modern_ops["1001"] == "le" and legacy_ops["1001"] == "gt"  # DS operator 2 (<=)
    assert legacy_ops == {code: negation[op] for code, op in modern_ops.items()}
    assert legacy["ds_version"] == "3.1" and "3.1.x" in legacy["semantics"] and "negated" in legacy["semantics"]
    assert modern["ds_version"] == "3.2" and "passes when" in modern["semantics"]
    strip = {"operator"}
    assert [{k: v for k, v in i["params"].items() if k not in strip} for i in legacy["imported"]] == [
        {k: v for k, v in i["params"].items() if k not in strip} for i in modern["imported"]
    ]


def test_a_user_who_is_not_signed_in_cannot_import(client, shop):
    response = client.post(
        URL, {"export": export_data(), "datasource_map": {"1": "warehouse"}}, content_type="application/json"
    )

    assert response.status_code == 401
    assert Check.objects.count() == 0


def test_a_user_without_rights_on_a_mapped_datasource_gets_a_400_naming_it(cast, api_as, shop):
    warehouse, mirror = shop

    response = _post(api_as(cast.outsider), datasource_map={"1": warehouse.pk, "2": "mirror"}, accept_partial=True)

    assert response.status_code == 400
    assert response.json()["fields"] == {
        "datasource_map": {"2": ["Datasource 'mirror' does not exist or you may not create checks on it."]}
    }
    assert Check.objects.count() == 0


def test_bad_input_is_a_400_naming_the_field(cast, api_as, shop):
    client = api_as(cast.author)
    deep: list = []
    for _ in range(40):
        deep = [deep]

    cases = {
        "no export": client.post(URL, {"datasource_map": {}}, format="json"),
        "not json": client.post(URL, {"export": "[{oops"}, format="json"),
        "too deep": client.post(URL, {"export": deep}, format="json"),
        "not workflows": client.post(URL, {"export": {"hello": 1}}, format="json"),
        "bad version": _post(client, ds_version="4.0"),
        "bad map": _post(client, datasource_map={"1": ["warehouse"]}),
        "map to nothing": _post(client, datasource_map={"1": "no-such-source"}),
        "map key": _post(client, datasource_map={"one": "warehouse"}),
    }

    fields = {name: (r.status_code, list(r.json()["fields"])) for name, r in cases.items()}
    assert fields == {
        "no export": (400, ["export"]),
        "not json": (400, ["export"]),
        "too deep": (400, ["export"]),
        "not workflows": (400, ["export"]),
        "bad version": (400, ["ds_version"]),
        "bad map": (400, ["datasource_map"]),
        "map to nothing": (400, ["datasource_map"]),
        "map key": (400, ["datasource_map"]),
    }
    assert "nested more than" in cases["too deep"].json()["fields"]["export"][0]
    assert Check.objects.count() == 0


def test_the_export_may_be_uploaded_as_a_file(cast, api_as, shop):
    warehouse, mirror = shop
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("workflows.json", json.dumps(export_data()).encode(), "application/json")
    response = api_as(cast.author).post(
        URL,
        {
            "file": upload,
            "datasource_map": json.dumps({"1": "warehouse", "2": mirror.pk}),
            "accept_partial": "true",
        },
        format="multipart",
    )

    assert response.status_code == 201, response.json()
    assert len(response.json()["imported"]) == 11 and Check.objects.count() == 11


def test_a_table_named_without_a_database_found_in_several_schemas_is_skipped_naming_them(
    cast, api_as, shop, pg_server
):
    warehouse, _mirror = shop
    export = export_data()
    task = export[1]["taskDefinitionList"][5]  # orders have rows
    del task["taskParams"]["ruleInputParameter"]["src_database"]  # `orders` is in dq_test and ds_import

    body = (
        api_as(cast.author)
        .post(
            URL, {"export": [export[1]], "datasource_map": {"1": warehouse.pk}, "accept_partial": True}, format="json"
        )
        .json()
    )

    (skipped,) = body["skipped"]
    assert skipped["task_code"] == "2006"
    assert skipped["fields"] == {
        "src_table": [
            "The export names table 'orders' without a database, and datasource 'warehouse' has several: "
            "dq_test.orders, ds_import.orders. Add the database (src_database) to the task in the export."
        ]
    }
    assert len(body["imported"]) == 5
