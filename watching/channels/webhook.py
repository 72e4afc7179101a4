"""Webhook: the message's structured form POSTed as JSON to an http(s) URL."""

from __future__ import annotations

import json

from django.utils.translation import gettext as _

from ..stored_texts import WEBHOOK_ANSWERED, WEBHOOK_UNREACHABLE
from .base import (
    Message,
    TargetInvalid,
    TransportError,
    require_reachable,
    require_url,
    scrub,
    secrets_in_flight,
    url_preview,
)
from .reach import Refused, check_url_host, guarded_connections

LABEL = "Webhook (JSON POST)"
PLACEHOLDER = "https://ci.example.com/hooks/data-quality?token=…"
TIMEOUT_SECONDS = 10


def clean_target(target: str) -> str:
    url = require_url(target, ("http", "https"), "https://example.com/hooks/dq")
    from urllib.parse import urlsplit

    if not urlsplit(url).hostname:
        raise TargetInvalid(_("The URL names no host, e.g. https://example.com/hooks/dq"))
    require_reachable(url)
    return url


def preview(target: str) -> str:
    return url_preview(target)


def send(target: str, message: Message) -> None:
    import requests

    body = json.dumps({"title": message.subject, "text": message.text, **message.payload}, default=str)
    try:
        check_url_host(target)  # again: the name may resolve elsewhere now
    except Refused as exc:
        raise TransportError(str(exc), permanent=True) from None
    with secrets_in_flight(target) as fragments, guarded_connections():
        try:
            response = requests.post(
                target,
                data=body.encode(),
                headers={"Content-Type": "application/json", "User-Agent": "dq-platform"},
                timeout=TIMEOUT_SECONDS,
                allow_redirects=False,
            )
        except requests.RequestException as exc:
            reason = f"{type(exc).__name__}: {exc}"
            raise TransportError(scrub(WEBHOOK_UNREACHABLE % {"reason": reason}, fragments)) from None
        if response.status_code >= 300:
            # 4xx other than 408/429 will not get better by trying again.
            permanent = 400 <= response.status_code < 500 and response.status_code not in (408, 429)
            snippet = scrub(response.text[:300], fragments)
            raise TransportError(
                WEBHOOK_ANSWERED % {"status": response.status_code}, permanent=permanent, detail=snippet
            )
