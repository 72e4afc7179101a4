"""What every channel kind shares: the message, the two errors, delivery through Apprise, and
keeping secrets out of error texts and logs."""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from django.utils.translation import gettext as _

from ..stored_texts import SERVICE_ANSWERED, SERVICE_REFUSED, SERVICE_UNREACHABLE

# Parts of a target shorter than this are not treated as secrets (a scheme, "services", a port).
MIN_SECRET_LENGTH = 6
REDACTED = "…"


@dataclass(frozen=True)
class Message:
    """One message: a subject, a plain-text body, and the structured form (webhooks send it)."""

    subject: str
    text: str
    payload: dict[str, Any] = field(default_factory=dict)


class TargetInvalid(ValueError):
    """A target a kind cannot use; the message says what a good one looks like."""


class TransportError(Exception):
    """A delivery failed. `permanent` failures (a rejected address) are not retried.

    The message is what anyone who may read the run sees: what failed and at most the target's
    HTTP status. `detail` (what the target answered, a library's reason) is for administrators
    and the server log only: a target's answer can carry whatever the server behind it holds."""

    def __init__(self, message: str, permanent: bool = False, detail: str = ""):
        super().__init__(message)
        self.permanent = permanent
        self.detail = detail


# --- secrets out of texts and logs --------------------------------------------------------------
def secret_fragments(target: str) -> list[str]:
    """The target and every part of it that may be a token: user, password, host labels of
    token-style hosts, path segments and query values."""
    fragments = {target}
    try:
        parts = urlsplit(target)
    except ValueError:
        return [target]
    for value in (parts.username, parts.password, parts.netloc, parts.path, parts.query):
        if value:
            fragments.add(value)
            fragments.add(unquote(value))
    for segment in parts.path.split("/"):
        fragments.add(segment)
        fragments.add(unquote(segment))
    for _key, value in parse_qsl(parts.query, keep_blank_values=True):
        fragments.add(value)
    if parts.scheme in ("http", "https", "mailto", "mailtos") and parts.hostname and "." in parts.hostname:
        fragments.discard(parts.netloc)  # a plain host name is not a secret; its path may be
        fragments.discard(unquote(parts.netloc))
        if parts.password:
            fragments.add(parts.password)
    return sorted((f for f in fragments if len(f) >= MIN_SECRET_LENGTH), key=len, reverse=True)


def scrub(text: str, fragments: list[str]) -> str:
    for fragment in fragments:
        text = text.replace(fragment, REDACTED)
    return text


_current_secrets: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("dq_channel_secrets", default=())


@contextlib.contextmanager
def secrets_in_flight(target: str) -> Iterator[list[str]]:
    """While a target is in use, log records of the libraries that carry it (Apprise, requests,
    urllib3) are scrubbed of it by `ScrubSecrets` (installed in WatchingConfig.ready)."""
    fragments = secret_fragments(target)
    token = _current_secrets.set(tuple(fragments))
    try:
        yield fragments
    finally:
        _current_secrets.reset(token)


