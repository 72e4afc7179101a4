"""Telegram bot: `tgram://<bot token>/<chat id>` (Apprise's form)."""

from __future__ import annotations

from .base import Message, apprise_send, require_apprise, require_url, url_preview

LABEL = "Telegram"
PLACEHOLDER = "tgram://123456789:AAE…/-1001234567890"


def clean_target(target: str) -> str:
    url = require_url(target, ("tgram",), PLACEHOLDER)
    require_apprise(url, PLACEHOLDER + " (the bot token, then the chat id)")
    return url


def preview(target: str) -> str:
    return url_preview(target)


def send(target: str, message: Message) -> None:
    apprise_send(target, message)
