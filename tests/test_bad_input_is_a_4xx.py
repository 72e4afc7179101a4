"""Every bad input is a 400 naming its field, never a 500: hostile or broken YAML (aliases, deep
nesting, NUL, lone surrogates), infinite numbers, ids past the database's bigint, unreadable URLs,
lone surrogates in any JSON text, and control characters in names. One test per cause, through
the API, as the cast's users."""

from __future__ import annotations

import json

import pytest

from rules.models import Check
from watching.models import AlertChannel, Schedule

pytestmark = pytest.mark.django_db

BILLION_LAUGHS = "checks:\n  - &a ha\n" + "".join(
    f"  - &{chr(ord('b') + level)} [{', '.join(['*' + chr(ord('a') + level)] * 9)}]\n" for level in range(8)
)
DEEP = "checks:\n  - " + "[" * 500 + "]" * 500 + "\n"
YAML_CASES = {
    "billion laughs": (BILLION_LAUGHS, "line 2: YAML anchors (`&a`) are not accepted"),
    "nested 500 deep": (DEEP, "line 2: The YAML nests deeper than 64 levels."),
    "an alias": ("checks:\n  - amount >= 0\n  - *x\n", "line 3: "),
    "a NUL": ("checks:\n  - amount >= 0\n  - status ~= a\x00b\n", "line 3: The text holds a NUL character (U+0000)"),
    "an escape character": ("checks:\n  - status ~= \x1b[1m\n", "line 2: The text holds the control character U+001B"),
    "an infinite bound": ("checks:\n  - amount >= 1e999\n", "line 2: checks[0]: `1e999` is too large a number"),
    "an infinite full-form bound": (
        "checks:\n  - fn: le\n    fields: [amount]\n    args: [-1.0e+999]\n",
        "line 4: checks[0].args: `le` takes a finite number; infinity and NaN are not valid bounds.",
    ),
}


def _post(client, url, body):
    # json.dumps writes a lone surrogate as the escape `\ud800` and 1e999 as is: what a client sends.
    return client.post(url, json.dumps(body), content_type="application/json")


@pytest.fixture
def lake(cast, make_datasource, parquet_dir):
    return make_datasource(
        name="lake", type="file", format="parquet", path=str(parquet_dir), allowed_groups=[cast.analysts]
    )


@pytest.mark.parametrize("case", list(YAML_CASES))
@pytest.mark.parametrize("endpoint", ["validate", "preview", "create"])
def test_bad_check_yaml_is_a_400_naming_the_line_on_validate_preview_and_create(cast, api_as, lake, case, endpoint):
    text, expected = YAML_CASES[case]
    source = {"src_datasource_id": lake.pk, "src_table": "orders"}
    client = api_as(cast.author)
    if endpoint == "create":
        body = {"name": "rules", "template": "row_level_check", "params": {**source, "checks_yaml": text}}
        response = _post(client, "/api/v1/checks/", body)
        messages = response.json()["fields"]["params"]["checks_yaml"]
    else:
        response = _post(client, f"/api/v1/row-checks/{endpoint}/", {**source, "checks_yaml": text})
        messages = response.json()["fields"]["checks_yaml"]
    assert response.status_code == 400
    assert [m for m in messages if m.startswith(expected)], messages
    assert not Check.objects.exists()


@pytest.mark.parametrize(("field", "where"), [("checks_yaml", "line 3: "), ("src_table", "")])
def test_a_lone_surrogate_anywhere_in_a_json_body_is_a_400_naming_its_field(cast, api_as, lake, field, where):
    body = {"src_datasource_id": lake.pk, "src_table": "orders", "checks_yaml": "checks:\n  - amount >= 0\n"}
    body[field] = body[field] + "\ud800"
    response = _post(api_as(cast.author), "/api/v1/row-checks/validate/", body)
    assert response.status_code == 400
    assert response.json()["fields"] == {
        field: [f"{where}The text holds a lone surrogate (U+D800), which is not valid Unicode text; remove it."]
    }


