"""Webhook: the message's structured form POSTed as JSON to an http(s) URL."""

from __future__ import annotations

import json

from .base import Message, TargetInvalid, TransportError, require_url, scrub, secrets_in_flight, url_preview

LABEL = "Webhook (JSON POST)"
PLACEHOLDER = "https://ci.example.com/hooks/data-quality?token=…"
TIMEOUT_SECONDS = 10


def clean_target(target: str) -> str:
    url = require_url(target, ("http", "https"), "https://example.com/hooks/dq")
    from urllib.parse import urlsplit

    if not urlsplit(url).hostname:
        raise TargetInvalid("The URL names no host, e.g. https://example.com/hooks/dq")
    return url


def preview(target: str) -> str:
    return url_preview(target)


def send(target: str, message: Message) -> None:
    import requests

    body = json.dumps({"title": message.subject, "text": message.text, **message.payload}, default=str)
    with secrets_in_flight(target) as fragments:
        try:
            response = requests.post(
                target,
                data=body.encode(),
                headers={"Content-Type": "application/json", "User-Agent": "dq-platform"},
                timeout=TIMEOUT_SECONDS,
                allow_redirects=False,
            )
        except requests.RequestException as exc:
            raise TransportError(scrub(f"The webhook could not be reached: {type(exc).__name__}: {exc}", fragments))
        if response.status_code >= 300:
            # 4xx other than 408/429 will not get better by trying again.
            permanent = 400 <= response.status_code < 500 and response.status_code not in (408, 429)
            snippet = scrub(response.text[:300], fragments)
            raise TransportError(f"The webhook answered HTTP {response.status_code}: {snippet}", permanent=permanent)
