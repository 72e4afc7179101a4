"""Testing a configuration before saving it: POST /api/v1/datasources/test/ (a new datasource) and
POST /api/v1/datasources/{id}/test/ with the changed fields (an edit), as the browser's datasource
form does, against the real PostgreSQL test server."""

import pytest

from conftest import PG, PG_PROBE_DATASOURCE, PROBE_USER
from datasources.models import Datasource

pytestmark = pytest.mark.django_db

URL = "/api/v1/datasources/"


@pytest.fixture
def new_pg(pg_server):
    return {"name": "new-warehouse", **PG_PROBE_DATASOURCE}


def test_an_admin_tests_a_new_configuration_and_nothing_is_saved(cast, api_as, new_pg):
    response = api_as(cast.admin).post(f"{URL}test/", new_pg, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["ok"] is True and "PostgreSQL" in response.json()["message"]
    assert not Datasource.objects.exists()


def test_a_wrong_password_before_saving_answers_ok_false_without_echoing_it(cast, api_as, new_pg):
    body = api_as(cast.admin).post(f"{URL}test/", {**new_pg, "password": "not-it"}, format="json").json()
    assert body["ok"] is False and "password authentication failed" in body["message"].lower()
    assert "not-it" not in body["message"]


def test_a_configuration_the_api_would_refuse_answers_400_field_by_field_like_create(cast, api_as, new_pg):
    client = api_as(cast.admin)
    bad = {**new_pg, "host": "", "port": 70000, "type": "postgresql"}
    tested = client.post(f"{URL}test/", bad, format="json")
    created = client.post(URL, bad, format="json")
    assert tested.status_code == created.status_code == 400
    assert tested.json()["fields"] == created.json()["fields"]
    assert {"host", "port"} <= set(tested.json()["fields"])


def test_only_admins_test_unsaved_configurations(cast, api_as, new_pg):
    response = api_as(cast.author).post(f"{URL}test/", new_pg, format="json")
    assert response.status_code == 403
    assert "administrators" in response.json()["message"]


def test_an_edit_without_the_password_is_tested_with_the_stored_one(cast, api_as, pg_datasource, closed_port):
    client = api_as(cast.admin)
    url = f"{URL}{pg_datasource.pk}/test/"
    # The form sends every field but the password the admin did not retype.
    edited = {"name": pg_datasource.name, "host": PG["host"], "port": PG["port"], "username": PROBE_USER}
    assert client.post(url, edited, format="json").json()["ok"] is True
    refused = client.post(url, {**edited, "port": closed_port}, format="json").json()
    assert refused["ok"] is False and str(closed_port) in refused["message"]
    pg_datasource.refresh_from_db()
    assert pg_datasource.port == PG["port"]  # testing an edit saves nothing


def test_a_retyped_wrong_password_is_the_one_tested(cast, api_as, pg_datasource):
    body = api_as(cast.admin).post(f"{URL}{pg_datasource.pk}/test/", {"password": "nope"}, format="json").json()
    assert body["ok"] is False and "password" in body["message"].lower()


def test_a_member_tests_the_stored_datasource_but_not_an_edit(cast, api_as, pg_datasource):
    client = api_as(cast.author)
    assert client.post(f"{URL}{pg_datasource.pk}/test/").json()["ok"] is True
    assert client.post(f"{URL}{pg_datasource.pk}/test/", {"port": 1}, format="json").status_code == 403
