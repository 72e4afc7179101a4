"""Celery tasks of integrations: thin adapters on the default queue (never the spark queue)."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db import transaction

from . import delivery


@shared_task(name="integrations.tasks.report_run", acks_late=True, soft_time_limit=120, time_limit=150)
def report_run(run_id: int) -> int:
    ids = delivery.report_run(run_id)
    transaction.on_commit(lambda: enqueue_deliveries(ids))  # at once, unless inside a transaction
    return len(ids)


def enqueue_deliveries(delivery_ids: list[int]) -> None:
    for delivery_id in delivery_ids:
        deliver.apply_async(args=[delivery_id, 1], queue=settings.CELERY_TASK_DEFAULT_QUEUE)


@shared_task(bind=True, name="integrations.tasks.deliver", acks_late=True, soft_time_limit=60, time_limit=90)
def deliver(self, delivery_id: int, attempt: int = 1) -> str:
    outcome = delivery.deliver(delivery_id, attempt)
    if outcome == delivery.RETRY:
        raise self.retry(args=[delivery_id, attempt + 1], countdown=delivery.backoff_seconds(attempt), max_retries=None)
    return outcome
