"""Comparison types are data built from fields (source, window, aggregation, batch): an admin adds
one without code, and one a run could not evaluate is refused when saved, naming the field."""

import pytest
from django.core.exceptions import ValidationError

from rules.models import ComparisonType, RuleTemplate

pytestmark = pytest.mark.django_db
URL = "/api/v1/comparison-types/"
MEDIAN = {
    "key": "last_14_day_median",
    "name": "Last 14 days median",
    "source": "history",
    "window": "last_14_days",
    "aggregation": "median",
}

RANGE = {
    "key": "last_14_runs_per_partition",
    "name": "Last 14 runs of the partition, mean ± 3σ",
    "source": "range",
    "window": "last_14_runs",
    "aggregation": "sigma_3",
}


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({**MEDIAN, "window": "fortnight"}, "window", "Unknown window 'fortnight'"),
        ({**MEDIAN, "aggregation": "mode"}, "aggregation", "Unknown aggregation 'mode'"),
        ({**MEDIAN, "window": "last_99999_days"}, "window", "at most 3660"),
        ({**MEDIAN, "batch": "source"}, "batch", "takes no batch"),
        ({"key": "k", "name": "K", "source": "fixed", "window": "day"}, "window", "takes no window"),
        ({"key": "k", "name": "K", "source": "data"}, "batch", "source or target"),
        ({"key": "k", "name": "K", "source": "data", "batch": "target", "aggregation": "avg"}, "aggregation", "no"),
        ({"key": "k", "name": "K", "source": "oracle"}, "source", "fixed, history, range, data"),
        ({**RANGE, "batch": "source"}, "batch", "per partition (batch: partition)"),
        ({**MEDIAN, "batch": "partition"}, "batch", "takes no batch"),
    ],
)
def test_a_type_a_run_cannot_evaluate_is_refused_on_save_naming_the_field(fields, field, words):
    with pytest.raises(ValidationError) as caught:
        ComparisonType(**fields).save()
    assert words in " ".join(caught.value.message_dict[field])
    assert not ComparisonType.objects.filter(key=fields["key"]).exists()


def test_an_admin_adds_a_range_with_a_baseline_per_partition(cast, api_as):
    response = api_as(cast.admin).post(URL, {**RANGE, "batch": "partition"}, format="json")
    assert response.status_code == 201, response.json()
    assert ComparisonType.objects.get(key=RANGE["key"]).batch == "partition"


def test_an_admin_adds_a_type_through_the_api(cast, api_as):
    response = api_as(cast.admin).post(URL, MEDIAN, format="json")
    assert response.status_code == 201, response.json()
    assert ComparisonType.objects.get(key="last_14_day_median").aggregation == "median"


def test_the_api_answers_400_naming_the_field_a_run_could_not_evaluate(cast, api_as):
    response = api_as(cast.admin).post(URL, {**MEDIAN, "aggregation": "mode"}, format="json")
    assert response.status_code == 400
    assert "Unknown aggregation 'mode'" in response.json()["fields"]["aggregation"][0]
    response = api_as(cast.admin).patch(f"{URL}daily_avg/", {"window": "someday"}, format="json")
    assert response.status_code == 400 and "window" in response.json()["fields"]
    assert ComparisonType.objects.get(key="daily_avg").window == "day"


def test_a_types_key_cannot_change(cast, api_as):
    response = api_as(cast.admin).patch(f"{URL}daily_avg/", {"key": "day_avg"}, format="json")
    assert response.status_code == 400 and "cannot change" in response.json()["fields"]["key"][0]
    daily = ComparisonType.objects.get(key="daily_avg")
    daily.key = "day_avg"
    with pytest.raises(ValidationError, match="cannot change"):
        daily.save()


def test_only_admins_write_comparison_types(cast, api_as):
    assert api_as(cast.author).post(URL, MEDIAN, format="json").status_code == 403
    assert api_as(cast.author).get(URL).status_code == 200
    assert api_as(cast.admin).delete(f"{URL}daily_avg/").status_code == 405


def test_the_admin_form_refuses_an_unknown_aggregation_under_its_field(admin_client):
    response = admin_client.post("/admin/rules/comparisontype/add/", {**MEDIAN, "aggregation": "mode", "position": 9})
    assert response.status_code == 200
    assert b"Unknown aggregation" in response.content
    assert not ComparisonType.objects.filter(key="last_14_day_median").exists()
    response = admin_client.post("/admin/rules/comparisontype/add/", {**MEDIAN, "position": 9})
    assert response.status_code == 302


def test_a_type_still_offered_by_a_template_cannot_be_deleted_in_the_admin(admin_client):
    daily = ComparisonType.objects.get(key="daily_avg")
    assert admin_client.post(f"/admin/rules/comparisontype/{daily.pk}/delete/", {"post": "yes"}).status_code == 403
    assert ComparisonType.objects.filter(key="daily_avg").exists()


def test_a_template_may_offer_an_admin_added_type():
    ComparisonType.objects.create(**MEDIAN)
    template = RuleTemplate.objects.get(key="table_count_check")
    template.rule_json = {**template.rule_json, "comparison_types": ["fix_value", "last_14_day_median"]}
    template.save()
    assert RuleTemplate.objects.get(key="table_count_check").allowed_comparison_types()[-1] == "last_14_day_median"


def test_a_template_without_a_target_table_may_not_offer_the_target_row_count():
    template = RuleTemplate.objects.get(key="null_check")
    template.rule_json = {**template.rule_json, "comparison_types": ["fix_value", "target_table_total_rows"]}
    with pytest.raises(ValidationError, match="no target_table input"):
        template.save()


def test_the_admin_checks_the_target_row_count_against_the_inputs_being_saved(admin_client, template_admin_form):
    template = RuleTemplate.objects.get(key="null_check")
    rule_json = {**template.rule_json, "comparison_types": ["target_table_total_rows"]}
    response = admin_client.post(
        f"/admin/rules/ruletemplate/{template.pk}/change/", template_admin_form(template, rule_json)
    )
    assert response.status_code == 200 and b"no target_table input" in response.content
    assert RuleTemplate.objects.get(key="null_check").version == 1


def test_the_row_count_template_does_not_offer_its_own_statistic_as_expected_value(cast, api_as):
    template = RuleTemplate.objects.get(key="table_count_check")
    assert "src_table_total_rows" not in template.allowed_comparison_types()
    form = {r["field"]: r for r in api_as(cast.author).get("/api/v1/rule-templates/table_count_check/form/").json()}
    assert "src_table_total_rows" not in [o["value"] for o in form["comparison_type"]["options"]]


def test_no_template_may_compare_a_row_count_with_the_same_row_count():
    template = RuleTemplate.objects.get(key="table_count_check")
    template.rule_json = {**template.rule_json, "comparison_types": ["fix_value", "src_table_total_rows"]}
    with pytest.raises(ValidationError, match="compare the statistic with itself"):
        template.save()
