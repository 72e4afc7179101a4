"""Firing schedules: each tick of beat, every enabled schedule whose next slot has come starts
one run (trigger `schedule`), keyed by schedule and slot so the slot runs once however many beats
or ticks see it.

Why one beat task that computes due slots rather than a django-celery-beat PeriodicTask and
CrontabSchedule per schedule: (1) beat does not tell a task which slot it fires for, yet the run's
business date and idempotency key come from the slot; (2) django-celery-beat 2.9's
DatabaseScheduler only loads crontab entries whose hour lies within two hours of now, so a slot
missed while beat was down would fire up to a day late, at a time that is no slot; (3) the
Schedule row stays the one source of truth, with nothing to keep in sync. Beat (the
DatabaseScheduler, configured in settings) still drives it: `fire-due-schedules` in
CELERY_BEAT_SCHEDULE."""

from __future__ import annotations

import logging
from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from executions.models import Run
from executions.starting import start_run
from rules.models import Check

from .models import Schedule
from .stored_texts import NO_RUN

log = logging.getLogger(__name__)


def fire_due_schedules(now: datetime | None = None) -> list[Run]:
    now = now or timezone.now()
    runs = []
    for schedule in Schedule.objects.filter(enabled=True).select_related("owner"):
        try:
            slot = schedule.due_slot(now)
        except ValueError as exc:  # a cron or timezone that was valid once and is not any more
            log.error("Schedule %s cannot be read: %s", schedule.pk, exc)
            continue
        if slot is not None:
            run = fire(schedule, slot)
            if run is not None:
                runs.append(run)
    return runs


def fire(schedule: Schedule, slot: datetime) -> Run | None:
    """Start the run of one slot. The run comes first (idempotent on its key), the schedule's
    bookkeeping after, so a crash in between makes the next tick find the same run again."""
    checks = runnable_checks(schedule)
    message = ""
    run = None
    if not checks:
        message = (
            "No run: none of the schedule's checks exists any more, or they are all disabled, "
            "or its owner may no longer run them."
        )
    else:
        try:
            run, created = start_run(
                checks,
                schedule.owner,
                biz_date=schedule.biz_date_for(slot),
                trigger=Run.Trigger.SCHEDULE,
                idempotency_key=schedule.idempotency_key(slot),
            )
        except Exception as exc:  # noqa: BLE001 — one broken schedule must not stop the others
            log.exception("Schedule %s could not start the run of slot %s", schedule.pk, slot.isoformat())
            message = NO_RUN % {"reason": exc}
        else:
            if created:
                log.info("Schedule %s started run %s for slot %s", schedule.pk, run.pk, slot.isoformat())
    Schedule.objects.filter(pk=schedule.pk).filter(Q(last_slot__isnull=True) | Q(last_slot__lt=slot)).update(
        last_slot=slot, last_run=run, last_message=message
    )
    return run


def runnable_checks(schedule: Schedule) -> list[Check]:
    """Live, enabled checks of the schedule that its owner may still run (all live enabled ones if
    the owner is gone). A disabled check stays in the schedule and is skipped until enabled."""
    checks = schedule.live_checks().enabled()
    if schedule.owner is not None:
        checks = checks.filter(pk__in=Check.objects.visible_to(schedule.owner).values("pk"))
    return list(checks.order_by("pk"))
