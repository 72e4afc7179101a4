"""Delivering one Notification: one attempt per call, each recorded. The Celery task
(`watching.tasks.deliver_notification`) retries transient failures with exponential backoff."""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from datasources.crypto import SecretDecryptionError
from executions.stored_words import reworded

from .channels import Message, TransportError, transport_for
from .models import DeliveryAttempt, Notification
from .stored_texts import CHANNEL_DELETED, NOT_DELIVERED

log = logging.getLogger(__name__)

SENT, RETRY, FAILED, SKIPPED = "sent", "retry", "failed", "skipped"
MAX_BACKOFF_SECONDS = 3600


def backoff_seconds(attempt: int) -> float:
    """Seconds before attempt `attempt + 1`: DQ_NOTIFY_BACKOFF, doubled at each attempt."""
    return min(settings.DQ_NOTIFY_BACKOFF * 2 ** (attempt - 1), MAX_BACKOFF_SECONDS)


def deliver(notification_id: int, attempt: int) -> str:
    """Make attempt number `attempt`. A stale or repeated task (the row has moved on) does nothing."""
    claimed = Notification.objects.filter(
        pk=notification_id,
        attempt=attempt - 1,
        status__in=[Notification.Status.QUEUED, Notification.Status.RETRYING],
    ).update(status=Notification.Status.SENDING, attempt=attempt)
    if not claimed:
        return SKIPPED
    notification = Notification.objects.select_related("channel").get(pk=notification_id)
    error, permanent, detail = attempt_once(notification)
    return record(notification, attempt, error, permanent, detail)


def attempt_once(notification: Notification) -> tuple[str, bool, str]:
    """("", False, "") on success, else (the error without secrets, whether retrying cannot help,
    what the target answered: for administrators and the log, never stored on the notification,
    which everyone who may read the run sees)."""
    channel = notification.channel
    if channel is None:
        return CHANNEL_DELETED, True, ""
    try:
        transport_for(channel.kind).send(
            channel.target, Message(notification.subject, notification.body, notification.payload)
        )
    except TransportError as exc:
        return str(exc) or NOT_DELIVERED, exc.permanent, exc.detail
    except SecretDecryptionError as exc:
        return str(exc), True, ""
    return "", False, ""


def record(notification: Notification, attempt: int, error: str, permanent: bool, detail: str = "") -> str:
    now = timezone.now()
    DeliveryAttempt.objects.create(notification=notification, number=attempt, at=now, ok=not error, error=error)
    if not error:
        Notification.objects.filter(pk=notification.pk).update(status=Notification.Status.SENT, sent_at=now, error="")
        return SENT
    last = permanent or attempt >= settings.DQ_NOTIFY_ATTEMPTS
    status = Notification.Status.FAILED if last else Notification.Status.RETRYING
    Notification.objects.filter(pk=notification.pk).update(status=status, error=error)
    log.warning(
        "Notification %s to channel %r failed (attempt %s of %s%s): %s%s",
        notification.pk,
        notification.channel_name,
        attempt,
        settings.DQ_NOTIFY_ATTEMPTS,
        ", not retried" if permanent else "",
        error,
        f" [{detail}]" if detail else "",
    )
    return FAILED if last else RETRY


def send_test(channel, show_detail: bool = False) -> tuple[bool, str]:
    """Send a test message now (the channel's "Send test" button) and record it like any other.
    `show_detail` (administrators): the answer says what the target answered, not only its status."""
    from .messages import test_message

    with translation.override(channel.language):
        message = test_message(channel.name)
    notification = Notification.objects.create(
        channel=channel,
        channel_name=channel.name,
        channel_kind=channel.kind,
        event=Notification.Event.TEST,
        subject=message.subject,
        body=message.text,
        payload=message.payload,
        status=Notification.Status.SENDING,
        attempt=1,
    )
    error, _permanent, detail = attempt_once(notification)
    record(notification, 1, error, permanent=True, detail=detail)  # a test is not retried: the person is waiting
    if error:
        shown = reworded(error)
        if detail and show_detail:
            return False, _("%(error)s The target answered: %(detail)s") % {"error": shown, "detail": detail}
        return False, shown
    return True, _("Test message sent to %(target)s.") % {"target": channel.target_preview}
