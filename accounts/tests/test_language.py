"""The API answers in the language a request asks for, and a user's choice of language is kept."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.django_db
CHECKS = "/api/v1/checks/"
ME = "/api/v1/me/"
# What DRF itself says, in its own catalogues, to a request without credentials.
NOT_SIGNED_IN = {"en": "Authentication credentials were not provided.", "zh-hans": "身份认证信息未提供。"}


def test_an_anonymous_request_is_answered_in_english_by_default(client):
    response = client.get(CHECKS)
    assert response.status_code in (401, 403)
    assert response.json()["message"] == NOT_SIGNED_IN["en"]
    assert response["Content-Language"] == "en"


@pytest.mark.parametrize(
    "how",
    [
        {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9,en;q=0.8"},
        {"HTTP_ACCEPT_LANGUAGE": "zh-Hans"},
        {"HTTP_LANGUAGE": "zh_CN"},  # DolphinScheduler's header
    ],
)
def test_a_request_asking_for_chinese_gets_chinese(client, how):
    response = client.get(CHECKS, **how)
    assert response.json()["message"] == NOT_SIGNED_IN["zh-hans"]
    assert response["Content-Language"] == "zh-hans"


def test_dolphinschedulers_language_cookie_wins_over_the_browser_header(client):
    client.cookies["language"] = "en_US"
    response = client.get(CHECKS, HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response.json()["message"] == NOT_SIGNED_IN["en"]


def test_a_language_nobody_speaks_here_falls_back_to_english(client):
    assert client.get(CHECKS, HTTP_ACCEPT_LANGUAGE="fr-FR")["Content-Language"] == "en"


def test_a_user_saves_chinese_and_the_app_and_the_api_answer_in_it(cast, api_as, client):
    api = api_as(cast.author)
    assert api.get(ME).json() == {"username": "author", "is_staff": False, "language": ""}
    saved = api.patch(ME, {"language": "zh-hans"}, format="json")
    assert saved.status_code == 200 and saved.json()["language"] == "zh-hans"
    # A later session of the same user, with an English browser: the saved choice wins.
    client.force_login(cast.author)
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="en-US")
    data = page.content.decode()
    start = data.index('<script id="dq-user" type="application/json">') + len(
        '<script id="dq-user" type="application/json">'
    )
    assert json.loads(data[start : data.index("</script>", start)])["language"] == "zh-hans"
    bad = client.post(CHECKS, {}, content_type="application/json", HTTP_ACCEPT_LANGUAGE="en-US")
    assert bad.status_code == 400 and bad["Content-Language"] == "zh-hans"


def test_a_language_that_is_not_offered_is_refused_naming_the_field(cast, api_as):
    response = api_as(cast.author).patch(ME, {"language": "klingon"}, format="json")
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["language"]


def test_following_the_browser_again_clears_the_saved_language(cast, api_as):
    api = api_as(cast.outsider)
    api.patch(ME, {"language": "zh-hans"}, format="json")
    assert api.patch(ME, {"language": ""}, format="json").json()["language"] == ""
    assert api.get(CHECKS, HTTP_ACCEPT_LANGUAGE="en")["Content-Language"] == "en"
