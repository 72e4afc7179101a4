"""GET /api/v1/rule-templates/{key}/form/ serves valid form-create JSON with live linkage."""

import jsonschema
import pytest

from rules.models import RuleTemplate

from .formcreate_schema import FORM, GROUP_PROPS

pytestmark = pytest.mark.django_db


def _form(api_as, user, key):
    response = api_as(user).get(f"/api/v1/rule-templates/{key}/form/")
    assert response.status_code == 200
    return response.json()


def test_every_builtin_templates_form_is_valid_form_create_json(cast, api_as):
    for key in RuleTemplate.objects.values_list("key", flat=True):
        form = _form(api_as, cast.author, key)
        jsonschema.validate(form, FORM)
        for rule in form:
            if rule["type"] == "group":
                jsonschema.validate(rule["props"], GROUP_PROPS)


def test_every_field_has_a_title_a_placeholder_and_help_and_required_fields_say_so(cast, api_as):
    for key in RuleTemplate.objects.values_list("key", flat=True):
        for rule in _form(api_as, cast.author, key):
            assert rule["title"] and rule["info"], (key, rule["field"])
            if rule["type"] != "group":
                assert rule["props"]["placeholder"], (key, rule["field"])
        required = {
            r["field"] for r in _form(api_as, cast.author, key) if any(v.get("required") for v in r["validate"])
        }
        assert "src_datasource_id" in required and "src_table" in required, key


def test_fields_come_in_the_templates_order(cast, api_as):
    fields = [r["field"] for r in _form(api_as, cast.author, "null_check")]
    assert fields == [
        "src_datasource_id",
        "src_table",
        "src_filter",
        "src_field",
        "check_type",
        "operator",
        "threshold",
        "failure_strategy",
        "comparison_type",
        "comparison_value",
        "anomaly_direction",
        "anomaly_k_warn",
        "anomaly_k_fail",
        "anomaly_min_history",
        "anomaly_min_change_pct",
        "anomaly_seasonality",
    ]


def test_the_datasource_select_offers_only_datasources_the_caller_may_use(cast, api_as, make_datasource):
    open_ds = make_datasource(name="open", type="postgresql", host="db", database="d", username="u")
    make_datasource(
        name="finance", type="postgresql", host="db", database="d", username="u", allowed_groups=[cast.analysts]
    )
    outsider = next(r for r in _form(api_as, cast.outsider, "null_check") if r["field"] == "src_datasource_id")
    assert outsider["options"] == [{"label": "open (PostgreSQL)", "value": open_ds.pk}]
    author = next(r for r in _form(api_as, cast.author, "null_check") if r["field"] == "src_datasource_id")
    assert [o["label"] for o in author["options"]] == ["finance (PostgreSQL)", "open (PostgreSQL)"]


def test_tables_and_columns_load_from_the_field_above_them(cast, api_as):
    rules = {r["field"]: r for r in _form(api_as, cast.author, "multi_table_accuracy")}
    table_fetch = rules["src_table"]["effect"]["fetch"]
    assert table_fetch["action"] == "/api/v1/form-options/tables/"
    assert table_fetch["query"] == {"datasource": "{{$form.src_datasource_id}}"}
    assert rules["src_table"]["link"] == ["src_datasource_id"]
    target = rules["target_table"]["effect"]["fetch"]
    assert target["query"] == {"datasource": "{{$form.target_datasource_id}}"}
    column_rules = {r["field"]: r for r in _form(api_as, cast.author, "null_check")}
    assert column_rules["src_field"]["effect"]["fetch"]["query"] == {
        "datasource": "{{$form.src_datasource_id}}",
        "table": "{{$form.src_table}}",
    }
    # `link`: changing any of these reloads the column select and the SPA clears the stale value
    assert column_rules["src_field"]["link"] == ["src_table", "src_datasource_id"]


def test_the_fixed_value_shows_only_for_the_fix_value_comparison_and_the_knobs_for_anomaly(cast, api_as):
    rules = {r["field"]: r for r in _form(api_as, cast.author, "null_check")}
    knobs = [
        f"anomaly_{name}" for name in ("direction", "k_warn", "k_fail", "min_history", "min_change_pct", "seasonality")
    ]
    assert rules["comparison_type"]["control"] == [
        {"value": "fix_value", "rule": ["comparison_value"]},
        *({"value": "anomaly", "rule": [knob]} for knob in knobs),
    ]
    assert [o["value"] for o in rules["comparison_type"]["options"]] == [
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
    ]


