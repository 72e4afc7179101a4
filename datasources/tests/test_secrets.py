"""Datasource passwords: encrypted at rest, write-only in the API, absent from pages and logs."""

import logging

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command
from django.db import connection

from datasources.models import Datasource

pytestmark = pytest.mark.django_db
SECRET = "Tr0ub4dor-&-3-secret"


def _raw_ciphertext(datasource) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT password_ciphertext FROM datasources_datasource WHERE id = %s", [datasource.pk])
        return cursor.fetchone()[0]


def test_the_password_is_absent_from_every_api_response(cast, api_as):
    client = api_as(cast.admin)
    body = {
        "name": "pg",
        "type": "postgresql",
        "host": "127.0.0.1",
        "database": "d",
        "username": "u",
        "password": SECRET,
    }
    created = client.post("/api/v1/datasources/", body, format="json")
    pk = created.json()["id"]
    responses = [
        created,
        client.get("/api/v1/datasources/"),
        client.get(f"/api/v1/datasources/{pk}/"),
        client.patch(f"/api/v1/datasources/{pk}/", {"password": SECRET + "2"}, format="json"),
        client.put(f"/api/v1/datasources/{pk}/", {**body, "password": SECRET}, format="json"),
        api_as(cast.author).get(f"/api/v1/datasources/{pk}/"),
        client.get("/api/schema/"),
    ]
    for response in responses:
        assert response.status_code < 300
        assert SECRET not in response.content.decode()
    assert "password" not in created.json()


def test_the_database_column_holds_ciphertext_that_decrypts_to_the_password(make_datasource):
    datasource = make_datasource(name="pg", type="postgresql", host="h", database="d", username="u", password=SECRET)
    raw = _raw_ciphertext(datasource)
    assert SECRET not in raw and raw.startswith("gAAAA")  # a Fernet token
    assert Datasource.objects.get(pk=datasource.pk).password == SECRET


def test_a_secret_survives_a_key_rotation(make_datasource, settings):
    old_key = settings.DQ_FERNET_KEYS[0]
    datasource = make_datasource(name="pg", type="postgresql", host="h", database="d", username="u", password=SECRET)
    new_key = Fernet.generate_key().decode()
    settings.DQ_FERNET_KEYS = [new_key, old_key]
    assert Datasource.objects.get(pk=datasource.pk).password == SECRET  # old key still decrypts

    call_command("rotate_secrets")
    settings.DQ_FERNET_KEYS = [new_key]  # the old key can now be dropped
    assert Datasource.objects.get(pk=datasource.pk).password == SECRET
    assert Fernet(new_key.encode()).decrypt(_raw_ciphertext(datasource).encode()).decode() == SECRET


def test_the_admin_change_page_never_renders_the_password(cast, client, make_datasource):
    datasource = make_datasource(name="pg", type="postgresql", host="h", database="d", username="u", password=SECRET)
    client.force_login(cast.admin.__class__.objects.create_superuser("root", password="root-pass-123"))
    page = client.get(f"/admin/datasources/datasource/{datasource.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert SECRET not in html and _raw_ciphertext(datasource) not in html
    listing = client.get("/admin/datasources/datasource/")
    assert SECRET not in listing.content.decode()


def test_the_admin_form_keeps_the_password_when_left_blank(cast, client, make_datasource):
    datasource = make_datasource(name="pg", type="postgresql", host="h", database="d", username="u", password=SECRET)
    client.force_login(cast.admin.__class__.objects.create_superuser("root", password="root-pass-123"))
    form = {
        "name": "pg",
        "type": "postgresql",
        "host": "h2",
        "port": 5432,
        "database": "d",
        "username": "u",
        "password": "",
        "path": "",
        "format": "",
        "options": "{}",
        "description": "",
    }
    response = client.post(f"/admin/datasources/datasource/{datasource.pk}/change/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    datasource.refresh_from_db()
    assert datasource.host == "h2" and datasource.password == SECRET


def test_a_failed_connection_logs_and_answers_without_the_password(
    cast, api_as, pg_server, make_datasource, caplog, closed_port
):
    datasource = make_datasource(
        name="pg", type="postgresql", host="127.0.0.1", port=closed_port, database="test", username="u", password=SECRET
    )
    with caplog.at_level(logging.DEBUG):
        response = api_as(cast.admin).post(f"/api/v1/datasources/{datasource.pk}/test/")
    assert response.json()["ok"] is False
    assert SECRET not in response.content.decode()
    assert SECRET not in caplog.text
