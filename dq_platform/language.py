"""The language a request is answered in: English or Simplified Chinese.

In order, the first that names a language we speak wins:
1. a `language` cookie, then a `language` header (what DolphinScheduler's own API reads, with its
   values `zh_CN` / `en_US`), so a DolphinScheduler task or page keeps its language here;
2. the signed-in user's saved choice (`accounts.Preference`, copied into the session at sign-in
   and when it is saved, so no request asks the database for it; the browser app sends it as
   Accept-Language too, so this matters for pages Django renders);
3. the Accept-Language header;
4. English.

Work outside a request (alerts rendered by a worker) uses `translation.override(...)` with the
recipient's language instead.
"""

from __future__ import annotations

from django.conf import settings
from django.utils import translation
from django.utils.cache import patch_vary_headers

CHINESE = "zh-hans"
ENGLISH = "en"
# The session's copy of the user's saved language (accounts/signals.py, accounts/views.py).
SESSION_KEY = "dq_language"


def language_code(tag: str | None) -> str | None:
    """'zh_CN', 'zh-CN', 'zh-Hans', 'zh' → 'zh-hans'; 'en_US', 'en' → 'en'; anything else → None."""
    value = (tag or "").strip().lower().replace("_", "-")
    if not value:
        return None
    if value == "zh" or value.startswith(("zh-cn", "zh-hans", "zh-sg")):
        return CHINESE
    if value == "en" or value.startswith("en-"):
        return ENGLISH
    return None


def saved_language(user) -> str | None:
    if not getattr(user, "is_authenticated", False):
        return None
    preference = getattr(user, "preference", None)  # reverse one-to-one; None when never saved
    return language_code(preference.language) if preference is not None else None


def remember_in_session(request, language: str) -> None:
    session = getattr(request, "session", None)
    if session is not None:
        session[SESSION_KEY] = language


def request_language(request) -> str:
    for tag in (request.COOKIES.get("language"), request.headers.get("language")):
        if code := language_code(tag):
            return code
    session = getattr(request, "session", None)
    if session is not None and (code := language_code(session.get(SESSION_KEY))):
        return code
    return translation.get_language_from_request(request) or settings.LANGUAGE_CODE


class RequestLanguage:
    """Activates `request_language` for the request and says so in Content-Language."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        code = request_language(request)
        translation.activate(code)
        request.LANGUAGE_CODE = translation.get_language()
        response = self.get_response(request)
        patch_vary_headers(response, ("Accept-Language", "Cookie"))
        response.headers.setdefault("Content-Language", translation.get_language())
        translation.deactivate()
        return response
