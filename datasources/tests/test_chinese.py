"""Datasources answer in Simplified Chinese when asked: field-level validation and the connection
test against the real PostgreSQL test server."""

from __future__ import annotations

import pytest

from conftest import PROBE_PASSWORD

pytestmark = pytest.mark.django_db
URL = "/api/v1/datasources/"
CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}
BODY = {
    "name": "warehouse",
    "type": "postgresql",
    "host": "127.0.0.1",
    "port": 5432,
    "database": "test",
    "username": "reader",
    "password": "s3cret-Pw",
}


def test_a_taken_name_and_a_bad_host_are_refused_field_by_field_in_chinese(cast, api_as):
    api = api_as(cast.admin)
    assert api.post(URL, BODY, format="json").status_code == 201
    response = api.post(URL, {**BODY, "host": "db host!", "database": ""}, format="json", **CHINESE)
    assert response.status_code == 400
    fields = response.json()["fields"]
    assert fields["name"] == ["名为 'warehouse' 的数据源已存在；请换一个名称。"]
    assert fields["host"] == ["主机只能包含字母、数字、点、连字符和冒号。"]
    assert set(fields) == {"name", "host", "database"}


def test_a_file_datasource_outside_the_file_roots_is_refused_in_chinese_and_in_english(cast, api_as, file_roots):
    body = {"name": "files", "type": "file", "path": "/etc", "format": "parquet"}
    chinese = api_as(cast.admin).post(URL, body, format="json", **CHINESE).json()["fields"]["path"][0]
    english = api_as(cast.admin).post(URL, body, format="json").json()["fields"]["path"][0]
    assert chinese.startswith("路径必须位于允许的文件根目录（DQ_FILE_ROOTS）之一下：")
    assert english.startswith("The path must lie under one of the allowed file roots (DQ_FILE_ROOTS): ")
    root = str(file_roots.resolve())
    assert root in chinese and root in english


def test_the_connection_test_of_a_reachable_source_reports_in_chinese(cast, api_as, pg_datasource):
    result = api_as(cast.author).post(f"{URL}{pg_datasource.pk}/test/", **CHINESE).json()
    assert result["ok"] is True
    assert result["message"].startswith("已连接 PostgreSQL 15")
    assert f"数据库 '{pg_datasource.database}'" in result["message"]


def test_a_wrong_password_keeps_the_servers_own_words_inside_a_chinese_sentence(cast, api_as, pg_datasource):
    pg_datasource.password = PROBE_PASSWORD + "-wrong"
    pg_datasource.save()
    result = api_as(cast.admin).post(f"{URL}{pg_datasource.pk}/test/", **CHINESE).json()
    assert result["ok"] is False
    assert result["message"].startswith("无法连接位于 ") and "password authentication failed" in result["message"]
    assert PROBE_PASSWORD not in result["message"]
