"""The linkage endpoints behind the table and column selects read the live catalog."""

import pytest

from conftest import MYSQL_TEST_DB

pytestmark = pytest.mark.django_db


def _results(api_as, user, query):
    response = api_as(user).get(f"/api/v1/form-options/{query}")
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_postgresql_tables_and_columns_feed_the_selects(cast, api_as, pg_datasource):
    tables = _results(api_as, cast.author, f"tables/?datasource={pg_datasource.pk}")
    assert {"label": "dq_test.orders", "value": "dq_test.orders"} in tables
    columns = _results(api_as, cast.author, f"columns/?datasource={pg_datasource.pk}&table=dq_test.orders")
    assert columns[0] == {"label": "order_id (integer)", "value": "order_id"}
    assert [c["value"] for c in columns] == ["order_id", "customer_email", "amount", "created_at", "Ünïcode note"]


def test_mariadb_tables_and_columns_feed_the_selects(cast, api_as, mysql_datasource):
    assert _results(api_as, cast.author, f"tables/?datasource={mysql_datasource.pk}") == [
        {"label": f"{MYSQL_TEST_DB}.orders", "value": f"{MYSQL_TEST_DB}.orders"}
    ]
    columns = _results(api_as, cast.author, f"columns/?datasource={mysql_datasource.pk}&table={MYSQL_TEST_DB}.orders")
    assert [c["value"] for c in columns] == ["order_id", "customer_email", "amount", "created_at", "Ünïcode note"]


def test_parquet_datasets_and_columns_feed_the_selects(cast, api_as, make_datasource, parquet_dir):
    lake = make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    assert [t["value"] for t in _results(api_as, cast.author, f"tables/?datasource={lake.pk}")] == [
        "customers",
        "orders",
    ]
    assert _results(api_as, cast.author, f"columns/?datasource={lake.pk}&table=orders") == [
        {"label": "order_id (int64)", "value": "order_id"},
        {"label": "status (string)", "value": "status"},
        {"label": "amount (double)", "value": "amount"},
    ]


def test_empty_parents_answer_an_empty_list_not_an_error(cast, api_as, pg_datasource):
    assert _results(api_as, cast.author, "tables/?datasource=") == []
    assert _results(api_as, cast.author, f"columns/?datasource={pg_datasource.pk}&table=") == []
    assert _results(api_as, cast.author, f"columns/?datasource={pg_datasource.pk}&table=dq_test.gone") == []


def test_a_datasource_the_caller_may_not_use_answers_404(cast, api_as, make_datasource):
    hidden = make_datasource(
        name="finance", type="postgresql", host="db", database="d", username="u", allowed_groups=[cast.analysts]
    )
    assert api_as(cast.outsider).get(f"/api/v1/form-options/tables/?datasource={hidden.pk}").status_code == 404


WRONG_PASSWORD = "not-the-Pa55word"


@pytest.mark.parametrize("kind", ["pg", "mysql"])
def test_a_wrong_password_answers_502_with_the_reason_and_never_the_password(
    cast, api_as, request, make_datasource, kind
):
    from conftest import MYSQL, PG_PROBE_DATASOURCE

    if kind == "pg":
        request.getfixturevalue("pg_server")
        fields = {**PG_PROBE_DATASOURCE, "password": WRONG_PASSWORD}
    else:
        request.getfixturevalue("mysql_server")
        fields = {
            "type": "mysql",
            "host": MYSQL["host"],
            "port": MYSQL["port"],
            "database": MYSQL_TEST_DB,
            "username": MYSQL["user"],
            "password": WRONG_PASSWORD,
        }
    wrong = make_datasource(name=f"wrong-password-{kind}", **fields)

    response = api_as(cast.author).get(f"/api/v1/form-options/tables/?datasource={wrong.pk}")

    assert response.status_code == 502
    message = response.json()["message"]
    assert "Cannot connect" in message and ("password" in message.lower() or "denied" in message.lower())
    assert WRONG_PASSWORD not in response.content.decode()
