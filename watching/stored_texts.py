"""What watching stores in English as it happens (an incident's history notes, a delivery's
error) and shows in the reader's language: made with `template % values`, recognised and worded
again by executions/stored_words.py. A person's own notes stay as they were written."""

from __future__ import annotations

from django.utils.translation import gettext_noop

from executions.stored_words import register

PASSED_AGAIN = gettext_noop("Passed again in run %(run)s.")
FAILED_IN_RUN = gettext_noop("Failed in run %(run)s.")
IN_RUN = gettext_noop("Run %(run)s.")
CHANNEL_DELETED = gettext_noop("The channel was deleted before the message could be sent.")
NOT_DELIVERED = gettext_noop("The message was not delivered.")
SERVICE_ANSWERED = gettext_noop("Not delivered: the service answered HTTP %(status)s.")
SERVICE_UNREACHABLE = gettext_noop("Not delivered: the service could not be reached.")
SERVICE_REFUSED = gettext_noop("Not delivered: the service did not accept the message.")
WEBHOOK_ANSWERED = gettext_noop("The webhook answered HTTP %(status)s.")
WEBHOOK_UNREACHABLE = gettext_noop("The webhook could not be reached: %(reason)s")
NO_RUN = gettext_noop("No run: %(reason)s")
register(
    NO_RUN,
    PASSED_AGAIN,
    FAILED_IN_RUN,
    IN_RUN,
    CHANNEL_DELETED,
    NOT_DELIVERED,
    SERVICE_ANSWERED,
    SERVICE_UNREACHABLE,
    SERVICE_REFUSED,
    WEBHOOK_ANSWERED,
    WEBHOOK_UNREACHABLE,
)
