"""Rules as code in the browser's terms: export a selection of checks, then import a file in two
steps, a dry run that says per check what would happen (added, changed field by field, unchanged,
refused with the line) and writes nothing, and an apply that writes exactly that, all or nothing,
with the import's message on every version it writes."""

import pytest
import yaml

from rules.models import Check, CheckVersion

pytestmark = pytest.mark.django_db
IMPORT = "/api/v1/checks/import/"
EXPORT = "/api/v1/checks/export/"

VERDICT = """\
      check_type: statistics_minus_comparison
      operator: le
      failure_strategy: alert
      comparison_type: fix_value
      comparison_value: 0
"""


def _check(name: str, template: str = "null_check", field: str = "status", threshold: int = 0) -> str:
    """One check of a file, 12 lines (11 for a table count, which has no src_field)."""
    column = f"      src_field: {field}\n" if template == "null_check" else ""
    return (
        f"- name: {name}\n"
        f"  template: {template}\n"
        "  params:\n"
        "      src_datasource: files\n"
        "      src_table: orders\n"
        f"{column}"
        f"      threshold: {threshold}\n"
        f"{VERDICT}"
    )


def _file(*checks: str) -> str:
    return "version: 1\nchecks:\n" + "".join(checks)


@pytest.fixture
def files(cast, make_datasource, parquet_dir):
    return make_datasource(name="files", type="file", format="parquet", path=str(parquet_dir))


@pytest.fixture
def existing(cast, api_as, files):
    """The author's `nulls` (threshold 0) and `count` checks, and the admin's `admins` check."""
    mine = api_as(cast.author).post(
        IMPORT, _file(_check("nulls"), _check("count", "table_count_check")), content_type="application/yaml"
    )
    theirs = api_as(cast.admin).post(IMPORT, _file(_check("admins")), content_type="application/yaml")
    assert mine.status_code == 201 and theirs.status_code == 201, (mine.json(), theirs.json())
    return {c.name: c for c in Check.objects.all()}


def _rows() -> tuple:
    """Everything an import could write."""
    return (
        sorted(Check.objects.values_list("name", "params", "current_version", "updated_at")),
        sorted(CheckVersion.objects.values_list("parent_check__name", "number", "params", "message")),
    )


# Lines, counted by hand: "version" 1, "checks" 2, then the checks in order.
EDITED = _file(
    _check("nulls", threshold=5),  # lines 3-14: threshold on line 9
    _check("count", "table_count_check"),  # lines 15-25: as it is
    _check("fresh"),  # lines 26-37: new
    _check("broken", field="no_such_column"),  # lines 38-49: src_field on line 43
    _check("admins", threshold=9),  # lines 50-61: someone else's
)


def _dry_run(client, text, **extra):
    return client.post(IMPORT, {"yaml": text, "dry_run": True, **extra}, format="json")


def test_a_dry_run_answers_added_changed_unchanged_and_refused_and_writes_nothing(cast, api_as, existing):
    before = _rows()
    response = _dry_run(api_as(cast.author), EDITED)
    assert _rows() == before
    assert response.status_code == 200, response.json()
    answer = response.json()
    assert answer["dry_run"] is True and answer["applicable"] is False
    assert answer["summary"] == {"added": 1, "changed": 1, "unchanged": 1, "refused": 2}
    by_name = {c["name"]: c for c in answer["checks"]}
    assert [c["name"] for c in answer["checks"]] == ["nulls", "count", "fresh", "broken", "admins"]
    assert [c["line"] for c in answer["checks"]] == [3, 15, 26, 38, 50]

    nulls = by_name["nulls"]
    assert nulls["outcome"] == "changed"
    assert nulls["check"] == existing["nulls"].pk and nulls["current_version"] == 1
    assert nulls["changes"] == [{"field": "threshold", "line": 9, "before": 0, "after": 5}]
    assert by_name["count"]["outcome"] == "unchanged" and by_name["count"]["changes"] == []
    assert by_name["fresh"]["outcome"] == "added" and by_name["fresh"]["check"] is None

    broken = by_name["broken"]
    assert broken["outcome"] == "refused"
    assert [(e["field"], e["line"]) for e in broken["errors"]] == [("params.src_field", 43)]
    assert "no_such_column" in broken["errors"][0]["message"]

    admins = by_name["admins"]
    assert admins["outcome"] == "refused" and admins["check"] is None and admins["changes"] == []
    assert [(e["field"], e["line"]) for e in admins["errors"]] == [("name", 50)]  # "- name: admins"
    assert "owned by someone else" in admins["errors"][0]["message"]


