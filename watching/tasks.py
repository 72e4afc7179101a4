"""Celery tasks of watching: thin adapters on the default queue (never the spark queue)."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db import IntegrityError, transaction

from . import alerting, delivery, firing


@shared_task(name="watching.tasks.fire_due_schedules", ignore_result=True)
def fire_due_schedules() -> int:
    """Beat sends this every DQ_SCHEDULE_TICK seconds (CELERY_BEAT_SCHEDULE)."""
    return len(firing.fire_due_schedules())


@shared_task(
    bind=True,
    name="watching.tasks.alert_on_run",
    acks_late=True,
    soft_time_limit=120,
    time_limit=150,
    autoretry_for=(IntegrityError,),  # two runs of one check opened its incident at once: redo
    retry_backoff=2,
    max_retries=5,
)
def alert_on_run(self, run_id: int) -> int:
    ids = [n.pk for n in alerting.alert_on_run(run_id)]
    transaction.on_commit(lambda: enqueue_deliveries(ids))  # at once, unless inside a transaction
    return len(ids)


def enqueue_deliveries(notification_ids: list[int]) -> None:
    for notification_id in notification_ids:
        deliver_notification.apply_async(args=[notification_id, 1], queue=settings.CELERY_TASK_DEFAULT_QUEUE)


@shared_task(bind=True, name="watching.tasks.deliver_notification", acks_late=True, soft_time_limit=60, time_limit=90)
def deliver_notification(self, notification_id: int, attempt: int = 1) -> str:
    outcome = delivery.deliver(notification_id, attempt)
    if outcome == delivery.RETRY:
        raise self.retry(
            args=[notification_id, attempt + 1], countdown=delivery.backoff_seconds(attempt), max_retries=None
        )
    return outcome
