"""A database datasource saved with the port left empty gets its type's port, stored, however it is
saved; the connection test, the catalog and the engine's source entry all connect the same way."""

import importlib
from pathlib import Path

import pytest
from django.apps import apps

from conftest import MYSQL_TEST_DB, PG, PROBE_PASSWORD, PROBE_USER
from datasources.connectors import connector_for
from datasources.models import Datasource

pytestmark = pytest.mark.django_db
ADMIN_FORM = {
    "name": "warehouse",
    "type": "postgresql",
    "host": "127.0.0.1",
    "port": "",
    "database": "test",
    "username": "reader",
    "password": "",
    "path": "",
    "format": "",
    "options": "{}",
    "description": "",
}


def test_the_admin_form_stores_the_default_port_and_lists_it(admin_client):
    response = admin_client.post("/admin/datasources/datasource/add/", ADMIN_FORM)
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert Datasource.objects.get(name="warehouse").port == 5432
    listing = admin_client.get("/admin/datasources/datasource/").content.decode()
    assert "127.0.0.1:5432/test" in listing and ":None" not in listing


def test_the_api_stores_the_default_port(cast, api_as):
    body = {k: v for k, v in ADMIN_FORM.items() if v and k != "options"}
    response = api_as(cast.admin).post("/api/v1/datasources/", body, format="json")
    assert response.status_code == 201, response.json()
    assert response.json()["port"] == 5432 and Datasource.objects.get(name="warehouse").port == 5432


@pytest.mark.parametrize(("kind", "port"), [("postgresql", 5432), ("mysql", 3306)])
def test_an_orm_save_stores_the_default_port(kind, port):
    datasource = Datasource.objects.create(name="db", type=kind, host="db", database="d", username="u")
    assert Datasource.objects.get(pk=datasource.pk).port == port


def test_a_file_datasource_gets_no_port(parquet_dir):
    datasource = Datasource.objects.create(name="lake", type="file", format="parquet", path=str(parquet_dir))
    assert Datasource.objects.get(pk=datasource.pk).port is None


def test_the_migration_fills_the_ports_left_empty_before():
    pg = Datasource.objects.create(name="pg", type="postgresql", host="db", database="d", username="u")
    mysql = Datasource.objects.create(name="my", type="mysql", host="db", database="d", username="u", port=3307)
    Datasource.objects.filter(pk=pg.pk).update(port=None)  # a row saved before ports were filled in
    migration = next((Path(__file__).parents[1] / "migrations").glob("*_default_ports.py")).stem
    importlib.import_module(f"datasources.migrations.{migration}").fill_default_ports(apps, None)
    assert Datasource.objects.get(pk=pg.pk).port == 5432 and Datasource.objects.get(pk=mysql.pk).port == 3307


@pytest.fixture
def portless_pg(pg_server):
    """A PostgreSQL datasource whose stored port is empty (as before the migration), on the test
    server, which listens on PostgreSQL's usual port."""
    if PG["port"] != 5432:
        pytest.skip("The PostgreSQL test server does not listen on 5432, the default port this test relies on.")
    datasource = Datasource(
        name="no-port", type="postgresql", host=PG["host"], database=PG["dbname"], username=PROBE_USER
    )
    datasource.password = PROBE_PASSWORD
    datasource.save()
    Datasource.objects.filter(pk=datasource.pk).update(port=None)
    return Datasource.objects.get(pk=datasource.pk)


def test_test_connection_catalog_and_engine_source_all_use_the_default_port(cast, api_as, portless_pg):
    client = api_as(cast.admin)
    assert client.post(f"/api/v1/datasources/{portless_pg.pk}/test/").json()["ok"] is True
    tables = [t["name"] for t in client.get(f"/api/v1/datasources/{portless_pg.pk}/tables/").json()]
    assert "dq_test.orders" in tables
    secrets = {}
    source = connector_for(portless_pg).engine_source("dq_test.orders", secrets)
    assert source["url"] == f"jdbc:postgresql://{PG['host']}:5432/{PG['dbname']}"
    assert secrets[source["password_secret"]] == PROBE_PASSWORD and PROBE_PASSWORD not in str(source)


def test_driver_options_reach_the_engine_as_the_drivers_properties(cast, api_as, pg_datasource, mysql_datasource):
    pg_datasource.options = {"sslmode": "disable", "application_name": "dq", "target_session_attrs": "read-write"}
    pg_datasource.save()
    assert api_as(cast.admin).post(f"/api/v1/datasources/{pg_datasource.pk}/test/").json()["ok"] is True
    source = connector_for(pg_datasource).engine_source("dq_test.orders", {})
    assert source["options"] == {"sslmode": "disable", "ApplicationName": "dq", "targetServerType": "primary"}
    mysql_datasource.options = {"ssl_disabled": True}
    mysql_datasource.save()
    assert api_as(cast.admin).post(f"/api/v1/datasources/{mysql_datasource.pk}/test/").json()["ok"] is True
    assert connector_for(mysql_datasource).engine_source(f"{MYSQL_TEST_DB}.orders", {})["options"] == {
        "useSsl": "false"
    }
