"""DingTalk robot: the webhook URL DingTalk shows (…/robot/send?access_token=…, with `&secret=SEC…`
for a signed robot) or an Apprise `dingtalk://` URL."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlsplit

from django.utils.translation import gettext as _

from .base import Message, TargetInvalid, apprise_send, require_apprise, require_url, url_preview

LABEL = "DingTalk"
PLACEHOLDER = "https://oapi.dingtalk.com/robot/send?access_token=…"
HOST = "oapi.dingtalk.com"


def clean_target(target: str) -> str:
    url = require_url(target, ("https", "dingtalk"), PLACEHOLDER)
    require_apprise(apprise_url(url), PLACEHOLDER)
    return url


def apprise_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme == "dingtalk":
        return url
    if parts.hostname != HOST or not parts.path.startswith("/robot/send"):
        raise TargetInvalid(_("A DingTalk robot URL looks like %(placeholder)s") % {"placeholder": PLACEHOLDER})
    query = parse_qs(parts.query)
    token = (query.get("access_token") or [""])[0]
    if not token:
        raise TargetInvalid(
            _("The URL has no access_token: copy the robot's whole webhook URL, e.g. %(placeholder)s")
            % {"placeholder": PLACEHOLDER}
        )
    secret = (query.get("secret") or [""])[0]
    login = f"{quote(secret, safe='')}@" if secret else ""
    return f"dingtalk://{login}{quote(token, safe='')}/"


def preview(target: str) -> str:
    return url_preview(target)


def send(target: str, message: Message) -> None:
    apprise_send(apprise_url(target), message, secret=target)
