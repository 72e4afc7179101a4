"""POST /api/v1/row-checks/validate/: check.yaml → its full form, or 400 with every problem at its
line and entry; fields checked against the live catalog; only datasources the caller may use."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

URL = "/api/v1/row-checks/validate/"


@pytest.fixture
def analysts_lake(cast, make_datasource, parquet_dir):
    return make_datasource(
        name="lake", type="file", format="parquet", path=str(parquet_dir), allowed_groups=[cast.analysts]
    )


def _validate(client, lake, text, table="orders"):
    return client.post(URL, {"checks_yaml": text, "src_datasource_id": lake.pk, "src_table": table}, format="json")


def test_it_answers_the_expanded_full_form_with_its_warnings(cast, api_as, analysts_lake):
    text = "checks:\n  - amount >= 0\n  - name: known\n    fn: in\n    fileds: [status]\n    args: [paid, void]\n"
    response = _validate(api_as(cast.author), analysts_lake, text)

    assert response.status_code == 200, response.json()
    body = response.json()
    assert [c["name"] for c in body["checks"]] == ["check-amount-ge", "known"]
    assert body["checks"][1] == {
        "type": "check",
        "name": "known",
        "fn": "in",
        "negate": False,
        "fields": ["status"],
        "args": ["paid", "void"],
        "critical": False,
    }
    assert body["warnings"] == [
        {
            "line": 5,
            "entry": "checks[1]",
            "field": "fileds",
            "message": "`fileds` read as `fields`; please fix the spelling.",
        }
    ]


def test_a_broken_rule_set_is_a_400_naming_each_problem_s_line_and_entry(cast, api_as, analysts_lake):
    text = "checks:\n  - amount >= 0\n  - status =~ ^p\n  - fn: maxLen\n    fields: [status]\n    args: [x]\n"
    response = _validate(api_as(cast.author), analysts_lake, text)

    assert response.status_code == 400
    body = response.json()
    assert body["message"] == "The row checks are not valid."
    assert body["fields"]["checks_yaml"] == [
        "line 3: checks[1]: unknown operator `=~`; did you mean `~=`?",
        "line 6: checks[2].args: `maxLen` takes one whole number ≥ 0 (the length); got ['x'].",
    ]
    assert [(p["line"], p["entry"], p["field"]) for p in body["problems"]] == [
        (3, "checks[1]", ""),
        (6, "checks[2]", "args"),
    ]


def test_a_field_the_table_lacks_is_named_at_its_line_with_the_table_s_columns(cast, api_as, analysts_lake):
    text = "checks:\n  - type: chain\n    clause: any\n    checks:\n      - amount > 0\n      - stauts == paid\n"
    response = _validate(api_as(cast.author), analysts_lake, text)

    assert response.status_code == 400
    assert response.json()["problems"] == [
        {
            "line": 6,
            "entry": "checks[0].checks[1]",
            "field": "fields",
            "message": "unknown column `stauts`; the table has: order_id, status, amount.",
        }
    ]


def test_a_datasource_the_caller_may_not_use_is_refused_without_reading_it(cast, api_as, analysts_lake):
    response = _validate(api_as(cast.outsider), analysts_lake, "checks:\n  - amount >= 0\n")

    assert response.status_code == 400
    assert response.json()["fields"] == {
        "src_datasource_id": [f"Datasource {analysts_lake.pk} does not exist or you may not use it."]
    }


def test_a_missing_text_or_table_is_a_field_error(cast, api_as, analysts_lake):
    client = api_as(cast.author)
    assert client.post(URL, {"src_datasource_id": analysts_lake.pk}, format="json").json()["fields"] == {
        "checks_yaml": ["Give the YAML text."],
        "src_table": ["Pick a table."],
    }
    unknown = _validate(client, analysts_lake, "checks: [a > 1]", table="nope")
    assert unknown.status_code == 400
    assert unknown.json()["fields"] == {"src_table": ["Table 'nope' does not exist in datasource 'lake'."]}


def test_a_row_level_check_is_saved_only_with_valid_checks_on_existing_columns(cast, api_as, analysts_lake):
    client = api_as(cast.author)
    params = {
        "src_datasource_id": analysts_lake.pk,
        "src_table": "orders",
        "checks_yaml": "checks:\n  - amount >= 0\n  - colour == red\n",
        "check_type": "statistics_minus_comparison",
        "operator": "le",
        "threshold": 0,
        "failure_strategy": "alert",
        "comparison_type": "fix_value",
        "comparison_value": 0,
    }
    refused = client.post(
        "/api/v1/checks/", {"name": "rows", "template": "row_level_check", "params": params}, format="json"
    )
    assert refused.status_code == 400
    assert refused.json()["fields"]["params"]["checks_yaml"] == [
        "line 3: checks[1].fields: unknown column `colour`; the table has: order_id, status, amount."
    ]

    params["checks_yaml"] = "checks:\n  - amount >= 0\n  - status in (paid, void)\n"
    saved = client.post(
        "/api/v1/checks/", {"name": "rows", "template": "row_level_check", "params": params}, format="json"
    )
    assert saved.status_code == 201, saved.json()
    assert saved.json()["params"]["checks_yaml"] == params["checks_yaml"]  # kept as written


def test_a_cleansed_output_folder_must_lie_under_the_allowed_file_roots(cast, api_as, analysts_lake, file_roots):
    client = api_as(cast.author)
    params = {
        "src_datasource_id": analysts_lake.pk,
        "src_table": "orders",
        "checks_yaml": "checks:\n  - amount >= 0\n",
        "output_path": "/etc/cleansed",
        "check_type": "statistics_minus_comparison",
        "operator": "le",
        "threshold": 0,
        "failure_strategy": "alert",
        "comparison_type": "fix_value",
        "comparison_value": 0,
    }
    body = {"name": "rows", "template": "row_level_check", "params": params}
    refused = client.post("/api/v1/checks/", body, format="json")
    assert refused.status_code == 400
    assert "DQ_FILE_ROOTS" in refused.json()["fields"]["params"]["output_path"][0]

    params["output_path"] = str(file_roots / "cleansed" / ".." / "cleansed")
    saved = client.post("/api/v1/checks/", body, format="json")
    assert saved.status_code == 201, saved.json()
    assert saved.json()["params"]["output_path"] == str((file_roots / "cleansed").resolve())


def test_a_contract_validates_to_its_full_form_and_a_broken_one_names_its_lines(cast, api_as, analysts_lake):
    client = api_as(cast.author)
    text = "strict: true\ncolumns:\n  - {name: order_id, type: integer, nullable: false}\n  - name: note\n"
    body = {"contract_yaml": text, "src_datasource_id": analysts_lake.pk, "src_table": "orders"}
    response = client.post(URL, body, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["contract"] == {
        "strict": True,
        "columns": [
            {"name": "order_id", "type": "integer", "nullable": False, "required": True},
            {"name": "note", "type": None, "nullable": True, "required": True},  # missing: found by the run
        ],
    }

    broken = "columns:\n  - {name: order_id, type: int}\n  - {name: amount, nulable: false}\n"
    response = client.post(URL, {**body, "contract_yaml": broken}, format="json")
    assert response.status_code == 400
    assert response.json()["fields"]["contract_yaml"] == [
        "line 2: columns[0].type: unknown type `int`; did you mean `integer`?",
        "line 3: columns[1].nulable: unknown key `nulable`; did you mean `nullable`?",
    ]
