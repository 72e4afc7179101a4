"""Hooks into the rest of the platform (connected in IntegrationsConfig.ready)."""

from __future__ import annotations

import logging

from django.conf import settings

log = logging.getLogger(__name__)


def report_finished_run(sender, run, **kwargs) -> None:
    """executions says a run finished (its results are committed): report it in a task of its own,
    so that no integration, however slow or broken, can delay or fail the run's worker."""
    from .tasks import report_run

    try:
        report_run.apply_async(args=[run.pk], queue=settings.CELERY_TASK_DEFAULT_QUEUE)
    except Exception:  # noqa: BLE001 — a broker hiccup must not turn a recorded run into a failed task
        log.exception("Could not enqueue the integration reports of run %s", run.pk)
