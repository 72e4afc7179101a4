"""The API's own error answers (outside any one app) follow the request's language: an oversized
body refused before the language middleware runs, an unknown path, a bad page size, a bad search."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db
CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-CN"}


def test_an_oversized_body_is_refused_in_chinese_when_chinese_is_asked(cast, api_as, settings):
    settings.DQ_MAX_BODY_BYTES = 2048
    body = {"name": "x" * 3000, "template": "null_check", "params": {}}
    chinese = api_as(cast.author).post("/api/v1/checks/", body, format="json", **CHINESE)
    assert chinese.status_code == 413
    assert chinese.json()["message"] == "请求体超过了 2,048 字节的上限（DQ_MAX_BODY_BYTES）。"
    english = api_as(cast.author).post("/api/v1/checks/", body, format="json")
    assert english.json()["message"] == "The request body is larger than the limit of 2,048 bytes (DQ_MAX_BODY_BYTES)."


def test_dolphinschedulers_language_header_is_heard_before_the_body_is_read(cast, api_as, settings):
    settings.DQ_MAX_BODY_BYTES = 2048
    response = api_as(cast.author).post(
        "/api/v1/checks/", {"name": "x" * 3000}, format="json", HTTP_LANGUAGE="zh_CN", HTTP_ACCEPT_LANGUAGE="en"
    )
    assert response.json()["message"].startswith("请求体超过了")


def test_an_unknown_api_path_is_answered_in_chinese(cast, api_as):
    response = api_as(cast.author).get("/api/v1/no-such-thing/", **CHINESE)
    assert response.status_code == 404
    assert response.json()["message"] == "/api/v1/no-such-thing/ 没有 API 接口；接口列表见 /api/docs/。"


def test_a_bad_page_size_and_a_bad_id_list_name_their_parameter_in_chinese(cast, api_as):
    api = api_as(cast.author)
    page = api.get("/api/v1/checks/?page_size=0", **CHINESE).json()
    assert page["fields"] == {"page_size": ["须为 1 到 500 的整数；实际为 '0'。"]}
    ids = api.get("/api/v1/datasources/?ids=1,x", **CHINESE).json()
    assert ids["fields"] == {"ids": ["ID 须为从 1 开始的整数，用逗号分隔；不能是 'x'。"]}
    assert ids["message"] == "部分字段无效：ids。"
