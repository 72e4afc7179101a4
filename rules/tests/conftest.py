import json

import pytest

from conftest import MYSQL_TEST_DB

VERDICT = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "fix_value",
    "comparison_value": 0,
}


@pytest.fixture
def valid_params(pg_datasource, mysql_datasource):
    """Valid params for every built-in template, on the real PostgreSQL and MariaDB test tables."""
    src = {"src_datasource_id": pg_datasource.pk, "src_table": "dq_test.orders"}
    target = {"target_datasource_id": mysql_datasource.pk, "target_table": f"{MYSQL_TEST_DB}.orders"}
    return {
        "null_check": {**src, "src_field": "customer_email", **VERDICT},
        "custom_sql": {
            **src,
            "statistics_name": "negative_amounts",
            "statistics_execute_sql": "SELECT count(*) AS negative FROM ${src_table} WHERE amount < 0",
            **VERDICT,
        },
        "multi_table_accuracy": {
            **src,
            **target,
            "mapping_columns": [{"src_field": "order_id", "operator": "=", "target_field": "order_id"}],
            **VERDICT,
        },
        "multi_table_value_comparison": {
            **src,
            **target,
            "statistics_name": "pg_rows",
            "statistics_execute_sql": "SELECT count(*) AS n FROM ${src_table}",
            "comparison_name": "mysql_rows",
            "comparison_execute_sql": "SELECT count(*) AS n FROM ${target_table}",
            "check_type": "statistics_minus_comparison",
            "operator": "eq",
            "threshold": 0,
            "failure_strategy": "block",
        },
        "field_length_check": {
            **src,
            "src_field": "customer_email",
            "logic_operator": ">",
            "field_length": 50,
            **VERDICT,
        },
        "uniqueness_check": {**src, "src_field": "order_id", **VERDICT},
        "regexp_check": {**src, "src_field": "customer_email", "regexp_pattern": r"^[^@\s]+@[^@\s]+$", **VERDICT},
        "timeliness_check": {
            **src,
            "src_field": "created_at",
            "begin_time": "2026-11-01 00:00:00",
            "deadline": "2026-11-30 23:59:59",
            **VERDICT,
        },
        "enumeration_check": {**src, "src_field": "Ünïcode note", "enum_list": ["ok", "négatif"], **VERDICT},
        "table_count_check": {**src, "src_filter": "amount > 0", **VERDICT, "operator": "ge"},
        "value_range_check": {**src, "src_field": "amount", "min_value": 0, **VERDICT},
        "column_aggregate_check": {
            **src,
            "src_field": "amount",
            "aggregate": "avg",
            **VERDICT,
            "comparison_type": "last_7_day_avg",
            "check_type": "statistics_comparison_percentage",
            "operator": "le",
            "threshold": 120,
        },
        "row_level_check": {
            **src,
            # a literal block in the export (rules/yaml_io.py), comments and blank lines kept
            "checks_yaml": "checks:\n  - amount >= 0   # refunds are separate\n\n  - name: email_set\n"
            "    fn: notNull\n    fields: [customer_email]\n    critical: true\n",
            **VERDICT,
        },
        "schema_contract_check": {
            **src,
            "contract_yaml": "strict: true\ncolumns:\n  - {name: order_id, type: integer, nullable: false}\n",
            **VERDICT,
        },
        "freshness_check": {**src, "src_field": "created_at", "age_unit": "minutes", **VERDICT, "comparison_value": 90},
        "file_freshness_check": {**src, **VERDICT, "comparison_value": 24},
        "schema_change_check": {**src, **VERDICT},
    }


@pytest.fixture
def template_admin_form():
    """`template_admin_form(template, rule_json)` → the admin change form's POST data for the
    template with a new rule_json and its inputs as they are."""

    def make(template, rule_json):
        links = list(template.template_inputs.order_by("position"))
        form = {
            "key": template.key,
            "name": template.name,
            "rule_type": template.rule_type,
            "dimension": template.dimension,
            "description": template.description,
            "rule_json": json.dumps(rule_json),
            "template_inputs-TOTAL_FORMS": str(len(links)),
            "template_inputs-INITIAL_FORMS": str(len(links)),
            "definitions-TOTAL_FORMS": "0",
            "definitions-INITIAL_FORMS": "0",
        }
        for index, link in enumerate(links):
            prefix = f"template_inputs-{index}-"
            form.update({prefix + "id": link.pk, prefix + "template": template.pk, prefix + "entry": link.entry_id})
            form.update({prefix + "position": link.position, prefix + "overrides": json.dumps(link.overrides)})
        return form

    return make
