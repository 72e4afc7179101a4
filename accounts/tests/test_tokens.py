"""API tokens expire after DQ_TOKEN_TTL, a user revokes their own, and the admin shows no raw key."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db
TOKEN = "/api/v1/auth/token/"


def _token(client, username="author", password="author-pass-123") -> str:
    response = client.post(TOKEN, {"username": username, "password": password}, content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()["token"]


def _list(client, token):
    return client.get("/api/v1/checks/", HTTP_AUTHORIZATION=f"Token {token}")


def test_a_token_says_when_it_expires_thirty_days_out_by_default(cast, client):
    response = client.post(
        TOKEN, {"username": "author", "password": "author-pass-123"}, content_type="application/json"
    )
    expires = timezone.datetime.fromisoformat(response.json()["expires"].replace("Z", "+00:00"))
    assert timedelta(days=29, hours=23) < expires - timezone.now() <= timedelta(days=30)


def test_a_token_older_than_the_ttl_answers_401_saying_how_to_get_a_new_one(cast, client):
    token = _token(client)
    assert _list(client, token).status_code == 200
    Token.objects.filter(key=token).update(created=timezone.now() - timedelta(days=30, seconds=1))
    response = _list(client, token)
    assert response.status_code == 401
    assert "expired" in response.json()["message"] and "POST /api/v1/auth/token/" in response.json()["message"]
    assert response["WWW-Authenticate"] == "Token"


def test_signing_in_after_expiry_gives_a_new_working_token(cast, client):
    old = _token(client)
    Token.objects.filter(key=old).update(created=timezone.now() - timedelta(days=31))
    new = _token(client)
    assert new != old and _list(client, new).status_code == 200 and _list(client, old).status_code == 401


def test_the_ttl_is_a_setting(cast, client, settings):
    settings.DQ_TOKEN_TTL = 60
    token = _token(client)
    Token.objects.filter(key=token).update(created=timezone.now() - timedelta(seconds=61))
    assert _list(client, token).status_code == 401


def test_a_user_revokes_their_own_token_and_it_stops_working_at_once(cast, client):
    token = _token(client)
    other = _token(client, "outsider", "outsider-pass-123")
    response = client.post("/api/v1/auth/token/revoke/", HTTP_AUTHORIZATION=f"Token {token}")
    assert response.status_code == 204
    assert _list(client, token).status_code == 401
    assert _list(client, other).status_code == 200  # only the caller's own token
    assert _token(client) != token


def test_revoking_needs_a_sign_in(client, db):
    response = client.post("/api/v1/auth/token/revoke/")
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"


@pytest.fixture
def superuser(cast):
    cast.admin.is_superuser = True
    cast.admin.save()
    return cast.admin


def test_the_admin_token_list_shows_user_and_a_key_prefix_never_the_key(cast, client, superuser):
    token = Token.objects.create(user=cast.author)
    client.force_login(superuser)
    listing = client.get("/admin/accounts/apitoken/")
    assert listing.status_code == 200
    assert b"author" in listing.content and token.key[:4].encode() in listing.content
    assert token.key.encode() not in listing.content
    revoke = client.get(f"/admin/accounts/apitoken/user/{cast.author.pk}/revoke/")
    assert revoke.status_code == 200 and token.key.encode() not in revoke.content
    # DRF's own token admin, which lists raw keys, is gone; nobody adds a token by hand.
    assert client.get("/admin/authtoken/tokenproxy/").status_code == 404
    assert client.get("/admin/accounts/apitoken/add/").status_code == 403


def test_an_admin_revokes_a_users_token_and_it_stops_working(cast, client, superuser):
    key = _token(client)
    client.force_login(superuser)
    response = client.post(f"/admin/accounts/apitoken/user/{cast.author.pk}/revoke/")
    assert response.status_code == 302
    client.logout()
    assert _list(client, key).status_code == 401


def test_staff_without_the_delete_permission_cannot_revoke(cast, client):
    key = _token(client)
    client.force_login(cast.admin)  # staff, but no permission on tokens
    assert client.post(f"/admin/accounts/apitoken/user/{cast.author.pk}/revoke/").status_code == 403
    client.logout()
    assert _list(client, key).status_code == 200
