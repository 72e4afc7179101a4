"""Create, read, update and delete datasources through /api/v1/datasources/."""

import pytest

from datasources.models import Datasource

URL = "/api/v1/datasources/"
PG_BODY = {
    "name": "warehouse",
    "type": "postgresql",
    "host": "127.0.0.1",
    "port": 5432,
    "database": "test",
    "username": "reader",
    "password": "s3cret-Pw",
}

pytestmark = pytest.mark.django_db


def test_an_admin_creates_a_postgresql_datasource(cast, api_as):
    response = api_as(cast.admin).post(URL, PG_BODY, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["name"] == "warehouse" and body["type"] == "postgresql" and body["has_password"] is True
    assert Datasource.objects.get(name="warehouse").password == "s3cret-Pw"


def test_the_port_defaults_to_the_servers_usual_port(cast, api_as):
    body = {**PG_BODY, "type": "mysql"}
    body.pop("port")
    response = api_as(cast.admin).post(URL, body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["port"] == 3306


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_a_non_admin_may_not_write_datasources(cast, api_as, make_datasource, method):
    existing = make_datasource(name="existing", type="postgresql", host="db", database="d", username="u")
    url = URL if method == "post" else f"{URL}{existing.pk}/"
    response = getattr(api_as(cast.author), method)(url, PG_BODY, format="json")
    assert response.status_code == 403
    assert "administrators" in response.json()["message"]
    assert Datasource.objects.count() == 1 and Datasource.objects.get().name == "existing"


def test_every_signed_in_user_lists_and_reads_open_datasources(cast, api_as, make_datasource):
    datasource = make_datasource(name="open", type="postgresql", host="db", database="d", username="u")
    client = api_as(cast.outsider)
    assert [d["name"] for d in client.get(URL).json()["results"]] == ["open"]
    assert client.get(f"{URL}{datasource.pk}/").json()["host"] == "db"


def test_anonymous_callers_are_refused(client):
    assert client.get(URL).status_code in (401, 403)


def test_an_admin_updates_without_resending_the_password(cast, api_as, make_datasource):
    datasource = make_datasource(
        name="pg", type="postgresql", host="db", database="d", username="u", password="keep-me"
    )
    response = api_as(cast.admin).patch(f"{URL}{datasource.pk}/", {"host": "db2"}, format="json")
    assert response.status_code == 200, response.json()
    datasource.refresh_from_db()
    assert datasource.host == "db2" and datasource.password == "keep-me"


def test_an_admin_deletes_a_datasource(cast, api_as, make_datasource):
    datasource = make_datasource(name="old", type="postgresql", host="db", database="d", username="u")
    client = api_as(cast.admin)
    assert client.delete(f"{URL}{datasource.pk}/").status_code == 204
    assert client.get(URL).json()["results"] == [] and client.get(f"{URL}{datasource.pk}/").status_code == 404
    assert not Datasource.objects.alive().exists()  # soft-deleted: see test_soft_delete.py


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({**PG_BODY, "type": "oracle"}, "type", "Unknown type"),
        ({**PG_BODY, "host": ""}, "host", "host name"),
        ({**PG_BODY, "port": 70000}, "port", "between 1 and 65535"),
        ({**PG_BODY, "port": 0}, "port", "between 1 and 65535"),
        ({**PG_BODY, "port": "five"}, "port", "whole number"),
        ({**PG_BODY, "database": ""}, "database", "required"),
        ({**PG_BODY, "options": {"bad key!": 1}}, "options", "simple identifiers"),
        ({"name": "files", "type": "file", "format": "parquet", "path": "/etc"}, "path", "DQ_FILE_ROOTS"),
        ({"name": "files", "type": "file", "format": "parquet", "path": "relative/dir"}, "path", "absolute"),
        ({"name": "files", "type": "file", "format": "parquet", "path": "ftp://host/x"}, "path", "scheme"),
        ({"name": "files", "type": "file", "path": "hdfs://nn/data"}, "format", "file format"),
        ({"name": "files", "type": "file", "format": "xlsx", "path": "hdfs://nn/data"}, "format", "valid choice"),
        ({"type": "postgresql", "host": "h", "database": "d", "username": "u"}, "name", "required"),
    ],
)
def test_bad_input_answers_400_naming_the_field(cast, api_as, body, field, words):
    response = api_as(cast.admin).post(URL, body, format="json")
    assert response.status_code == 400
    payload = response.json()
    assert field in payload["fields"], payload
    assert words in " ".join(payload["fields"][field]), payload
    assert field in payload["message"]
    assert not Datasource.objects.exists()


def test_a_path_escaping_the_file_root_with_dotdot_is_refused(cast, api_as, file_roots):
    body = {"name": "sneaky", "type": "file", "format": "csv", "path": f"{file_roots}/../../etc"}
    response = api_as(cast.admin).post(URL, body, format="json")
    assert response.status_code == 400
    assert "DQ_FILE_ROOTS" in response.json()["fields"]["path"][0]


def test_file_sources_under_a_root_and_remote_uris_are_accepted(cast, api_as, parquet_dir):
    client = api_as(cast.admin)
    local = client.post(
        URL, {"name": "lake", "type": "file", "format": "parquet", "path": str(parquet_dir)}, format="json"
    )
    assert local.status_code == 201, local.json()
    for name, uri in [("hdfs", "hdfs://namenode:8020/warehouse"), ("s3", "s3a://bucket/prefix")]:
        remote = client.post(URL, {"name": name, "type": "file", "format": "orc", "path": uri}, format="json")
        assert remote.status_code == 201, remote.json()


def test_a_duplicate_name_is_refused(cast, api_as):
    client = api_as(cast.admin)
    assert client.post(URL, PG_BODY, format="json").status_code == 201
    response = client.post(URL, PG_BODY, format="json")
    assert response.status_code == 400 and "name" in response.json()["fields"]


def test_every_error_of_the_form_comes_at_once_with_a_blank_name(cast, api_as):
    body = {**PG_BODY, "name": "", "host": "", "database": ""}

    response = api_as(cast.admin).post(URL, body, format="json")

    assert response.status_code == 400
    assert set(response.json()["fields"]) == {"name", "host", "database"}


def test_a_taken_name_is_reported_together_with_the_other_fields_errors(cast, api_as):
    client = api_as(cast.admin)
    assert client.post(URL, PG_BODY, format="json").status_code == 201

    response = client.post(URL, {**PG_BODY, "host": "", "port": 70000}, format="json")

    assert response.status_code == 400
    fields = response.json()["fields"]
    assert set(fields) == {"name", "host", "port"}
    assert "already exists" in fields["name"][0]
    assert Datasource.objects.count() == 1
