"""The API answers errors in its JSON shape, with the right status:
401 with WWW-Authenticate when not signed in, JSON 403/404/413/500 under /api/, and the browser
app's not-found page elsewhere. No answer shows a debug page or lists the URL patterns."""

from __future__ import annotations

import pytest
import yaml

from rules.models import Check

pytestmark = pytest.mark.django_db


def _is_error_shape(response) -> dict:
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert isinstance(body["message"], str) and body["message"] and isinstance(body["fields"], dict)
    return body


@pytest.mark.parametrize("url", ["/api/v1/checks/", "/api/v1/runs/", "/api/v1/datasources/", "/api/v1/incidents/"])
def test_an_unauthenticated_api_call_is_a_401_saying_how_to_authenticate(client, db, url):
    response = client.get(url)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert "credentials were not provided" in _is_error_shape(response)["message"]


def test_a_wrong_token_is_a_401_too(client, db):
    response = client.get("/api/v1/checks/", HTTP_AUTHORIZATION="Token not-a-real-token")
    assert response.status_code == 401 and _is_error_shape(response)


def test_a_signed_in_user_without_the_right_gets_a_json_403(cast, api_as):
    response = api_as(cast.author).post("/api/v1/datasources/", {"name": "x", "type": "file"}, format="json")
    assert response.status_code == 403 and _is_error_shape(response)


@pytest.mark.parametrize("url", ["/api/v1/no-such-thing/", "/api/v1/checks/1/nope/", "/api/nothing"])
def test_an_unknown_api_path_is_a_json_404_that_lists_no_url_patterns(cast, api_as, url):
    response = api_as(cast.author).get(url)
    assert response.status_code == 404
    body = _is_error_shape(response)
    assert "/api/docs/" in body["message"] and "URLconf" not in response.content.decode()


def test_an_api_failure_is_a_json_500_without_the_traceback(cast, client, settings):
    settings.ROOT_URLCONF = "tests.support.urls_with_a_failing_view"
    client.raise_request_exception = False
    client.force_login(cast.author)
    response = client.get("/api/v1/test-failure/")
    assert response.status_code == 500
    body = _is_error_shape(response)
    assert "log" in body["message"] and "SECRET_KEY" not in response.content.decode()
    page = client.get("/test-failure/")
    assert page.status_code == 500 and b"Traceback" not in page.content and b"SECRET_KEY" not in page.content


def test_an_unknown_page_is_the_browser_apps_not_found_page(cast, client):
    client.force_login(cast.author)
    response = client.get("/no/such/page")
    assert response.status_code == 404
    # The app's shell (its router shows NotFoundPage) or, before a build, the page saying how to build it.
    assert b'id="dq-user"' in response.content or b"build" in response.content
    assert b"URLconf" not in response.content


def test_an_unknown_page_sends_a_signed_out_visitor_to_sign_in(client, db):
    response = client.get("/no/such/page")
    assert response.status_code == 302 and response["Location"].startswith("/login/?next=/no/such/page")


# --- body size (row 9) ----------------------------------------------------------------------------


def _ten_megabyte_import() -> str:
    params = {"src_datasource": "lake", "src_table": "orders", "src_field": "status", "comparison_type": "fix_value"}
    check = {"name": "big", "template": "null_check", "params": params, "description": "x" * 1000}
    text = yaml.safe_dump({"version": 1, "checks": [check]})
    return text + ("# padding\n" * (10 * 1024 * 1024 // 10))


def test_a_10_mb_yaml_import_is_refused_with_413_and_imports_nothing(cast, api_as):
    body = _ten_megabyte_import()
    assert len(body.encode()) > 10 * 1024 * 1024
    response = api_as(cast.author).generic("POST", "/api/v1/checks/import/", body, content_type="application/yaml")
    assert response.status_code == 413
    assert "DQ_MAX_BODY_BYTES" in _is_error_shape(response)["message"]
    assert not Check.objects.exists()


def test_an_oversized_json_body_is_a_json_413_not_an_html_400(cast, api_as):
    body = '{"name": "x", "template": "null_check", "params": {"pad": "' + "x" * (6 * 1024 * 1024) + '"}}'
    response = api_as(cast.author).generic("POST", "/api/v1/checks/", body, content_type="application/json")
    assert response.status_code == 413 and _is_error_shape(response)


def test_the_limit_is_a_setting(cast, api_as, settings):
    settings.DQ_MAX_BODY_BYTES = 2048
    response = api_as(cast.author).post(
        "/api/v1/checks/", {"name": "x" * 3000, "template": "null_check", "params": {}}, format="json"
    )
    assert response.status_code == 413
    small = api_as(cast.author).post("/api/v1/checks/", {"name": "x", "template": "nope", "params": {}}, format="json")
    assert small.status_code == 400  # under the limit: validated as usual


def test_a_body_with_no_declared_length_is_cut_at_the_limit_too(cast, api_as, settings):
    from io import BytesIO

    from dq_platform.parsers import BodyTooLarge, read_limited

    settings.DQ_MAX_BODY_BYTES = 2048
    assert read_limited(BytesIO(b"x" * 2048)) == b"x" * 2048
    with pytest.raises(BodyTooLarge):
        read_limited(BytesIO(b"x" * 2049))


def test_an_oversized_sign_in_form_is_a_413_too(client, db):
    response = client.post("/login/", {"username": "x", "password": "y" * (6 * 1024 * 1024)})
    assert response.status_code == 413


def test_a_yaml_body_that_is_not_utf8_is_a_400(cast, api_as):
    response = api_as(cast.author).generic(
        "POST", "/api/v1/checks/import/", b"version: 1\nchecks: \xff\xfe", content_type="application/yaml"
    )
    assert response.status_code == 400 and "UTF-8" in _is_error_shape(response)["message"]