def test_an_apply_with_a_refused_check_fails_and_writes_nothing(cast, api_as, existing):
    before = _rows()
    client = api_as(cast.author)
    invalid = client.post(IMPORT, {"yaml": EDITED, "message": "all at once"}, format="json")
    assert invalid.status_code == 400
    assert "no_such_column" in str(invalid.json()["fields"]["checks[3]"]["params"]["src_field"])
    assert _rows() == before
    without_broken = EDITED.replace(_check("broken", field="no_such_column"), "")
    foreign = client.post(IMPORT, {"yaml": without_broken, "message": "all at once"}, format="json")
    assert foreign.status_code == 403 and foreign.json()["fields"]["checks"] == ["admins"]
    assert _rows() == before


def test_the_apply_writes_exactly_what_the_dry_run_said_with_the_message(cast, api_as, existing):
    client = api_as(cast.author)
    text = _file(_check("nulls", threshold=5), _check("count", "table_count_check"), _check("fresh"))
    plan = _dry_run(client, text).json()
    assert plan["applicable"] is True
    assert {c["name"]: c["outcome"] for c in plan["checks"]} == {
        "nulls": "changed",
        "count": "unchanged",
        "fresh": "added",
    }
    count_before = Check.objects.get(name="count")

    response = client.post(
        IMPORT, {"yaml": text, "message": "Tolerate five nulls", "plan": plan["plan"]}, format="json"
    )
    assert response.status_code == 201, response.json()

    nulls = Check.objects.get(name="nulls")
    assert nulls.current_version == 2 and nulls.params["threshold"] == 5
    assert list(nulls.versions.values_list("number", "message")) == [(1, ""), (2, "Tolerate five nulls")]
    assert nulls.versions.get(number=1).params["threshold"] == 0
    fresh = Check.objects.get(name="fresh")
    assert fresh.owner == cast.author
    assert list(fresh.versions.values_list("number", "message")) == [(1, "Tolerate five nulls")]
    count = Check.objects.get(name="count")  # unchanged: not even saved again
    assert (count.current_version, count.updated_at) == (1, count_before.updated_at)
    assert CheckVersion.objects.count() == 3 + 2  # three before; nulls v2 and fresh v1

    versions = client.get(f"/api/v1/checks/{nulls.pk}/versions/").json()
    assert [(v["number"], v["message"]) for v in versions] == [(1, ""), (2, "Tolerate five nulls")]
    again = _dry_run(client, text).json()
    assert again["summary"] == {"added": 0, "changed": 0, "unchanged": 3, "refused": 0}


def test_an_apply_after_someone_else_changed_a_check_is_refused_with_409(cast, api_as, existing):
    author = api_as(cast.author)
    text = _file(_check("nulls", threshold=5), _check("fresh"))
    plan = _dry_run(author, text).json()["plan"]
    edit = api_as(cast.admin).patch(
        f"/api/v1/checks/{existing['nulls'].pk}/", {"params": {"threshold": 1}}, format="json"
    )
    assert edit.status_code == 200
    before = _rows()
    response = author.post(IMPORT, {"yaml": text, "plan": plan}, format="json")
    assert response.status_code == 409 and "dry run" in response.json()["message"]
    assert _rows() == before


def test_a_file_that_is_not_yaml_is_a_400_with_its_line_in_the_dry_run_too(cast, api_as, existing):
    text = _file(_check("nulls")) + "  params: [unclosed\n"
    before = _rows()
    response = _dry_run(api_as(cast.author), text)
    assert response.status_code == 400
    assert response.json()["fields"]["yaml"][0].startswith("line 1")
    assert _rows() == before
    aliases = _dry_run(api_as(cast.author), "version: 1\nchecks: &a\n  - *a\n")
    assert aliases.status_code == 400 and "line 2" in aliases.json()["fields"]["yaml"][0]


