"""tables/ and columns/ read the live catalog of PostgreSQL, MariaDB, Parquet and CSV sources."""

import pytest

from conftest import MYSQL_TEST_DB

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
    assert _get(api_as, cast.author, mysql_datasource, "tables/").json() == [{"name": f"{MYSQL_TEST_DB}.orders"}]


def test_mariadb_columns_come_in_table_order_with_their_types(cast, api_as, mysql_datasource):
    response = _get(api_as, cast.author, mysql_datasource, f"columns/?table={MYSQL_TEST_DB}.orders")
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


def test_a_json_lines_dataset_and_a_partitioned_directory_give_their_first_file_s_columns(
    cast, api_as, make_datasource, file_roots
):
    base = file_roots / "json"
    (base / "clicks" / "day=2026-11-01").mkdir(parents=True)
    (base / "clicks" / "_SUCCESS").write_text("")
    (base / "clicks" / "day=2026-11-01" / ".part-0.json.crc").write_text("not json")
    (base / "clicks" / "day=2026-11-01" / "part-0.json").write_text(
        '{"click_id": 1, "page": "/home", "at": "2026-11-01 10:00:00"}\n{"click_id": 2, "page": null, "at": null}\n'
    )
    (base / "users.jsonl").write_text('{"user_id": 7, "tags": ["a"]}\n')
    datasource = make_datasource(name="events", type="file", format="json", path=str(base))

    assert _get(api_as, cast.author, datasource, "tables/").json() == [{"name": "clicks"}, {"name": "users"}]
    assert _get(api_as, cast.author, datasource, "columns/?table=clicks").json() == [
        {"name": "click_id", "type": "int64"},
        {"name": "page", "type": "string"},
        {"name": "at", "type": "timestamp[s]"},
    ]
    users = _get(api_as, cast.author, datasource, "columns/?table=users").json()
    assert users == [{"name": "user_id", "type": "int64"}, {"name": "tags", "type": "list<item: string>"}]


def test_a_directory_without_a_data_file_answers_502_saying_so(cast, api_as, make_datasource, file_roots):
    (file_roots / "empty" / "orders").mkdir(parents=True)
    (file_roots / "empty" / "orders" / "_SUCCESS").write_text("")
    datasource = make_datasource(name="bare", type="file", format="parquet", path=str(file_roots / "empty"))

    response = _get(api_as, cast.author, datasource, "columns/?table=orders")

    assert response.status_code == 502 and "no data file" in response.json()["message"]


def test_reading_a_file_dataset_s_columns_keeps_pandas_out_of_the_web_process(parquet_dir, csv_dir):
    """pyarrow.dataset would import pandas (~70 MB held by the web process from then on: the
    embedded default's memory budget); the format readers do not."""
    import json
    import os
    import subprocess
    import sys

    script = f"""
import json, sys
from pathlib import Path
import django
django.setup()
from datasources.connectors.files import FileConnector

class Source:
    is_remote_path = False
    options = {{}}
    def __init__(self, format, path):
        self.format, self.path = format, path
    def local_path(self):
        return Path(self.path)

before = "pandas" in sys.modules
columns = [c.name for c in FileConnector(Source("parquet", {str(parquet_dir)!r})).columns("orders")]
columns += [c.name for c in FileConnector(Source("csv", {str(csv_dir)!r})).columns("events")]
print(json.dumps([before, "pandas" in sys.modules, columns]))
"""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "dq_platform.settings_test"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    before, after, columns = json.loads(out.stdout.strip().splitlines()[-1])
    assert columns == ["order_id", "status", "amount", "event_id", "kind", "happened_at"]
    assert (before, after) == (False, False)
