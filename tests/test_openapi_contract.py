"""The OpenAPI description matches the paths that work and documents the error answers and the
content types."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(cast, api_as) -> dict:
    response = api_as(cast.author).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def _operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                yield path, method, operation


def test_the_csv_download_is_described_at_the_path_that_works(schema, cast, api_as):
    assert "/api/v1/results/{id}/error-rows.csv" in schema["paths"]
    assert "/api/v1/results/{id}/error-rows.csv/" not in schema["paths"]
    content = schema["paths"]["/api/v1/results/{id}/error-rows.csv"]["get"]["responses"]["200"]["content"]
    assert list(content) == ["text/csv"]
    # and the slash form answers what it is: nothing there.
    assert api_as(cast.author).get("/api/v1/results/1/error-rows.csv/").status_code == 404


def test_every_operation_documents_400_and_the_signed_in_ones_401_and_403(schema):
    open_paths = {"/api/v1/auth/token/"}
    for path, method, operation in _operations(schema):
        codes = set(operation["responses"])
        assert "400" in codes, (method, path)
        if path not in open_paths:
            assert {"401", "403"} <= codes, (method, path, codes)
        if "{" in path:
            assert "404" in codes, (method, path)
        if method in ("post", "put", "patch"):
            assert "413" in codes, (method, path)


def test_error_answers_point_at_the_error_shape(schema):
    error = schema["paths"]["/api/v1/checks/"]["post"]["responses"]["400"]["content"]["application/json"]["schema"]
    name = error["$ref"].rsplit("/", 1)[-1]
    assert set(schema["components"]["schemas"][name]["properties"]) == {"message", "fields"}


def test_the_export_is_documented_as_yaml_and_the_import_takes_yaml(schema):
    export = schema["paths"]["/api/v1/checks/export/"]["get"]["responses"]["200"]["content"]
    assert list(export) == ["application/yaml"]
    assert "application/yaml" in schema["paths"]["/api/v1/checks/import/"]["post"]["requestBody"]["content"]


def test_the_token_endpoints_are_documented_with_the_lockout_and_revoke(schema):
    assert "429" in schema["paths"]["/api/v1/auth/token/"]["post"]["responses"]
    assert "204" in schema["paths"]["/api/v1/auth/token/revoke/"]["post"]["responses"]
