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
    """A delivery failed. `permanent` failures (a rejected address) are not retried."""

    def __init__(self, message: str, permanent: bool = False):
        super().__init__(message)
        self.permanent = permanent


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
def apprise_send(url: str, message: Message, secret: str | None = None) -> None:
    """Send `message` to one Apprise URL; TransportError with Apprise's own reason on failure."""
    import apprise

    with secrets_in_flight(secret or url) as fragments:
        notifier = apprise.Apprise()
        if not notifier.add(url):
            raise TransportError("Apprise cannot use this target; edit the channel and enter it again.", permanent=True)
        with apprise.LogCapture(level=logging.WARNING) as captured:
            try:
                result = notifier.notify(
                    title=message.subject, body=message.text, body_format=apprise.NotifyFormat.TEXT
                )
            except Exception as exc:  # noqa: BLE001 — a plug-in bug must still be a recorded failure
                raise TransportError(scrub(f"{type(exc).__name__}: {exc}", fragments)) from None
        if not bool(result):  # Apprise 2.x returns an AppriseResult
            reason = " ".join(captured.getvalue().split()) or "the service did not accept the message"
            raise TransportError(scrub(f"Not delivered: {reason}"[:1000], fragments))


def url_preview(url: str) -> str:
    """`https://hooks.slack.com/services/T0/B0/xyz` → `https://hooks.slack.com/…`."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme in ("http", "https") and host:
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{host}{port}/{REDACTED}"
    return f"{parts.scheme}://{REDACTED}" if parts.scheme else REDACTED


def require_url(target: str, schemes: tuple[str, ...], example: str) -> str:
    text = (target or "").strip()
    if not text:
        raise TargetInvalid(f"A target is required, e.g. {example}")
    if re.search(r"\s", text):
        raise TargetInvalid(f"A target URL contains no spaces, e.g. {example}")
    scheme = urlsplit(text).scheme.lower()
    if scheme not in schemes:
        raise TargetInvalid(f"Expected a URL starting with {' or '.join(s + '://' for s in schemes)}, e.g. {example}")
    return text


def require_apprise(url: str, example: str) -> None:
    import apprise

    with secrets_in_flight(url):
        usable = apprise.Apprise.instantiate(url) is not None
    if not usable:
        raise TargetInvalid(f"This URL is not complete (Apprise cannot read it). It should look like {example}")
