"""Hooks into the rest of the platform (connected in WatchingConfig.ready)."""

from __future__ import annotations

import logging

from django.conf import settings

from .channels.base import LIBRARY_LOGGERS, ScrubSecrets

log = logging.getLogger(__name__)

# The note of an incident closed because its check was deleted.
CHECK_DELETED = "Check deleted."


def alert_on_finished_run(sender, run, **kwargs) -> None:
    """executions says a run finished (after its results were committed): alert in a task of its
    own, so nothing here can delay or fail the run's worker."""
    from .tasks import alert_on_run

    try:
        alert_on_run.apply_async(args=[run.pk], queue=settings.CELERY_TASK_DEFAULT_QUEUE)
    except Exception:  # noqa: BLE001 — a broker hiccup must not turn a recorded run into a failed task
        log.exception("Could not enqueue the alerts of run %s", run.pk)


def install_log_scrubbing() -> None:
    for name in LIBRARY_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, ScrubSecrets) for f in logger.filters):
            logger.addFilter(ScrubSecrets())


def close_incidents_of_deleted_check(sender, check, by=None, **kwargs) -> None:
    """A deleted check fails no more: its unresolved incidents are resolved by the platform, with
    the note saying why (the history names who deleted it)."""
    from .models import Incident

    for incident in Incident.objects.unresolved().filter(rule_check=check):
        incident.resolve(None, note=CHECK_DELETED, by=by)