class ScrubSecrets(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        fragments = _current_secrets.get()
        if fragments:
            message = record.getMessage()
            cleaned = scrub(message, list(fragments))
            if cleaned != message:
                record.msg, record.args = cleaned, None
        return True


# Loggers that may see a target while it is in use. A logger's filter applies to records created
# on that very logger, so the children that log are named one by one.
LIBRARY_LOGGERS = ("apprise", "urllib3.connectionpool", "urllib3.util.retry", "requests", "smtplib")


# --- delivery through Apprise --------------------------------------------------------------------
def apprise_send(url: str, message: Message, secret: str | None = None, also_allowed: tuple[str, ...] = ()) -> None:
    """Send `message` to one Apprise URL; TransportError on failure (Apprise's own reason in its
    `detail`). Every connection goes through `reach.guarded_connections`; `also_allowed` names
    hosts the operator configured (the platform's SMTP server)."""
    import apprise

    from .reach import Refused, check_url_host, guarded_connections

    if urlsplit(url).scheme.lower() in HOST_SCHEMES and _url_host(url) not in also_allowed:
        try:
            check_url_host(url)
        except Refused as exc:
            raise TransportError(str(exc), permanent=True) from None
    with secrets_in_flight(secret or url) as fragments:
        # async_mode off: the message is sent in this thread, where the connection guard applies.
        notifier = apprise.Apprise(asset=apprise.AppriseAsset(async_mode=False))
        if not notifier.add(url):
            raise TransportError(
                _("Apprise cannot use this target; edit the channel and enter it again."), permanent=True
            )
        with apprise.LogCapture(level=logging.WARNING) as captured, guarded_connections(also_allowed):
            try:
                result = notifier.notify(
                    title=message.subject, body=message.text, body_format=apprise.NotifyFormat.TEXT
                )
            except Exception as exc:  # noqa: BLE001 — a plug-in bug must still be a recorded failure
                raise TransportError(
                    "Not delivered: the service's plug-in failed.",
                    detail=scrub(f"{type(exc).__name__}: {exc}", fragments),
                ) from None
        if not bool(result):  # Apprise 2.x returns an AppriseResult
            reason = " ".join(captured.getvalue().split()) or "the service did not accept the message"
            raise TransportError(_public_reason(reason), detail=scrub(f"Not delivered: {reason}"[:1000], fragments))


# Apprise schemes that name a host of the user's choosing (self-hosted services, generic HTTP):
# their host is checked when the channel is saved and again before sending.
HOST_SCHEMES = frozenset(
    "json jsons xml xmls form forms mailto mailtos ntfy ntfys gotify gotifys matrix matrixs mmost mmosts "
    "rocket rockets apprise apprises ncloud nclouds nctalk nctalks mqtt mqtts signal signals hassio hassios "
    "bark barks kodi kodis xbmc xbmcs emby embys jellyfin jellyfins growl enigma2 enigma2s mastodon mastodons "
    "toot toots misskey misskeys lametric lametrics".split()
)


def _url_host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def _public_reason(reason: str) -> str:
    """Apprise's reason reduced to what may be shown to anyone who reads the run: the HTTP status,
    or whether the service was reached at all."""
    status = re.search(r"error=(\d{3})", reason)
    if status:
        return SERVICE_ANSWERED % {"status": status.group(1)}
    if re.search(r"connection|resolv|refused|timed? ?out|unreachable", reason, re.I):
        return SERVICE_UNREACHABLE
    return SERVICE_REFUSED


def require_reachable(url: str) -> None:
    """TargetInvalid when the URL's host is, or resolves to, an address targets may not reach."""
    from .reach import Refused, check_url_host

    try:
        check_url_host(url)
    except Refused as exc:
        raise TargetInvalid(str(exc)) from None


def url_preview(url: str) -> str:
    """`https://hooks.slack.com/services/T0/B0/xyz` → `https://hooks.slack.com/…`."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return REDACTED
    if parts.scheme in ("http", "https") and host:
        port = f":{port}" if port else ""
        return f"{parts.scheme}://{host}{port}/{REDACTED}"
    return f"{parts.scheme}://{REDACTED}" if parts.scheme else REDACTED


def require_url(target: str, schemes: tuple[str, ...], example: str) -> str:
    text = (target or "").strip()
    if not text:
        raise TargetInvalid(_("A target is required, e.g. %(example)s") % {"example": example})
    if re.search(r"\s", text):
        raise TargetInvalid(_("A target URL contains no spaces, e.g. %(example)s") % {"example": example})
    try:
        parts = urlsplit(text)
        if parts.scheme.lower() in ("http", "https"):
            parts.port  # noqa: B018 — reading it validates it (service URLs keep tokens where a port would be)
    except ValueError as exc:
        raise TargetInvalid(
            _("The URL's host or port cannot be read (%(exc)s), e.g. %(example)s") % {"exc": exc, "example": example}
        ) from None
    scheme = parts.scheme.lower()
    if scheme not in schemes:
        raise TargetInvalid(
            _("Expected a URL starting with %(items)s, e.g. %(example)s")
            % {"items": " or ".join(s + "://" for s in schemes), "example": example}
        )
    return text


def require_apprise(url: str, example: str) -> None:
    import apprise

    with secrets_in_flight(url):
        usable = apprise.Apprise.instantiate(url) is not None
    if not usable:
        raise TargetInvalid(
            _("This URL is not complete (Apprise cannot read it). It should look like %(example)s")
            % {"example": example}
        )
