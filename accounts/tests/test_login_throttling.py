"""Failed sign-ins are throttled: the 10th failure for one username from one
address within 15 minutes locks that pair out of the token endpoint, /login/ and the admin's
login, the right password included, with 429 and Retry-After, until the window ends."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.utils import timezone

pytestmark = pytest.mark.django_db
TOKEN = "/api/v1/auth/token/"


def _token_login(client, password: str, address: str = "127.0.0.1"):
    return client.post(
        TOKEN, {"username": "author", "password": password}, content_type="application/json", REMOTE_ADDR=address
    )


def _form_login(client, url: str, password: str, username: str = "author"):
    return client.post(url, {"username": username, "password": password, "next": "/"}, REMOTE_ADDR="127.0.0.1")


def test_the_tenth_wrong_password_on_the_token_endpoint_locks_the_username_out(cast, client):
    answers = [_token_login(client, f"guess-{n}").status_code for n in range(10)]
    assert answers == [400] * 9 + [429]
    right = _token_login(client, "author-pass-123")
    assert right.status_code == 429
    body = right.json()
    assert "Too many failed sign-ins" in body["message"] and body["fields"] == {}
    assert 14 * 60 < int(right["Retry-After"]) <= 15 * 60


def test_160_wrong_passwords_never_let_the_right_one_through_while_locked(cast, client):
    answers = {_token_login(client, f"guess-{n}").status_code for n in range(160)}
    assert answers == {400, 429}
    assert _token_login(client, "author-pass-123").status_code == 429


def test_the_lock_ends_when_its_window_does(cast, client):
    for n in range(10):
        _token_login(client, f"guess-{n}")
    assert _token_login(client, "author-pass-123").status_code == 429
    # 15 minutes after the locking failure (moved back in time rather than waited for).
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=15, seconds=1))
    answer = _token_login(client, "author-pass-123")
    assert answer.status_code == 200 and answer.json()["token"]


def test_failures_from_another_address_or_for_another_user_do_not_lock_this_one(cast, client):
    for n in range(10):
        _token_login(client, f"guess-{n}", address="10.0.0.9")
    assert _token_login(client, "author-pass-123", address="127.0.0.1").status_code == 200
    response = client.post(
        TOKEN,
        {"username": "admin", "password": "admin-pass-123"},
        content_type="application/json",
        REMOTE_ADDR="10.0.0.9",
    )
    assert response.status_code == 200


def test_a_forged_forwarded_for_header_does_not_reset_the_count(cast, client):
    for n in range(10):
        client.post(
            TOKEN,
            {"username": "author", "password": f"guess-{n}"},
            content_type="application/json",
            REMOTE_ADDR="127.0.0.1",
            HTTP_X_FORWARDED_FOR=f"198.51.100.{n}",
        )
    assert _token_login(client, "author-pass-123").status_code == 429


@pytest.mark.parametrize(("url", "username"), [("/login/", "author"), ("/admin/login/", "admin")])
def test_the_login_page_and_the_admin_login_lock_out_after_ten_failures(cast, client, url, username):
    password = f"{username}-pass-123"
    answers = [_form_login(client, url, f"guess-{n}", username).status_code for n in range(10)]
    assert answers == [200] * 9 + [429]  # the form shown again with its error, then the lock
    locked = _form_login(client, url, password, username)
    assert locked.status_code == 429 and b"Too many failed sign-ins" in locked.content
    assert 14 * 60 < int(locked["Retry-After"]) <= 15 * 60
    assert "_auth_user_id" not in client.session


def test_a_lock_on_one_form_holds_on_the_token_endpoint_too(cast, client):
    for n in range(10):
        _form_login(client, "/login/", f"guess-{n}")
    assert _token_login(client, "author-pass-123").status_code == 429


def test_a_successful_sign_in_before_the_limit_works(cast, client):
    for n in range(9):
        _token_login(client, f"guess-{n}")
    assert _token_login(client, "author-pass-123").status_code == 200
    assert _form_login(client, "/login/", "author-pass-123").status_code == 302


def test_the_failure_record_keeps_no_password(cast, client):
    _form_login(client, "/login/", "my-secret-guess")
    _token_login(client, "another-secret-guess")
    stored = " ".join(f"{a.post_data} {a.get_data}" for a in AccessAttempt.objects.all())
    assert AccessAttempt.objects.exists() and "secret-guess" not in stored
