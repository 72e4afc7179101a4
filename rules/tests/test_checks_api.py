"""Checks: params validated against the template and the live catalog; every change is a version."""

import pytest

from rules.models import Check, CheckVersion, ImmutableVersion

pytestmark = pytest.mark.django_db
URL = "/api/v1/checks/"


def _create(client, template, params, name="orders check"):
    return client.post(URL, {"name": name, "template": template, "params": params}, format="json")


def test_a_check_of_every_builtin_template_can_be_created(cast, api_as, valid_params):
    client = api_as(cast.author)
    for key, params in valid_params.items():
        response = _create(client, key, params, name=f"check {key}")
        assert response.status_code == 201, (key, response.json())
        body = response.json()
        assert body["template"] == key and body["current_version"] == 1 and body["owner"] == "author"
    assert Check.objects.count() == 17


def test_defaults_are_filled_in_and_numbers_stay_numbers(cast, api_as, valid_params):
    params = {k: v for k, v in valid_params["null_check"].items() if k not in ("check_type", "failure_strategy")}
    params["threshold"] = "2.5"
    body = _create(api_as(cast.author), "null_check", params).json()
    assert body["params"]["check_type"] == "statistics_minus_comparison"
    assert body["params"]["failure_strategy"] == "alert" and body["params"]["threshold"] == 2.5


def _bad(valid_params, template, **changes):
    params = {**valid_params[template], **changes}
    return template, {k: v for k, v in params.items() if v is not ...}


BAD_INPUT = [
    ("null_check", {"src_filter": "1=1; DROP TABLE x"}, "src_filter", "statement"),
    ("null_check", {"src_filter": "order_id IN (SELECT order_id FROM dq_test.orders)"}, "src_filter", "subquery"),
    ("null_check", {"src_filter": "no_such_column > 1"}, "src_filter", "no_such_column"),
    ("null_check", {"src_filter": "${tomorrow} = 1"}, "src_filter", "Unknown parameter"),
    ("custom_sql", {"statistics_execute_sql": "DELETE FROM ${src_table}"}, "statistics_execute_sql", "SELECT"),
    (  # saved, then refused by Spark's parser at every run
        "custom_sql",
        {"statistics_execute_sql": "SELECT count(*) FROM ${src_table} WHERE amount < 0 GROUP BY"},
        "statistics_execute_sql",
        "GROUP BY names nothing",
    ),
    (
        "custom_sql",
        {"statistics_execute_sql": "SELECT count(*) FROM dq_test.orders"},
        "statistics_execute_sql",
        "${src_table}",
    ),
    (
        "custom_sql",
        {
            "statistics_execute_sql": "SELECT count(*) FROM ${src_table} WHERE from_xml(customer_email, 'a INT', "
            "map('rowValidationXSDPath', 'http://127.0.0.1:9/x.xsd')) IS NULL"
        },
        "statistics_execute_sql",
        "function `from_xml` is not allowed",
    ),
    (
        "custom_sql",
        {"statistics_execute_sql": "SELECT count(*) FROM (SELECT explode(sequence(1, 100000000)) FROM ${src_table})"},
        "statistics_execute_sql",
        "function `explode` is not allowed",
    ),
    ("null_check", {"src_filter": "java_method('java.lang.System', 'exit', 0) IS NULL"}, "src_filter", "`java_method`"),
    (
        "multi_table_value_comparison",
        {"comparison_execute_sql": "SELECT max(reflect('java.lang.Thread', 'sleep', 9L)) FROM ${target_table}"},
        "comparison_execute_sql",
        "function `reflect` is not allowed",
    ),
    ("null_check", {"src_field": "no_such_column"}, "src_field", "does not exist"),
    ("null_check", {"src_table": "dq_test.nope"}, "src_table", "does not exist"),
    ("null_check", {"src_datasource_id": 999999}, "src_datasource_id", "may not use"),
    ("null_check", {"src_field": ...}, "src_field", "required"),
    ("null_check", {"threshold": "lots"}, "threshold", "must be a number"),
    ("null_check", {"threshold": True}, "threshold", "must be a number"),
    ("null_check", {"operator": "approximately"}, "operator", "not a valid choice"),
    ("null_check", {"comparison_type": "target_table_total_rows"}, "comparison_type", "not a valid choice"),
    ("null_check", {"comparison_value": "zero"}, "comparison_value", "must be a number"),
    ("null_check", {"surprise": 1}, "surprise", "Unknown field"),
    ("regexp_check", {"regexp_pattern": "([a-z"}, "regexp_pattern", "regular expression"),
    ("regexp_check", {"regexp_pattern": "(?<=a"}, "regexp_pattern", "Unclosed group near index 5"),
    ("regexp_check", {"regexp_pattern": r"\p{Alphabet}"}, "regexp_pattern", "Unknown character property name"),
    ("regexp_check", {"regexp_pattern": "(?P<n>x)"}, "regexp_pattern", "Unknown inline modifier"),
    ("null_check", {"src_filter": "status RLIKE '(a'"}, "src_filter", "Unclosed group"),
    ("null_check", {"src_filter": "status RLIKE customer_email"}, "src_filter", "must be a quoted text"),
    (
        "custom_sql",
        {"statistics_execute_sql": "SELECT count(*) FROM ${src_table} WHERE regexp_extract(status, '[z-a]', 0) = ''"},
        "statistics_execute_sql",
        "Illegal character range",
    ),
    ("field_length_check", {"field_length": 2.5}, "field_length", "whole number"),
    ("field_length_check", {"logic_operator": "~"}, "logic_operator", "not a valid choice"),
    ("field_length_check", {"field_length": -1}, "field_length", "at least 0"),
    ("enumeration_check", {"enum_list": "ok,négatif"}, "enum_list", "list of values"),
    ("timeliness_check", {"deadline": "30/11/2026"}, "deadline", "YYYY-MM-DD HH:MM:SS"),
    ("timeliness_check", {"deadline": "2026-10-01 00:00:00"}, "deadline", "before its start"),
    ("value_range_check", {"min_value": ...}, "min_value", "minimum, a maximum, or both"),
    ("value_range_check", {"min_value": 10, "max_value": 1}, "max_value", "below the minimum"),
    (
        "multi_table_accuracy",
        {"mapping_columns": [{"src_field": "order_id", "operator": "=", "target_field": "nope"}]},
        "mapping_columns",
        "target column 'nope'",
    ),
    ("multi_table_accuracy", {"mapping_columns": []}, "mapping_columns", "required"),
    (
        "multi_table_value_comparison",
        {"comparison_execute_sql": "SELECT 1; DROP TABLE x"},
        "comparison_execute_sql",
        "statement",
    ),
    ("column_aggregate_check", {"aggregate": "median"}, "aggregate", "not a valid choice"),
]


