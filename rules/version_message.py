"""The message a new check version carries ("What changed"): one line of text, at most
MESSAGE_MAX_LENGTH characters, blank allowed. Shared by the check form's save and the YAML import."""

from __future__ import annotations

from django.utils.translation import gettext as _

from dq_platform.text import control_character

from .models import MESSAGE_MAX_LENGTH


class MessageInvalid(ValueError):
    pass


def version_message(text) -> str:
    """`text` stripped, or MessageInvalid saying why it cannot be kept."""
    if text is None:
        return ""
    if not isinstance(text, str):
        raise MessageInvalid(_("A version message is text."))
    text = text.strip()
    char = control_character(text)
    if char is not None:
        # A line break would forge lines where versions are listed (logs, exported history).
        raise MessageInvalid(
            _("A version message is one line of text; it holds %(character)s.") % {"character": f"U+{ord(char):04X}"}
        )
    if len(text) > MESSAGE_MAX_LENGTH:
        raise MessageInvalid(
            _("A version message has at most %(limit)s characters; this one has %(length)s.")
            % {"limit": MESSAGE_MAX_LENGTH, "length": len(text)}
        )
    return text
