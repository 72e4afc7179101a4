"""Datasets are named as OpenLineage's naming conventions say, held to openlineage-python's own
naming helpers."""

from __future__ import annotations

from openlineage.client.naming import dataset as naming

from datasources.models import Datasource
from integrations.openlineage import dataset_of
from integrations.sources import Source


def _named(table: str, **fields) -> tuple[str, str]:
    return dataset_of(Source(Datasource(name="d", **fields), table, None))


def test_a_postgresql_table_is_named_by_host_port_database_schema_and_table():
    expected = naming.Postgres(host="db.example.com", port="5433", database="shop", schema="sales", table="orders")
    got = _named("sales.orders", type="postgresql", host="db.example.com", port=5433, database="shop")
    assert got == (expected.get_namespace(), expected.get_name())


def test_a_postgresql_table_without_a_schema_is_in_public_and_the_port_defaults_to_5432():
    expected = naming.Postgres(host="db.example.com", port="5432", database="shop", schema="public", table="orders")
    assert _named("orders", type="postgresql", host="db.example.com", database="shop") == (
        expected.get_namespace(),
        expected.get_name(),
    )


def test_a_mysql_table_is_named_by_host_port_database_and_table():
    expected = naming.MySQL(host="maria.example.com", port="3306", database="shop", table="orders")
    assert _named("orders", type="mysql", host="maria.example.com", database="shop") == (
        expected.get_namespace(),
        expected.get_name(),
    )


def test_files_on_s3_and_on_this_machine_are_named_by_bucket_and_key_or_by_path(tmp_path, settings):
    on_s3 = naming.S3(bucket_name="lake", object_key="raw/orders")
    assert _named("orders", type="file", format="parquet", path="s3a://lake/raw") == (
        on_s3.get_namespace(),
        on_s3.get_name(),
    )
    settings.DQ_FILE_ROOTS = [tmp_path]
    local = naming.LocalFileSystem(path=f"{tmp_path}/orders")
    assert _named("orders", type="file", format="parquet", path=str(tmp_path)) == (
        local.get_namespace(),
        local.get_name(),
    )


def test_files_on_hdfs_are_named_by_the_namenode_and_the_path():
    expected = naming.HDFS(namenode_host="namenode", namenode_port="8020", path="/warehouse/orders")
    assert _named("orders", type="file", format="parquet", path="hdfs://namenode:8020/warehouse") == (
        expected.get_namespace(),
        expected.get_name(),
    )