@pytest.mark.parametrize(("template", "changes", "field", "words"), BAD_INPUT)
def test_bad_params_answer_400_naming_the_field(cast, api_as, valid_params, template, changes, field, words):
    key, params = _bad(valid_params, template, **changes)
    response = _create(api_as(cast.author), key, params)
    assert response.status_code == 400, response.json()
    fields = response.json()["fields"]["params"]
    assert field in fields, fields
    assert words in " ".join(fields[field]), fields[field]
    assert not Check.objects.exists()


@pytest.mark.parametrize("pattern", [r"^\p{Alpha}+$", r"\p{Lu}\p{Ll}*", r"(?<=@)[\w.]+(?=\.com$)", r"(?>a+)b*+"])
def test_java_regex_syntax_that_python_lacks_is_accepted_at_save(cast, api_as, valid_params, pattern):
    response = _create(api_as(cast.author), "regexp_check", {**valid_params["regexp_check"], "regexp_pattern": pattern})

    assert response.status_code == 201, response.json()
    assert response.json()["params"]["regexp_pattern"] == pattern


def test_a_datasource_the_caller_may_not_use_is_refused(cast, api_as, valid_params, pg_datasource):
    pg_datasource.allowed_groups.set([cast.analysts])
    response = _create(api_as(cast.outsider), "null_check", valid_params["null_check"])
    assert response.status_code == 400
    assert "may not use" in response.json()["fields"]["params"]["src_datasource_id"][0]


def test_an_unknown_template_and_a_missing_name_are_named(cast, api_as):
    response = api_as(cast.author).post(URL, {"template": "nope", "params": {}}, format="json")
    assert response.status_code == 400
    assert set(response.json()["fields"]) >= {"template", "name"}


