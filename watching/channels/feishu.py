"""Feishu / Lark custom bot: …/open-apis/bot/v2/hook/<token> or an Apprise `feishu://` URL."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

from django.utils.translation import gettext as _

from .base import Message, TargetInvalid, apprise_send, require_apprise, require_url, url_preview

LABEL = "Feishu"
PLACEHOLDER = "https://open.feishu.cn/open-apis/bot/v2/hook/…"
HOSTS = ("open.feishu.cn", "open.larksuite.com")
PATH = "/open-apis/bot/v2/hook/"


def clean_target(target: str) -> str:
    url = require_url(target, ("https", "feishu"), PLACEHOLDER)
    require_apprise(apprise_url(url), PLACEHOLDER)
    return url


def apprise_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme == "feishu":
        return url
    token = parts.path[len(PATH) :].strip("/") if parts.path.startswith(PATH) else ""
    if parts.hostname not in HOSTS or not token:
        raise TargetInvalid(_("A Feishu bot URL looks like %(placeholder)s") % {"placeholder": PLACEHOLDER})
    return f"feishu://{quote(token, safe='')}/"


def preview(target: str) -> str:
    return url_preview(target)


def send(target: str, message: Message) -> None:
    apprise_send(apprise_url(target), message, secret=target)
