"""Rules as code: export to YAML, import into an empty database, export again: the same bytes."""

import pytest
import yaml

from rules.models import Check, CheckVersion

pytestmark = pytest.mark.django_db


def test_export_import_export_is_exact(cast, api_as, valid_params):
    client = api_as(cast.author)
    for key, params in valid_params.items():
        assert (
            client.post(
                "/api/v1/checks/", {"name": f"check {key}", "template": key, "params": params}, format="json"
            ).status_code
            == 201
        )
    first = client.get("/api/v1/checks/export/")
    assert first.status_code == 200 and first["Content-Type"].startswith("application/yaml")
    exported = first.content.decode()
    assert "src_datasource: warehouse-pg" in exported and "src_datasource_id" not in exported
    # check.yaml is a literal block, as written (comment and blank line kept), not an escaped string
    assert "checks_yaml: |\n" in exported
    assert "  - amount >= 0   # refunds are separate\n\n" in exported and "\\n" not in exported

    # An empty metadata database: versions are protected from deletion, so remove the rows directly.
    Check.datasources.through.objects.all().delete()
    CheckVersion.datasources.through.objects.all().delete()
    CheckVersion.objects.all()._raw_delete(CheckVersion.objects.db)
    Check.objects.all()._raw_delete(Check.objects.db)
    response = client.post("/api/v1/checks/import/", exported, content_type="application/yaml")
    assert response.status_code == 201, response.json()
    assert len(response.json()) == 17
    assert client.get("/api/v1/checks/export/").content.decode() == exported


def test_importing_over_an_existing_check_writes_a_new_version(cast, api_as, valid_params):
    client = api_as(cast.author)
    client.post(
        "/api/v1/checks/",
        {"name": "emails", "template": "null_check", "params": valid_params["null_check"]},
        format="json",
    )
    document = yaml.safe_load(client.get("/api/v1/checks/export/").content)
    document["checks"][0]["params"]["threshold"] = 3
    response = client.post("/api/v1/checks/import/", yaml.safe_dump(document), content_type="application/yaml")
    assert response.status_code == 201 and response.json()[0]["current_version"] == 2


def test_an_invalid_file_imports_nothing_and_names_the_problem(cast, api_as, valid_params):
    client = api_as(cast.author)
    good = {
        "name": "good",
        "template": "null_check",
        "params": {**valid_params["null_check"], "src_datasource_id": None},
    }
    good["params"].pop("src_datasource_id")
    good["params"]["src_datasource"] = "warehouse-pg"
    bad = {"name": "bad", "template": "null_check", "params": {**good["params"], "src_field": "nope"}}
    text = yaml.safe_dump({"version": 1, "checks": [good, bad]})
    response = client.post("/api/v1/checks/import/", text, content_type="application/yaml")
    assert response.status_code == 400
    assert "does not exist" in str(response.json()["fields"]["checks[1]"]["params"]["src_field"])
    assert not Check.objects.exists()


def test_broken_yaml_is_a_400_not_a_500(cast, api_as):
    response = api_as(cast.author).post("/api/v1/checks/import/", "checks: [unclosed", content_type="application/yaml")
    assert response.status_code == 400 and "yaml" in response.json()["fields"]
