"""Partitions are values: registered against the catalog's columns and types, stored typed, and
matched exactly by the gate, so no text in a value can pass for another partition."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps as django_apps

from gates.models import Batch
from gates.partitions import partition_key

from .conftest import SCHEMA, register

pytestmark = pytest.mark.django_db
SHIPMENTS = f"{SCHEMA}.shipments"


@pytest.fixture
def shipments(gate_tables):
    gate_tables.execute(
        f"CREATE TABLE {SHIPMENTS} (country text, status text, qty integer, shipped date, price numeric)"
    )
    gate_tables.execute(f"INSERT INTO {SHIPMENTS} VALUES ('CN', 'CREATED', 3, '2026-11-29', 9.5)")
    gate_tables.execute(f"GRANT SELECT ON {SHIPMENTS} TO dq_password_probe")
    return SHIPMENTS


def gate(client, datasource, *partition) -> dict:
    response = client.get("/api/v1/gate/", {"datasource": datasource.pk, "table": SHIPMENTS, "partition": partition})
    assert response.status_code == 200, response.json()
    return response.json()


def test_a_value_holding_a_comma_and_an_equals_sign_never_passes_for_two_columns(cast, api_as, shop, shipments):
    author, outsider = api_as(cast.author), api_as(cast.outsider)
    real = register(author, shop, SHIPMENTS, partition={"country": "CN", "status": "CREATED"})
    assert real["state"] == "awaiting_approval"  # no check reads the table: held by the fail mode
    forged = register(outsider, shop, SHIPMENTS, partition={"country": "CN,status=CREATED"})
    assert forged["partition"] == {"country": "CN,status=CREATED"}
    # Say the forged batch passed its checks (it matches no row) and was published.
    Batch.objects.filter(pk=forged["id"]).update(state=Batch.State.PUBLISHED)

    asked = gate(outsider, shop, "country:CN", "status:CREATED")
    assert (asked["batch"], asked["state"], asked["may_consume"]) == (real["id"], "awaiting_approval", False)
    assert gate(author, shop, "country:CN,status:CREATED")["batch"] == real["id"]
    as_json = gate(outsider, shop, '{"country": "CN,status=CREATED"}')
    assert (as_json["batch"], as_json["may_consume"]) == (forged["id"], True)
    keys = dict(Batch.objects.values_list("pk", "partition_key"))
    assert keys[real["id"]] != keys[forged["id"]]


def test_a_partition_is_stored_under_the_catalogs_names_and_types_and_matched_by_its_text(
    cast, api_as, shop, shipments
):
    client = api_as(cast.author)
    body = register(client, shop, SHIPMENTS, partition={"COUNTRY": "CN", "qty": "3", "shipped": "2026-11-29"})
    assert body["partition"] == {"country": "CN", "qty": 3, "shipped": "2026-11-29"}
    assert gate(client, shop, "qty:3", "country:CN", "shipped:2026-11-29")["batch"] == body["id"]
    assert gate(client, shop, "country:CN", "qty:3")["batch"] is None  # a partition is all its columns
    assert gate(client, shop, "country:CN", "qty:3", "shipped:2026-11-30")["batch"] is None


@pytest.mark.parametrize(
    ("partition", "said"),
    [
        ({"qty": "abc"}, "Column 'qty' is integer: 'abc' is not a whole number."),
        ({"qty": "3.5"}, "Column 'qty' is integer: '3.5' is not a whole number."),
        ({"shipped": "29/11/2026"}, "Column 'shipped' is date: '29/11/2026' is not a date written YYYY-MM-DD."),
        ({"price": "cheap"}, "Column 'price' is numeric: 'cheap' is not a number."),
        ({"country": "CN", "Country": "HK"}, "Column 'country' is given twice ('Country')."),
        ({"region": "asia"}, "Table 'dq_gates.shipments' has no column 'region'"),
    ],
)
def test_a_value_the_column_cannot_hold_is_a_400_naming_partition(cast, api_as, shop, shipments, partition, said):
    response = api_as(cast.author).post(
        "/api/v1/batches/", {"datasource": shop.pk, "table": SHIPMENTS, "partition": partition}, format="json"
    )
    assert response.status_code == 400, response.json()
    assert response.json()["fields"]["partition"][0].startswith(said)
    assert not Batch.objects.exists()


def test_the_gate_refuses_a_column_asked_twice_and_a_json_partition_that_is_not_an_object(cast, api_as, shop):
    client = api_as(cast.author)
    for asked in (["country:CN", "country:HK"], ['["CN"]'], ['{"country": true}']):
        response = client.get("/api/v1/gate/", {"datasource": shop.pk, "table": SHIPMENTS, "partition": asked})
        assert response.status_code == 400 and "partition" in response.json()["fields"], asked


def test_the_migration_gives_stored_batches_the_exact_key_of_their_partition(cast, api_as, shop, shipments):
    body = register(api_as(cast.author), shop, SHIPMENTS, partition={"country": "CN", "status": "CREATED"})
    Batch.objects.filter(pk=body["id"]).update(partition_key="country=CN,status=CREATED")  # the old key
    migration = importlib.import_module("gates.migrations.0002_exact_partitions_release_rights")
    migration.exact_keys(django_apps, None)
    assert Batch.objects.get(pk=body["id"]).partition_key == partition_key({"status": "CREATED", "country": "CN"})
    assert partition_key({"country": "CN", "status": "CREATED"}) != partition_key({"country": "CN,status=CREATED"})
