"""E-mail: a list of addresses sent through the platform's SMTP server (EMAIL_URL), or a
`mailto://` / `mailtos://` Apprise URL that names its own server and login."""

from __future__ import annotations

import re
from urllib.parse import quote

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext as _

from .base import Message, TargetInvalid, apprise_send, require_apprise, require_reachable, require_url, url_preview

LABEL = "E-mail"
PLACEHOLDER = "ops@example.com, dba@example.com"
OWN_SERVER_SCHEMES = ("mailto", "mailtos")
MAX_RECIPIENTS = 50


def addresses(target: str) -> list[str]:
    return [a for a in re.split(r"[\s,;]+", target.strip()) if a]


def clean_target(target: str) -> str:
    text = (target or "").strip()
    if text.lower().startswith(tuple(s + "://" for s in OWN_SERVER_SCHEMES)):
        url = require_url(text, OWN_SERVER_SCHEMES, "mailtos://user:password@smtp.example.com?to=ops@example.com")
        require_apprise(url, "mailtos://user:password@smtp.example.com?to=ops@example.com")
        require_reachable(url)
        return url
    found = addresses(text)
    if not found:
        raise TargetInvalid(
            _("Enter one or more e-mail addresses, separated by commas, e.g. %(placeholder)s.")
            % {"placeholder": PLACEHOLDER}
        )
    if len(found) > MAX_RECIPIENTS:
        raise TargetInvalid(
            _("At most %(max_recipients)s addresses; use a mailing list for more.") % {"max_recipients": MAX_RECIPIENTS}
        )
    bad = []
    for address in found:
        try:
            validate_email(address)
        except ValidationError:
            bad.append(address)
    if bad:
        raise TargetInvalid(_("Not an e-mail address: %(items)s.") % {"items": ", ".join(bad)})
    return ", ".join(found)


def preview(target: str) -> str:
    # Plain addresses hold no secret; an own-server URL holds a login.
    if target.lower().startswith(tuple(s + "://" for s in OWN_SERVER_SCHEMES)):
        return url_preview(target)
    return target


def send(target: str, message: Message) -> None:
    if target.lower().startswith(tuple(s + "://" for s in OWN_SERVER_SCHEMES)):
        apprise_send(target, message)
        return
    # The platform's own SMTP server is the operator's choice (often a relay on this host), not a target.
    apprise_send(
        platform_smtp_url(addresses(target)),
        message,
        secret=_smtp_secret(),
        also_allowed=(settings.EMAIL_HOST.lower(),),
    )


def platform_smtp_url(recipients: list[str]) -> str:
    """The Apprise URL of the platform's SMTP server (Django's EMAIL_* settings, from EMAIL_URL)."""
    host, port = settings.EMAIL_HOST, settings.EMAIL_PORT
    login = ""
    if settings.EMAIL_HOST_USER:
        login = (
            quote(settings.EMAIL_HOST_USER, safe="") + ":" + quote(settings.EMAIL_HOST_PASSWORD or "", safe="") + "@"
        )
    scheme = "mailtos" if settings.EMAIL_USE_SSL or settings.EMAIL_USE_TLS else "mailto"
    mode = "ssl" if settings.EMAIL_USE_SSL else ("starttls" if settings.EMAIL_USE_TLS else "insecure")
    query = (
        f"smtp={quote(host)}&from={quote(settings.DEFAULT_FROM_EMAIL)}&to={quote(','.join(recipients))}"
        f"&mode={mode}&format=text"
    )
    return f"{scheme}://{login}{host}:{port}/?{query}"


def _smtp_secret() -> str | None:
    return settings.EMAIL_HOST_PASSWORD or None