def test_an_infinite_number_in_a_json_body_is_a_400_naming_its_field(cast, api_as, lake):
    params = {"src_datasource_id": lake.pk, "src_table": "orders", "src_field": "amount", "comparison_value": 0}
    text = json.dumps({"name": "x", "template": "null_check", "params": params})
    text = text.replace('"comparison_value": 0', '"comparison_value": 1e999')  # valid JSON, infinite in Python
    response = api_as(cast.author).post("/api/v1/checks/", text, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["fields"] == {
        "params": {"comparison_value": ["Not a finite number; infinity and NaN are not accepted."]}
    }
    assert not Check.objects.exists()


def test_a_yaml_import_with_aliases_is_a_400_naming_the_line_and_imports_nothing(cast, api_as):
    text = "version: 1\nchecks:\n  - &one {name: a, template: null_check, params: {}}\n  - *one\n"
    response = api_as(cast.author).post("/api/v1/checks/import/", text, content_type="application/yaml")
    assert response.status_code == 400
    assert response.json()["fields"]["yaml"] == [
        "line 3: YAML anchors (`&one`) are not accepted; write the value out where it is used."
    ]
    assert not Check.objects.exists()


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/v1/checks/?datasource=99999999999999999999", "datasource"),
        ("/api/v1/runs/?check=99999999999999999999", "check"),
        ("/api/v1/schedules/?check=99999999999999999999", "check"),
        ("/api/v1/alert-channels/?check=99999999999999999999", "check"),
        ("/api/v1/incidents/?check=9223372036854775808", "check"),
        ("/api/v1/batches/?datasource=99999999999999999999", "datasource"),
        ("/api/v1/gate/?datasource=99999999999999999999&table=orders", "datasource"),
        ("/api/v1/form-options/tables/?datasource=99999999999999999999", "datasource"),
        ("/api/v1/checks/?datasource=%C2%B2", "datasource"),  # "²": str.isdigit() says yes, int() says no
    ],
)
def test_an_id_past_the_database_bigint_in_a_list_filter_is_a_400_naming_it(cast, api_as, url, field):
    response = api_as(cast.author).get(url)
    assert response.status_code == 400, response.content
    assert field in response.json()["fields"]


@pytest.mark.parametrize("target", ["http://[::1", "http://h:99999/", "http://h:port/"])
def test_an_unreadable_host_or_port_in_a_channel_target_is_a_400_naming_target(cast, api_as, target):
    response = _post(api_as(cast.admin), "/api/v1/alert-channels/", {"name": "c", "kind": "webhook", "target": target})
    assert response.status_code == 400
    assert "host or port cannot be read" in response.json()["fields"]["target"][0]
    assert not AlertChannel.objects.exists()


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        ("/api/v1/alert-channels/", {"name": "c", "kind": "web\ud800hook", "target": "https://example.com/"}, "kind"),
        ("/api/v1/schedules/", {"name": "s", "schedule_type": "cr\ud800on", "cron": "0 2 * * *"}, "schedule_type"),
        ("/api/v1/batches/", {"datasource": 1, "table": "orders", "partition": {"day": "\udc80"}}, "partition"),
    ],
)
def test_a_lone_surrogate_in_a_choice_or_partition_is_a_400_naming_it(cast, api_as, url, body, field):
    response = _post(api_as(cast.admin), url, body)
    assert response.status_code == 400
    assert list(response.json()["fields"]) == [field]


@pytest.mark.parametrize("name", ["orders\r\nInjected: header", "orders\nsecond line", "tab\tname", "bell\x07"])
@pytest.mark.parametrize("what", ["check", "datasource", "channel", "schedule"])
def test_a_name_with_a_control_character_is_a_400_naming_name(cast, api_as, lake, make_datasource, name, what):
    client = api_as(cast.admin)
    if what == "check":
        params = {"src_datasource_id": lake.pk, "src_table": "orders", "src_field": "status"}
        response = _post(client, "/api/v1/checks/", {"name": name, "template": "null_check", "params": params})
    elif what == "datasource":
        response = _post(client, "/api/v1/datasources/", {"name": name, "type": "file", "format": "csv", "path": "/x"})
    elif what == "channel":
        response = _post(
            client, "/api/v1/alert-channels/", {"name": name, "kind": "email", "target": "ops@example.com"}
        )
    else:
        response = _post(client, "/api/v1/schedules/", {"name": name, "cron": "0 2 * * *", "checks": []})
    assert response.status_code == 400, response.content
    assert "without control characters" in response.json()["fields"]["name"][0]
    assert not Check.objects.filter(name=name).exists() and not Schedule.objects.exists()


def test_params_that_are_not_a_mapping_in_a_form_are_a_400_naming_params(cast, api_as, lake):
    params = {"src_datasource_id": lake.pk, "src_table": "orders", "src_field": "status"}
    client = api_as(cast.author)
    created = _post(client, "/api/v1/checks/", {"name": "present", "template": "null_check", "params": params})
    assert created.status_code == 201, created.json()
    response = client.patch(f"/api/v1/checks/{created.json()['id']}/", {"params": "null"}, format="multipart")
    assert response.status_code == 400
    assert response.json()["fields"]["params"] == ["The params are a mapping of the template's inputs."]
    assert Check.objects.get(pk=created.json()["id"]).params["src_field"] == "status"
