"""The sign-in page Django renders follows the request's language: Accept-Language, and
DolphinScheduler's `language` cookie before it."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db
LOGIN = "/login/"


def test_the_sign_in_page_is_chinese_for_a_chinese_browser(client):
    page = client.get(LOGIN, HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9,en;q=0.8").content.decode()
    assert '<html lang="zh-hans">' in page
    assert "<title>登录 · 数据质量平台</title>" in page
    assert '<label for="id_username">用户名</label>' in page and '<label for="id_password">密码</label>' in page
    assert '<button type="submit">登录</button>' in page
    assert "Sign in" not in page and "Username" not in page


def test_the_sign_in_page_is_english_without_a_language_asked(client):
    page = client.get(LOGIN).content.decode()
    assert '<html lang="en">' in page and '<button type="submit">Sign in</button>' in page


def test_dolphinschedulers_language_cookie_wins_over_the_browser_on_the_sign_in_page(client):
    client.cookies["language"] = "en_US"
    english = client.get(LOGIN, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert '<button type="submit">Sign in</button>' in english
    client.cookies["language"] = "zh_CN"
    chinese = client.get(LOGIN, HTTP_ACCEPT_LANGUAGE="en-US").content.decode()
    assert '<button type="submit">登录</button>' in chinese


def test_a_wrong_password_is_told_in_chinese(cast, client):
    response = client.post(
        LOGIN, {"username": "author", "password": "not-the-password"}, HTTP_ACCEPT_LANGUAGE="zh-Hans"
    )
    assert response.status_code == 200
    assert "用户名和密码不匹配，请重试。" in response.content.decode()