def test_mapping_columns_is_a_repeatable_group_and_sql_fields_are_textareas(cast, api_as):
    accuracy = {r["field"]: r for r in _form(api_as, cast.author, "multi_table_accuracy")}
    group = accuracy["mapping_columns"]
    assert group["type"] == "group" and group["props"]["min"] == 1
    assert [r["field"] for r in group["props"]["rule"]] == ["src_field", "operator", "target_field"]
    custom = {r["field"]: r for r in _form(api_as, cast.author, "custom_sql")}
    assert custom["statistics_execute_sql"]["props"]["type"] == "textarea"
    assert custom["src_filter"]["props"]["type"] == "textarea"


def test_the_options_of_metric_fields_come_from_the_engine_vocabulary(cast, api_as):
    from dq_engine.vocabulary import AGGREGATE_FUNCTIONS, LENGTH_OPERATORS, MAPPING_OPERATORS

    def options(choices):
        return [{"label": choice.label, "value": choice.value} for choice in choices]

    length = {r["field"]: r for r in _form(api_as, cast.author, "field_length_check")}["logic_operator"]
    aggregate = {r["field"]: r for r in _form(api_as, cast.author, "column_aggregate_check")}["aggregate"]
    mapping = {r["field"]: r for r in _form(api_as, cast.author, "multi_table_accuracy")}["mapping_columns"]
    assert length["options"] == options(LENGTH_OPERATORS) and length["value"] == ">"
    assert aggregate["options"] == options(AGGREGATE_FUNCTIONS)
    operator = next(r for r in mapping["props"]["rule"] if r["field"] == "operator")
    assert operator["options"] == options(MAPPING_OPERATORS)


def test_an_unknown_template_answers_404(cast, api_as):
    assert api_as(cast.author).get("/api/v1/rule-templates/nope/form/").status_code == 404


def test_the_catalog_lists_templates_with_their_inputs(cast, api_as):
    body = api_as(cast.author).get("/api/v1/rule-templates/").json()["results"]
    assert len(body) == 17
    null_check = next(t for t in body if t["key"] == "null_check")
    assert null_check["dimension"] == "completeness" and null_check["inputs"][0]["field"] == "src_datasource_id"
    assert api_as(cast.author).get("/api/v1/comparison-types/").json()["results"][0] == {
        "key": "fix_value",
        "name": "Fixed value",
        "source": "fixed",
        "window": "",
        "aggregation": "",
        "batch": "",
        "position": 0,
        "description": "The number you type in the check.",
    }


def test_the_mapping_columns_are_selects_fed_by_the_catalog_of_each_table(cast, api_as, make_datasource, parquet_dir):
    lake = make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    client = api_as(cast.author)
    group = {r["field"]: r for r in _form(api_as, cast.author, "multi_table_accuracy")}["mapping_columns"]
    columns = {r["field"]: r for r in group["props"]["rule"]}
    form = {
        "src_datasource_id": lake.pk,
        "src_table": "orders",
        "target_datasource_id": lake.pk,
        "target_table": "customers",
    }
    offered = {}
    for field in ("src_field", "target_field"):
        assert columns[field]["type"] == "select"
        fetch = columns[field]["effect"]["fetch"]
        # Rows of a group are sub-forms: the tables come from the whole form ($topForm).
        query = {k: form[v.strip("{}").removeprefix("$topForm.")] for k, v in fetch["query"].items()}
        body = client.get(fetch["action"], query).json()
        offered[field] = [option["value"] for option in body[fetch["parse"]]]
    assert offered == {"src_field": ["order_id", "status", "amount"], "target_field": ["customer_id", "email"]}


def test_check_yaml_is_the_spa_s_yaml_editor_wired_to_validate_and_preview(cast, api_as):
    checks_yaml = {r["field"]: r for r in _form(api_as, cast.author, "row_level_check")}["checks_yaml"]
    assert checks_yaml["type"] == "dq-yaml-editor"
    assert checks_yaml["props"] | {"placeholder": None, "disabled": None} == {
        "placeholder": None,
        "disabled": None,
        "language": "checks",
        "textField": "checks_yaml",
        "validateUrl": "/api/v1/row-checks/validate/",
        "previewUrl": "/api/v1/row-checks/preview/",
        "previewLimit": 1000,
        "datasourceField": "src_datasource_id",
        "tableField": "src_table",
        "filterField": "src_filter",
    }
    assert checks_yaml["validate"][0]["required"] is True
