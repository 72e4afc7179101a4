"""WeCom (WeChat Work) group robot: …/cgi-bin/webhook/send?key=… or an Apprise `wecombot://` URL."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.utils.translation import gettext as _

from .base import Message, TargetInvalid, apprise_send, require_apprise, require_url, url_preview

LABEL = "WeCom"
PLACEHOLDER = "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…"


def clean_target(target: str) -> str:
    url = require_url(target, ("https", "wecombot"), PLACEHOLDER)
    if url.startswith("https://") and urlsplit(url).hostname != "qyapi.weixin.qq.com":
        raise TargetInvalid(_("A WeCom robot URL looks like %(placeholder)s") % {"placeholder": PLACEHOLDER})
    require_apprise(url, PLACEHOLDER)
    return url


def preview(target: str) -> str:
    return url_preview(target)


def send(target: str, message: Message) -> None:
    apprise_send(target, message)
