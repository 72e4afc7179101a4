"""Any service Apprise speaks (Teams, Discord, PagerDuty, ntfy, …), given as one Apprise URL.
Services of the local desktop or this machine's own logs make no sense on a server and are refused."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.utils.translation import gettext as _

from .base import HOST_SCHEMES, Message, TargetInvalid, apprise_send, require_apprise, require_reachable, url_preview

LABEL = "Apprise URL"
PLACEHOLDER = "msteams://…, discord://…, pagerduty://…, ntfys://… (see Apprise's list of services)"
LOCAL_SCHEMES = {"windows", "macosx", "dbus", "kde", "qt", "glib", "gnome", "syslog", "rsyslog", "blink1"}


def clean_target(target: str) -> str:
    url = (target or "").strip()
    scheme = urlsplit(url).scheme.lower()
    if not url or not scheme:
        raise TargetInvalid(_("An Apprise URL is required, e.g. %(placeholder)s") % {"placeholder": PLACEHOLDER})
    if scheme in LOCAL_SCHEMES:
        raise TargetInvalid(
            _("`%(scheme)s://` notifies this server's own desktop or log; pick a remote service.") % {"scheme": scheme}
        )
    require_apprise(url, PLACEHOLDER)
    if scheme in HOST_SCHEMES:
        require_reachable(url)
    return url


def preview(target: str) -> str:
    return url_preview(target)


def send(target: str, message: Message) -> None:
    apprise_send(target, message)
