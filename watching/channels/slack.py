"""Slack: an incoming-webhook URL (https://hooks.slack.com/services/…) or an Apprise `slack://` URL."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.utils.translation import gettext as _

from .base import Message, TargetInvalid, apprise_send, require_apprise, require_url, url_preview

LABEL = "Slack"
PLACEHOLDER = "https://hooks.slack.com/services/T000/B000/XXXXXXXX"


def clean_target(target: str) -> str:
    url = require_url(target, ("https", "slack"), PLACEHOLDER)
    if url.startswith("https://") and urlsplit(url).hostname != "hooks.slack.com":
        raise TargetInvalid(
            _("A Slack incoming webhook lives on hooks.slack.com, e.g. %(placeholder)s") % {"placeholder": PLACEHOLDER}
        )
    require_apprise(url, PLACEHOLDER)
    return url


def preview(target: str) -> str:
    return url_preview(target)


def send(target: str, message: Message) -> None:
    apprise_send(target, message)
