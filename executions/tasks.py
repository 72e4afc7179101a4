"""Celery tasks: thin adapters that take ids, load the row and call one function."""

from __future__ import annotations

import logging
from datetime import timedelta

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils import timezone

from .jobs import build_job
from .launcher import launch
from .models import Run
from .recording import fail_run, record_results

log = logging.getLogger(__name__)


@shared_task(
    name="executions.tasks.execute_run",
    acks_late=True,  # a worker killed mid-run leaves the message for redelivery; claim() stops a rerun
    reject_on_worker_lost=False,
    soft_time_limit=settings.DQ_RUN_SOFT_TIME_LIMIT,
    time_limit=settings.DQ_RUN_TIME_LIMIT,
)
def execute_run(run_id: int, attempt: int) -> str:
    if not Run.claim(run_id, attempt):
        log.info("Run %s attempt %s is not queued any more; this delivery does nothing.", run_id, attempt)
        return "skipped"
    run = Run.objects.get(pk=run_id)
    try:
        document = launch(build_job(run))
    except SoftTimeLimitExceeded:
        fail_run(run, f"The run exceeded its time limit ({settings.DQ_RUN_SOFT_TIME_LIMIT} s) and was stopped.")
        return "error"
    except Exception as exc:  # noqa: BLE001 — any engine failure must end the run, never leave it running
        log.exception("Run %s failed in the engine", run_id)
        fail_run(run, f"The engine could not run the checks: {exc}")
        return "error"
    record_results(run, document)
    return run.status


@shared_task(name="executions.tasks.reap_stale_runs")
def reap_stale_runs() -> int:
    """Runs still `running` past the hard time limit lost their worker: end them as `error`."""
    cutoff = timezone.now() - timedelta(seconds=settings.DQ_RUN_TIME_LIMIT + settings.DQ_REAPER_GRACE)
    stale = Run.objects.filter(status=Run.Status.RUNNING, started_at__lt=cutoff)
    count = 0
    for run in stale:
        fail_run(run, "The worker running this run stopped (killed or lost) before it finished; run the checks again.")
        count += 1
    return count
