"""Sign-in for the browser and the API, and the published API description."""

import pytest

pytestmark = pytest.mark.django_db


def test_a_user_exchanges_username_and_password_for_a_token_that_authenticates(cast, client):
    response = client.post(
        "/api/v1/auth/token/", {"username": "author", "password": "author-pass-123"}, content_type="application/json"
    )
    assert response.status_code == 200
    token = response.json()["token"]
    listing = client.get("/api/v1/datasources/", HTTP_AUTHORIZATION=f"Token {token}")
    assert listing.status_code == 200 and listing.json()["results"] == []


def test_a_wrong_password_gets_400_in_the_api_error_shape(cast, client):
    response = client.post(
        "/api/v1/auth/token/", {"username": "author", "password": "nope"}, content_type="application/json"
    )
    assert response.status_code == 400
    assert "Unable to log in" in response.json()["message"]


def test_a_missing_field_is_named(client, db):
    response = client.post("/api/v1/auth/token/", {"username": "x"}, content_type="application/json")
    assert response.status_code == 400 and "password" in response.json()["fields"]


def test_the_browser_signs_in_through_the_login_page(cast, client):
    assert client.get("/").status_code == 302
    page = client.get("/login/")
    assert page.status_code == 200 and b"Sign in" in page.content
    response = client.post("/login/", {"username": "admin", "password": "admin-pass-123"})
    assert response.status_code == 302 and response["Location"] == "/"
    home = client.get("/")
    # The browser app's shell (or, before a build, a page saying how to build it) names the user.
    assert home.status_code == 200 and b"admin" in home.content and b"/admin/" in home.content


def test_the_openapi_schema_describes_the_datasource_endpoints(cast, api_as):
    response = api_as(cast.author).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in [
        "/api/v1/datasources/",
        "/api/v1/datasources/{id}/test/",
        "/api/v1/datasources/{id}/tables/",
        "/api/v1/datasources/{id}/columns/",
        "/api/v1/auth/token/",
    ]:
        assert path in paths, path
    props = response.json()["components"]["schemas"]["Datasource"]["properties"]
    assert "password" not in props and "has_password" in props


def test_the_api_docs_page_loads(cast, api_as):
    response = api_as(cast.author).get("/api/docs/")
    assert response.status_code == 200 and b"swagger" in response.content.lower()


def test_the_admin_is_for_staff_only(cast, client):
    client.force_login(cast.author)
    assert client.get("/admin/").status_code == 302
    client.force_login(cast.admin)
    assert client.get("/admin/").status_code == 200
