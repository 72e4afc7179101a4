"""tables/ and columns/ read the live catalog of PostgreSQL, MariaDB, Parquet and CSV sources."""

import pytest

pytestmark = pytest.mark.django_db

ORDER_COLUMNS_PG = [
    {"name": "order_id", "type": "integer"},
    {"name": "customer_email", "type": "text"},
    {"name": "amount", "type": "numeric"},
    {"name": "created_at", "type": "timestamp without time zone"},
    {"name": "Ünïcode note", "type": "character varying"},
]


def _get(api_as, user, datasource, suffix):
    return api_as(user).get(f"/api/v1/datasources/{datasource.pk}/{suffix}")


def test_postgresql_tables_are_named_schema_dot_table(cast, api_as, pg_datasource):
    names = [t["name"] for t in _get(api_as, cast.author, pg_datasource, "tables/").json()]
    assert "dq_test.orders" in names
    assert not any(n.startswith(("pg_catalog.", "information_schema.")) for n in names)


def test_postgresql_columns_come_in_table_order_with_their_types(cast, api_as, pg_datasource):
    response = _get(api_as, cast.author, pg_datasource, "columns/?table=dq_test.orders")
    assert response.json() == ORDER_COLUMNS_PG


def test_mariadb_tables_are_named_database_dot_table(cast, api_as, mysql_datasource):
    assert _get(api_as, cast.author, mysql_datasource, "tables/").json() == [{"name": "dq_test.orders"}]


def test_mariadb_columns_come_in_table_order_with_their_types(cast, api_as, mysql_datasource):
    response = _get(api_as, cast.author, mysql_datasource, "columns/?table=dq_test.orders")
    assert response.json() == [
        {"name": "order_id", "type": "int"},
        {"name": "customer_email", "type": "varchar"},
        {"name": "amount", "type": "decimal"},
        {"name": "created_at", "type": "datetime"},
        {"name": "Ünïcode note", "type": "varchar"},
    ]


@pytest.mark.parametrize("kind", ["pg_datasource", "mysql_datasource"])
def test_an_unknown_table_answers_404(cast, api_as, request, kind):
    response = _get(api_as, cast.author, request.getfixturevalue(kind), "columns/?table=dq_test.nope")
    assert response.status_code == 404
    assert "dq_test.nope" in response.json()["message"]


def test_columns_without_a_table_answers_400_naming_the_parameter(cast, api_as, pg_datasource):
    response = _get(api_as, cast.author, pg_datasource, "columns/")
    assert response.status_code == 400 and "table" in response.json()["fields"]


def test_an_unreachable_source_answers_502_with_the_reason(cast, api_as, pg_datasource, closed_port):
    pg_datasource.port = closed_port
    pg_datasource.save()
    response = _get(api_as, cast.author, pg_datasource, "tables/")
    assert response.status_code == 502
    assert f"127.0.0.1:{closed_port}" in response.json()["message"]


def test_a_parquet_directory_lists_each_dataset_without_extension(cast, api_as, make_datasource, parquet_dir):
    datasource = make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    assert _get(api_as, cast.author, datasource, "tables/").json() == [{"name": "customers"}, {"name": "orders"}]
    columns = _get(api_as, cast.author, datasource, "columns/?table=orders").json()
    assert columns == [
        {"name": "order_id", "type": "int64"},
        {"name": "status", "type": "string"},
        {"name": "amount", "type": "double"},
    ]
    single = _get(api_as, cast.author, datasource, "columns/?table=customers").json()
    assert [c["name"] for c in single] == ["customer_id", "email"]


def test_a_csv_directory_lists_csv_files_and_subdirectories_with_inferred_types(cast, api_as, make_datasource, csv_dir):
    datasource = make_datasource(name="drops", type="file", format="csv", path=str(csv_dir))
    assert _get(api_as, cast.author, datasource, "tables/").json() == [{"name": "events"}, {"name": "people"}]
    columns = _get(api_as, cast.author, datasource, "columns/?table=events").json()
    assert columns == [
        {"name": "event_id", "type": "int64"},
        {"name": "kind", "type": "string"},
        {"name": "happened_at", "type": "timestamp[s]"},
    ]
    assert [c["name"] for c in _get(api_as, cast.author, datasource, "columns/?table=people").json()] == [
        "person_id",
        "name",
    ]


def test_an_unknown_dataset_in_a_file_source_answers_404(cast, api_as, make_datasource, parquet_dir):
    datasource = make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    assert _get(api_as, cast.author, datasource, "columns/?table=missing").status_code == 404
