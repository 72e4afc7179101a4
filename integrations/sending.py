"""One JSON POST to an integration, under the same rules as alert webhooks: public addresses only
unless an administrator lists the host (DQ_ALERT_ALLOWED_HOSTS), checked again at send time; the
URL and the token kept out of error texts and logs."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from django.utils.translation import gettext as _

from watching.channels.base import (
    TargetInvalid,
    TransportError,
    require_reachable,
    require_url,
    scrub,
    secrets_in_flight,
)
from watching.channels.reach import Refused, check_url_host, guarded_connections

TIMEOUT_SECONDS = 10
EXAMPLE = "https://dagster.example.com/prod"


def clean_url(url: str) -> str:
    """An http(s) URL with a host that integrations may reach; TargetInvalid saying what is wrong."""
    text = require_url(url, ("http", "https"), EXAMPLE)
    if not urlsplit(text).hostname:
        raise TargetInvalid(_("The URL names no host, e.g. %(example)s") % {"example": EXAMPLE})
    require_reachable(text)
    return text.rstrip("/")


def post_json(url: str, body: dict[str, Any], headers: dict[str, str], secret: str = "") -> None:
    """TransportError (saying whether retrying can help) unless the target answers 2xx."""
    import requests

    try:
        check_url_host(url)  # again: the name may resolve elsewhere now
    except Refused as exc:
        raise TransportError(str(exc), permanent=True) from None
    with secrets_in_flight(url) as fragments, guarded_connections():
        fragments = sorted({*fragments, *([secret] if secret else [])}, key=len, reverse=True)
        try:
            response = requests.post(
                url,
                data=json.dumps(body, default=str).encode(),
                headers={"Content-Type": "application/json", "User-Agent": "dq-platform", **headers},
                timeout=TIMEOUT_SECONDS,
                allow_redirects=False,
            )
        except requests.RequestException as exc:
            raise TransportError(
                _("The integration could not be reached."), detail=scrub(f"{type(exc).__name__}: {exc}", fragments)
            ) from None
        if response.status_code >= 300:
            # 4xx other than 408/429 will not get better by trying again.
            permanent = 400 <= response.status_code < 500 and response.status_code not in (408, 429)
            raise TransportError(
                _("The integration answered HTTP %(status)s.") % {"status": response.status_code},
                permanent=permanent,
                detail=scrub(response.text[:300], fragments),
            )