def test_a_message_of_several_lines_is_refused_naming_the_field(cast, api_as, existing):
    client = api_as(cast.author)
    response = client.post(IMPORT, {"yaml": _file(_check("fresh")), "message": "one\ntwo"}, format="json")
    assert response.status_code == 400 and "message" in response.json()["fields"]
    assert not Check.objects.filter(name="fresh").exists()


def test_saving_a_check_with_a_message_keeps_it_on_the_new_version_only(cast, api_as, existing):
    client = api_as(cast.author)
    nulls = existing["nulls"]
    url = f"/api/v1/checks/{nulls.pk}/"
    changed = client.patch(url, {"params": {"threshold": 2}, "message": "Two nulls are fine"}, format="json")
    assert changed.status_code == 200 and changed.json()["current_version"] == 2
    same = client.patch(url, {"params": {"threshold": 2}, "message": "nothing changed"}, format="json")
    assert same.status_code == 200 and same.json()["current_version"] == 2
    assert list(nulls.versions.values_list("number", "message")) == [(1, ""), (2, "Two nulls are fine")]
    too_long = client.patch(url, {"params": {"threshold": 3}, "message": "x" * 501}, format="json")
    assert too_long.status_code == 400 and "500" in str(too_long.json()["fields"]["message"])


def test_an_export_of_a_selection_holds_exactly_those_checks(cast, api_as, existing):
    client = api_as(cast.author)
    ids = f"{existing['nulls'].pk},{existing['admins'].pk}"
    response = client.get(EXPORT, {"ids": ids})
    assert response.status_code == 200
    document = yaml.safe_load(response.content)
    assert [c["name"] for c in document["checks"]] == ["admins", "nulls"]
    assert document["checks"][1]["params"]["threshold"] == 0


def test_an_export_naming_a_check_the_user_may_not_see_is_a_400(cast, api_as, make_datasource, parquet_dir, existing):
    hidden_source = make_datasource(
        name="hidden", type="file", format="parquet", path=str(parquet_dir), allowed_groups=[cast.analysts]
    )
    hidden = Check.objects.create(
        name="hidden", template=existing["nulls"].template, params={**existing["nulls"].params}, owner=cast.admin
    )
    hidden.params["src_datasource_id"] = hidden_source.pk
    hidden.save()
    hidden.record_version(cast.admin)
    outsider = api_as(cast.outsider)
    response = outsider.get(EXPORT, {"ids": f"{existing['nulls'].pk},{hidden.pk}"})
    assert response.status_code == 400
    assert response.json()["fields"]["ids"] == [f"No check you can see has id {hidden.pk}."]
    assert api_as(cast.author).get(EXPORT, {"ids": str(hidden.pk)}).status_code == 200
    assert outsider.get(EXPORT, {"ids": "1,x"}).status_code == 400
    assert outsider.get(EXPORT, {"ids": "99999999999999999999"}).status_code == 400


def test_a_dry_run_over_a_check_the_user_owns_but_may_not_read_names_the_fields_without_their_values(
    cast, api_as, make_datasource, parquet_dir, existing
):
    from django.contrib.auth.models import Group

    others = Group.objects.create(name="others")
    secret = make_datasource(
        name="secret", type="file", format="parquet", path=str(parquet_dir), allowed_groups=[others]
    )
    nulls = existing["nulls"]
    hidden = Check.objects.create(
        name="mine but hidden",
        template=nulls.template,
        params={**nulls.params, "src_datasource_id": secret.pk},
        owner=cast.author,
    )
    hidden.record_version(cast.author)
    response = _dry_run(api_as(cast.author), _file(_check("mine but hidden", threshold=5)))
    assert response.status_code == 200, response.json()
    (planned,) = response.json()["checks"]
    assert planned["outcome"] == "changed"
    assert {c["field"]: (c["before"], c["after"]) for c in planned["changes"]} == {
        "src_datasource": (None, "files"),
        "threshold": (None, 5),
    }
