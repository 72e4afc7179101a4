"""A check version keeps the template definition it was saved with (an immutable TemplateVersion);
a changed template reaches a check only when the check is edited or explicitly upgraded."""

import importlib
from pathlib import Path

import pytest
from django.apps import apps

from rules.models import (
    Check,
    CheckVersion,
    ComparisonType,
    ImmutableVersion,
    InputEntry,
    RuleTemplate,
    TemplateVersion,
)

pytestmark = pytest.mark.django_db
URL = "/api/v1/checks/"


def _create(client, template, params, name="orders check"):
    response = client.post(URL, {"name": name, "template": template, "params": params}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def _edit_template(key: str, **rule_json_changes) -> RuleTemplate:
    template = RuleTemplate.objects.get(key=key)
    template.rule_json = {**template.rule_json, **rule_json_changes}
    template.save()
    return template


def test_every_template_holds_an_immutable_copy_of_its_current_definition():
    template = RuleTemplate.objects.get(key="null_check")
    copy = template.definitions.get(number=template.version)
    assert copy.rule_json == template.rule_json
    assert [i["field"] for i in copy.inputs] == [i.field for i in template.resolved_inputs()]
    assert [t["key"] for t in copy.comparison_types] == template.allowed_comparison_types()
    copy.rule_json = {}
    with pytest.raises(ImmutableVersion):
        copy.save()
    with pytest.raises(ImmutableVersion):
        copy.delete()


def test_saving_an_unchanged_template_writes_no_new_version():
    template = RuleTemplate.objects.get(key="null_check")
    template.save()
    assert template.definitions.count() == 1 and RuleTemplate.objects.get(key="null_check").version == 1


def test_changing_an_input_entry_moves_every_template_using_it_on():
    entry = InputEntry.objects.get(field="src_field")
    users = {t.key: t.version for t in entry.templates.all()}
    entry.help = "The column to check."
    entry.save()
    after = dict(RuleTemplate.objects.filter(key__in=users).values_list("key", "version"))
    assert after == {key: version + 1 for key, version in users.items()}
    latest = RuleTemplate.objects.get(key="null_check").definitions.order_by("-number").first()
    assert next(i for i in latest.inputs if i["field"] == "src_field")["help"] == "The column to check."


def test_changing_a_comparison_type_moves_its_templates_on_but_old_copies_keep_its_old_fields():
    last_7 = ComparisonType.objects.get(key="last_7_day_avg")
    last_7.aggregation = "median"
    last_7.save()
    template = RuleTemplate.objects.get(key="null_check")
    old, new = template.definitions.get(number=1), template.definitions.get(number=2)
    assert old.comparison_spec("last_7_day_avg").aggregation == "avg"
    assert new.comparison_spec("last_7_day_avg").aggregation == "median"


def test_an_admins_change_of_rule_json_and_inputs_is_one_new_version(admin_client, template_admin_form):
    template = RuleTemplate.objects.get(key="null_check")
    form = template_admin_form(template, {**template.rule_json, "statistic_name": "nulls.renamed"})
    form["template_inputs-3-DELETE"] = "on"  # src_field's row goes too
    response = admin_client.post(f"/admin/rules/ruletemplate/{template.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[-2000:]
    latest = template.definitions.order_by("-number").first()
    assert (latest.number, RuleTemplate.objects.get(key="null_check").version) == (2, 2)
    assert latest.rule_json["statistic_name"] == "nulls.renamed"
    assert "src_field" not in [i["field"] for i in latest.inputs]


def test_a_check_keeps_its_template_version_after_the_template_changes(cast, api_as, valid_params):
    client = api_as(cast.author)
    check = _create(client, "null_check", valid_params["null_check"])
    assert (check["template_version"], check["upgrade_available"]) == (1, False)
    _edit_template("null_check", statistic_name="nulls.renamed")
    body = client.get(f"{URL}{check['id']}/").json()
    assert (body["template_version"], body["upgrade_available"], body["current_version"]) == (1, True, 1)
    page = client.get(URL).json()
    listed = next(c for c in (page["results"] if isinstance(page, dict) else page) if c["id"] == check["id"])
    assert (listed["template_version"], listed["upgrade_available"]) == (1, True)
    version = CheckVersion.objects.get(parent_check_id=check["id"])
    assert version.rule_json["statistic_name"] == "null_count.nulls"


def test_saving_a_check_unchanged_does_not_move_it_to_the_new_template_version(cast, api_as, valid_params):
    client = api_as(cast.author)
    check = _create(client, "null_check", valid_params["null_check"])
    _edit_template("null_check", statistic_name="nulls.renamed")
    client.patch(f"{URL}{check['id']}/", {"params": {"threshold": 0}}, format="json")
    assert CheckVersion.objects.filter(parent_check_id=check["id"]).count() == 1


def test_editing_a_check_moves_it_to_the_current_template_version(cast, api_as, valid_params):
    client = api_as(cast.author)
    check = _create(client, "null_check", valid_params["null_check"])
    _edit_template("null_check", statistic_name="nulls.renamed")
    body = client.patch(f"{URL}{check['id']}/", {"name": "renamed check"}, format="json").json()
    assert (body["current_version"], body["template_version"], body["upgrade_available"]) == (2, 2, False)
    new = CheckVersion.objects.get(parent_check_id=check["id"], number=2)
    assert new.rule_json["statistic_name"] == "nulls.renamed"


def test_an_edit_is_validated_against_the_current_template_versions_inputs(cast, api_as, valid_params):
    client = api_as(cast.author)
    check = _create(client, "null_check", {**valid_params["null_check"], "comparison_type": "src_table_total_rows"})
    _edit_template("null_check", comparison_types=["fix_value", "daily_avg"])
    response = client.patch(f"{URL}{check['id']}/", {"name": "renamed check"}, format="json")
    assert response.status_code == 400
    assert "not a valid choice" in response.json()["fields"]["params"]["comparison_type"][0]
    assert CheckVersion.objects.filter(parent_check_id=check["id"]).count() == 1


def test_the_upgrade_shows_what_changed_between_the_two_template_versions(cast, api_as, valid_params):
    client = api_as(cast.author)
    check = _create(client, "null_check", valid_params["null_check"])
    _edit_template(
        "null_check",
        statistic_name="nulls.renamed",
        comparison_types=[
            *("fix_value", "daily_avg", "weekly_avg", "monthly_avg", "last_7_day_avg", "last_30_day_avg"),
            *("last_7_runs_3_sigma", "last_7_runs_20_pct", "anomaly"),
        ],
    )
    entry = InputEntry.objects.get(field="src_field")
    entry.title = "Column"
    entry.save()
    response = client.get(f"{URL}{check['id']}/upgrade/")
    assert response.status_code == 200, response.json()
    plan = response.json()
    assert (plan["from"], plan["to"], plan["template"]) == (1, 3, "null_check")
    changes = {(c["path"], c["change"]): c for c in plan["changes"]}
    assert changes[("rule_json.statistic_name", "changed")]["summary"] == (
        'rule_json.statistic_name: "null_count.nulls" → "nulls.renamed"'
    )
    assert changes[("rule_json.comparison_types", "removed")]["before"] == "src_table_total_rows"
    assert changes[("inputs.src_field.title", "changed")]["after"] == "Column"
    assert len(plan["changes"]) == 3


def test_upgrading_writes_a_version_on_the_current_template_version(cast, api_as, valid_params):
    client = api_as(cast.author)
    check = _create(client, "null_check", valid_params["null_check"])
    _edit_template("null_check", statistic_name="nulls.renamed")
    response = client.post(f"{URL}{check['id']}/upgrade/")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["current_version"], body["template_version"], body["upgrade_available"]) == (2, 2, False)
    versions = client.get(f"{URL}{check['id']}/versions/").json()
    assert [(v["number"], v["template_version"]) for v in versions] == [(1, 1), (2, 2)]
    assert versions[0]["params"] == versions[1]["params"]


def test_there_is_nothing_to_upgrade_when_the_check_is_current(cast, api_as, valid_params):
    client = api_as(cast.author)
    check = _create(client, "null_check", valid_params["null_check"])
    for method in (client.get, client.post):
        response = method(f"{URL}{check['id']}/upgrade/")
        assert response.status_code == 409
        assert "already uses the current version of template null_check (v1)" in response.json()["message"]
    assert CheckVersion.objects.filter(parent_check_id=check["id"]).count() == 1


def test_an_upgrade_whose_params_no_longer_fit_answers_400_naming_the_field(cast, api_as, valid_params):
    client = api_as(cast.author)
    check = _create(client, "null_check", {**valid_params["null_check"], "comparison_type": "src_table_total_rows"})
    _edit_template("null_check", comparison_types=["fix_value", "daily_avg"])
    response = client.post(f"{URL}{check['id']}/upgrade/")
    assert response.status_code == 400
    assert "not a valid choice" in response.json()["fields"]["params"]["comparison_type"][0]
    assert Check.objects.get(pk=check["id"]).current_version == 1


def test_only_the_owner_or_an_admin_may_upgrade(cast, api_as, valid_params, django_user_model):
    check = _create(api_as(cast.author), "null_check", valid_params["null_check"])
    _edit_template("null_check", statistic_name="nulls.renamed")
    colleague = django_user_model.objects.create_user("colleague", password="colleague-pass-1")
    assert api_as(colleague).get(f"{URL}{check['id']}/upgrade/").status_code == 200
    assert api_as(colleague).post(f"{URL}{check['id']}/upgrade/").status_code == 403
    assert api_as(cast.admin).post(f"{URL}{check['id']}/upgrade/").status_code == 200


def test_the_migration_copies_every_definition_and_points_each_check_version_at_one(cast, api_as, valid_params):
    """What migration 0003 does to a database from before template versions."""
    check = _create(api_as(cast.author), "null_check", valid_params["null_check"])
    CheckVersion.objects.update(definition=None)
    TemplateVersion.objects.all().delete()  # the queryset delete: as if they had never existed
    RuleTemplate.objects.filter(key="null_check").update(version=4)
    migration = next((Path(__file__).parents[1] / "migrations").glob("*_template_versions.py")).stem
    importlib.import_module(f"rules.migrations.{migration}").copy_current_definitions(apps, None)
    version = CheckVersion.objects.get(parent_check_id=check["id"])
    assert version.definition.number == 4 and version.rule_json == RuleTemplate.objects.get(key="null_check").rule_json
    assert TemplateVersion.objects.count() == RuleTemplate.objects.count()
