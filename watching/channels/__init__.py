"""Alert channel kinds: a plug-in family, one module per kind, named in one dict of dotted paths
and imported when first used (healthchecks' TRANSPORTS).

Each module has `LABEL`, `PLACEHOLDER`, `clean_target(target) -> str` (raises TargetInvalid),
`preview(target) -> str` (a redacted form, safe to show) and `send(target, message)` (raises
TransportError saying whether a retry can help). Apprise speaks the services' protocols.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from django.utils.translation import gettext as _

from .base import Message, TargetInvalid, TransportError

KINDS: dict[str, str] = {
    "email": "watching.channels.email",
    "webhook": "watching.channels.webhook",
    "slack": "watching.channels.slack",
    "dingtalk": "watching.channels.dingtalk",
    "wecom": "watching.channels.wecom",
    "feishu": "watching.channels.feishu",
    "telegram": "watching.channels.telegram",
    "apprise": "watching.channels.apprise_url",
}


def transport_for(kind: str) -> ModuleType:
    try:
        return import_module(KINDS[kind])
    except KeyError:
        raise ValueError(
            _("Unknown alert channel kind %(kind)s; known kinds: %(items)s.")
            % {"kind": repr(kind), "items": ", ".join(KINDS)}
        ) from None


__all__ = ["KINDS", "Message", "TargetInvalid", "TransportError", "transport_for"]
