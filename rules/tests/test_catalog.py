"""The built-in catalog: loaded by migration, re-loadable, and guarded by the rule_json schema."""

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from rules.models import ComparisonType, InputEntry, RuleTemplate, TemplateInput

pytestmark = pytest.mark.django_db

BUILTIN = {
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
    "value_range_check",
    "column_aggregate_check",
    "row_level_check",
    "schema_contract_check",
    "freshness_check",
    "file_freshness_check",
    "schema_change_check",
}


def test_the_migration_loads_every_builtin_template_and_comparison_type():
    assert set(RuleTemplate.objects.values_list("key", flat=True)) == BUILTIN
    assert list(ComparisonType.objects.values_list("key", flat=True)) == [
        "fix_value",
        "daily_avg",
        "weekly_avg",
        "monthly_avg",
        "last_7_day_avg",
        "last_30_day_avg",
        "last_7_runs_3_sigma",
        "last_7_runs_20_pct",
        "anomaly",
        "src_table_total_rows",
        "target_table_total_rows",
    ]


def test_every_template_declares_a_fusable_metric_not_sql_text():
    kinds = {t.key: t.metric["kind"] for t in RuleTemplate.objects.all()}
    assert kinds["null_check"] == "conditional_count" and kinds["uniqueness_check"] == "duplicate_values"
    assert kinds["multi_table_accuracy"] == "unmatched_rows" and kinds["column_aggregate_check"] == "aggregate"
    for template in RuleTemplate.objects.all():
        assert "${" not in str(template.metric), template.key


def test_the_parameter_fields_keep_dolphinschedulers_names():
    fields = {e["field"] for e in RuleTemplate.objects.get(key="timeliness_check").resolved_inputs()}
    assert {
        "src_datasource_id",
        "src_table",
        "src_filter",
        "src_field",
        "begin_time",
        "deadline",
        "datetime_format",
        "check_type",
        "operator",
        "threshold",
        "failure_strategy",
        "comparison_type",
    } <= fields


def test_loading_the_catalog_again_duplicates_nothing_and_keeps_versions():
    before = (
        RuleTemplate.objects.count(),
        InputEntry.objects.count(),
        TemplateInput.objects.count(),
        ComparisonType.objects.count(),
        sorted(RuleTemplate.objects.values_list("key", "version")),
    )
    call_command("load_rule_catalog")
    call_command("load_rule_catalog")
    after = (
        RuleTemplate.objects.count(),
        InputEntry.objects.count(),
        TemplateInput.objects.count(),
        ComparisonType.objects.count(),
        sorted(RuleTemplate.objects.values_list("key", "version")),
    )
    assert after == before


@pytest.mark.parametrize(
    ("rule_json", "words"),
    [
        (
            {"statistic_name": "x", "metric": {"kind": "count_stars"}, "error_rows": "none", "comparison_types": []},
            "metric.kind",
        ),
        (
            {
                "statistic_name": "x",
                "metric": {"kind": "conditional_count", "predicate": "regexp_mismatch", "column_param": "src_field"},
                "error_rows": "none",
                "comparison_types": [],
            },
            "pattern_param",
        ),
        (
            {
                "statistic_name": "x",
                "metric": {"kind": "row_count"},
                "error_rows": "none",
                "comparison_types": ["hourly_avg"],
            },
            "hourly_avg",
        ),
        ({"metric": {"kind": "row_count"}, "error_rows": "none", "comparison_types": []}, "statistic_name"),
    ],
)
def test_a_broken_rule_json_is_refused_on_save_with_a_message(rule_json, words):
    template = RuleTemplate(
        key="broken",
        name="Broken",
        rule_type="single_table",
        dimension="validity",
        description="x",
        rule_json=rule_json,
    )
    with pytest.raises(ValidationError) as caught:
        template.save()
    assert words in str(caught.value)
    assert not RuleTemplate.objects.filter(key="broken").exists()


def test_an_admin_cannot_save_a_template_with_a_broken_rule_json(admin_client):
    response = admin_client.post(
        "/admin/rules/ruletemplate/add/",
        {
            "key": "mine",
            "name": "Mine",
            "rule_type": "single_table",
            "dimension": "validity",
            "description": "d",
            "rule_json": '{"statistic_name": "x", "metric": {"kind": "nope"}, "error_rows": "none", "comparison_types": []}',
            "template_inputs-TOTAL_FORMS": "0",
            "template_inputs-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 200 and b"metric.kind must be one of" in response.content
    assert not RuleTemplate.objects.filter(key="mine").exists()


def test_changing_a_templates_definition_moves_its_version_on():
    template = RuleTemplate.objects.get(key="null_check")
    version = template.version
    template.rule_json = {**template.rule_json, "comparison_types": ["fix_value"]}
    template.save()
    assert RuleTemplate.objects.get(key="null_check").version == version + 1


def test_the_admin_lists_templates_entries_and_comparison_types(admin_client):
    for url in [
        "/admin/rules/ruletemplate/",
        "/admin/rules/inputentry/",
        "/admin/rules/comparisontype/",
        f"/admin/rules/ruletemplate/{RuleTemplate.objects.get(key='null_check').pk}/change/",
    ]:
        assert admin_client.get(url).status_code == 200, url