def test_editing_a_check_writes_version_2_while_version_1_stays_readable(cast, api_as, valid_params):
    client = api_as(cast.author)
    check = _create(client, "null_check", valid_params["null_check"]).json()
    response = client.patch(f"{URL}{check['id']}/", {"params": {"threshold": 5}}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["current_version"] == 2 and response.json()["params"]["src_field"] == "customer_email"
    versions = client.get(f"{URL}{check['id']}/versions/").json()
    assert [v["number"] for v in versions] == [1, 2]
    assert versions[0]["params"]["threshold"] == 0 and versions[1]["params"]["threshold"] == 5
    assert versions[0]["content_hash"] != versions[1]["content_hash"]
    assert versions[0]["template_key"] == "null_check" and versions[0]["template_version"] >= 1


def test_saving_unchanged_params_writes_no_new_version(cast, api_as, valid_params):
    client = api_as(cast.author)
    check = _create(client, "null_check", valid_params["null_check"]).json()
    client.patch(f"{URL}{check['id']}/", {"params": {"threshold": 0}}, format="json")
    assert CheckVersion.objects.filter(parent_check_id=check["id"]).count() == 1


def test_a_version_can_be_neither_edited_nor_deleted(cast, api_as, valid_params):
    check = _create(api_as(cast.author), "null_check", valid_params["null_check"]).json()
    version = CheckVersion.objects.get(parent_check_id=check["id"])
    version.params = {}
    with pytest.raises(ImmutableVersion):
        version.save()
    with pytest.raises(ImmutableVersion):
        version.delete()


def test_deleting_a_check_hides_it_keeps_its_versions_and_frees_its_name(cast, api_as, valid_params):
    client = api_as(cast.author)
    check = _create(client, "null_check", valid_params["null_check"]).json()
    assert client.delete(f"{URL}{check['id']}/").status_code == 204
    assert client.get(f"{URL}{check['id']}/").status_code == 404
    assert CheckVersion.objects.filter(parent_check_id=check["id"]).count() == 1
    assert _create(client, "null_check", valid_params["null_check"]).status_code == 201


def test_only_the_owner_or_an_admin_changes_a_check(cast, api_as, valid_params, django_user_model):
    check = _create(api_as(cast.author), "null_check", valid_params["null_check"]).json()
    other = django_user_model.objects.create_user("other", password="x")
    assert api_as(other).patch(f"{URL}{check['id']}/", {"name": "mine"}, format="json").status_code == 403
    assert api_as(cast.admin).patch(f"{URL}{check['id']}/", {"name": "renamed"}, format="json").status_code == 200


def test_checks_on_a_restricted_datasource_are_invisible_to_outsiders(cast, api_as, valid_params, pg_datasource):
    check = _create(api_as(cast.author), "null_check", valid_params["null_check"]).json()
    pg_datasource.allowed_groups.set([cast.analysts])
    assert api_as(cast.outsider).get(URL).json()["results"] == []
    assert api_as(cast.outsider).get(f"{URL}{check['id']}/").status_code == 404
    assert [c["id"] for c in api_as(cast.author).get(URL).json()["results"]] == [check["id"]]


def test_the_list_filters_by_template_and_search(cast, api_as, valid_params):
    client = api_as(cast.author)
    _create(client, "null_check", valid_params["null_check"], name="emails present")
    _create(client, "uniqueness_check", valid_params["uniqueness_check"], name="ids unique")
    assert [c["name"] for c in client.get(f"{URL}?template=uniqueness_check").json()["results"]] == ["ids unique"]
    assert [c["name"] for c in client.get(f"{URL}?search=EMAIL").json()["results"]] == ["emails present"]


def test_a_duplicate_check_name_comes_with_every_other_error_at_once(cast, api_as, valid_params):
    client = api_as(cast.author)
    assert _create(client, "null_check", valid_params["null_check"]).status_code == 201
    bad = {**valid_params["null_check"], "src_field": "no_such_column", "threshold": "many"}

    response = client.post(URL, {"name": "orders check", "template": "null_check", "params": bad}, format="json")

    assert response.status_code == 400
    fields = response.json()["fields"]
    assert "already exists" in fields["name"][0]
    assert set(fields["params"]) == {"src_field", "threshold"}
