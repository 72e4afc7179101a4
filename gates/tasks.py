"""Celery tasks of the gates: thin adapters."""

from __future__ import annotations

from celery import shared_task

from . import lifecycle


@shared_task(name="gates.tasks.expire_releases")
def expire_releases() -> int:
    """Beat sends this every DQ_RELEASE_EXPIRY_TICK seconds (CELERY_BEAT_SCHEDULE): releases past
    their expiry end and their batches return to what the policy says. Reads catch up on their
    own between ticks (lifecycle.catch_up)."""
    return lifecycle.expire_due_releases()
