"""Django serves the browser app's shell behind its login, at / and at the app's own paths."""

import json

import pytest

pytestmark = pytest.mark.django_db

MANIFEST = {
    "index.html": {
        "file": "assets/index-abc123.js",
        "isEntry": True,
        "css": ["assets/index-def456.css"],
        "imports": ["_vendor.js"],
    },
    "_vendor.js": {"file": "assets/vendor-789.js"},
}


@pytest.fixture
def built_app(tmp_path, settings):
    """A stand-in for frontend/dist: the manifest vite writes."""
    (tmp_path / "spa-manifest.json").write_text(json.dumps(MANIFEST))
    settings.STATICFILES_DIRS = [tmp_path]
    return tmp_path


@pytest.fixture
def unbuilt_app(tmp_path, settings):
    settings.STATICFILES_DIRS = []
    settings.STATIC_ROOT = tmp_path / "collected"
    settings.STATIC_URL = "/static/"


def _user_data(content: bytes) -> dict:
    text = content.decode()
    start = text.index('<script id="dq-user" type="application/json">') + len(
        '<script id="dq-user" type="application/json">'
    )
    return json.loads(text[start : text.index("</script>", start)])


def test_the_shell_loads_the_built_app_and_names_the_signed_in_admin(cast, client, built_app):
    client.force_login(cast.admin)
    response = client.get("/")
    page = response.content.decode()
    assert response.status_code == 200 and '<div id="app">' in page
    assert '<script type="module" src="/static/assets/index-abc123.js">' in page
    assert 'href="/static/assets/index-def456.css"' in page and "/static/assets/vendor-789.js" in page
    assert _user_data(response.content) == {
        "username": "admin",
        "is_staff": True,
        "admin_url": "/admin/",
        "logout_url": "/logout/",
        "api_docs_url": "/api/docs/",
        "language": "",
    }
    assert "csrftoken" in response.cookies  # the app's HTTP client sends it back on POST


def test_a_non_admin_gets_no_admin_link(cast, client, built_app):
    client.force_login(cast.author)
    data = _user_data(client.get("/").content)
    assert data["username"] == "author" and data["is_staff"] is False and data["admin_url"] is None


@pytest.mark.parametrize(
    "path", ["/checks", "/checks/new", "/checks/12", "/runs/5", "/results/3/error-rows", "/templates"]
)
def test_the_apps_own_paths_get_the_shell_so_a_reload_works(cast, client, built_app, path):
    client.force_login(cast.author)
    response = client.get(path)
    assert response.status_code == 200 and b'<div id="app">' in response.content


def test_a_signed_out_visitor_is_sent_to_sign_in_and_back(client, db, built_app):
    response = client.get("/runs/5")
    assert response.status_code == 302 and response["Location"] == "/login/?next=/runs/5"


def test_other_paths_are_not_swallowed_by_the_app(cast, client, built_app):
    client.force_login(cast.author)
    assert client.get("/api/v1/nope/").status_code == 404
    assert client.get("/nothing-here").status_code == 404


def test_without_a_build_the_page_says_how_to_make_one(cast, client, unbuilt_app):
    client.force_login(cast.author)
    response = client.get("/")
    assert response.status_code == 200 and b"has not been built yet" in response.content
    assert b"npm ci" in response.content
