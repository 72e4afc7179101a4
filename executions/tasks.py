"""Celery tasks: thin adapters that take ids, load the row and call one function."""

from __future__ import annotations

import logging
import time

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from . import heartbeat, reaper
from .catalog_checks import catalog_outcomes
from .jobs import build_job
from .launcher import RunStopped, launch
from .models import Run
from .recording import fail_run, record_results
from .signals import run_started
from .stored_words import ENGINE_FAILED, MINUTES, RUN_IS_NOW, SECONDS, TIME_LIMIT

log = logging.getLogger(__name__)

# Celery's own limits are a backstop behind the run's time limit, which the run watcher enforces
# (executions/launcher.py): the soft one fires if cancelling the Spark jobs did not end the run,
# the hard one kills the pool process (its run then ends `error` through the reaper).
BACKSTOP_SOFT, BACKSTOP_HARD = 60, 120


def time_limit_message() -> str:
    return TIME_LIMIT % {"limit": _duration(settings.DQ_RUN_TIME_LIMIT)}


def _duration(seconds: int) -> str:
    return MINUTES % {"count": seconds // 60} if seconds % 60 == 0 else SECONDS % {"count": seconds}


@shared_task(
    name="executions.tasks.execute_run",
    acks_late=True,  # acknowledged at the end: a worker holds one run message at a time (prefetch 1)
    reject_on_worker_lost=False,  # a run that kills its worker is not redelivered; the reaper ends it
    soft_time_limit=settings.DQ_RUN_TIME_LIMIT + BACKSTOP_SOFT,
    time_limit=settings.DQ_RUN_TIME_LIMIT + BACKSTOP_HARD,
)
def execute_run(run_id: int, attempt: int) -> str:
    if not Run.claim(run_id, attempt, heartbeat.worker_name()):
        log.info("Run %s attempt %s is not queued any more; this delivery does nothing.", run_id, attempt)
        return "skipped"
    with heartbeat.holding(run_id):
        run = Run.objects.get(pk=run_id)
        run_started.send_robust(sender=Run, run=run)
        return execute_claimed_run(run)


def execute_claimed_run(run: Run) -> str:
    """Run the engine on a run this process claimed, within its time limit, until cancelled."""
    deadline = time.monotonic() + settings.DQ_RUN_TIME_LIMIT

    def should_stop() -> str | None:  # asked by the run watcher, in its own thread
        if time.monotonic() > deadline:
            return time_limit_message()
        status = Run.objects.filter(pk=run.pk).values_list("status", flat=True).first()
        if status != Run.Status.RUNNING:  # cancelled (or ended by the reaper): nothing to record
            return RUN_IS_NOW % {"status": status}
        return None

    try:
        catalog = catalog_outcomes(run)  # schema changes, file ages: the catalog as the run starts
        job = build_job(run)
        document = launch(job, should_stop) if job.spec["checks"] else {"checks": {}, "batches": {}}
        document["checks"].update(catalog)
    except RunStopped as stop:
        run.refresh_from_db()
        if run.status == Run.Status.RUNNING:  # the time limit; a cancelled run keeps its end
            fail_run(run, str(stop))
        return run.status
    except SoftTimeLimitExceeded:
        fail_run(run, time_limit_message())
        return "error"
    except Exception as exc:  # noqa: BLE001 — any engine failure must end the run, never leave it running
        log.exception("Run %s failed in the engine", run.pk)
        fail_run(run, ENGINE_FAILED % {"reason": exc})
        return "error"
    record_results(run, document)
    return run.status


@shared_task(name="executions.tasks.reap_stale_runs")
def reap_stale_runs() -> dict[str, int]:
    """Runs whose worker died end `error`; queued runs whose message was lost are sent again.
    Beat runs it in its own process (dq_platform/beat.py), so that it works with every worker dead."""
    return reaper.reap(send=enqueue_run)


def enqueue_run(run: Run) -> None:
    """Send a run's task to the queue its workers consume (after commit: executions.starting)."""
    execute_run.apply_async(args=[run.pk, run.attempt], queue=settings.DQ_SPARK_QUEUE)


@shared_task(
    name="executions.tasks.preview_row_checks",
    acks_late=False,  # a preview nobody waits for any more is not worth re-running
    soft_time_limit=settings.DQ_PREVIEW_TIMEOUT,
    time_limit=settings.DQ_PREVIEW_TIMEOUT + 10,
)
def preview_row_checks(
    job_id: str, datasource_id: int, table: str, src_filter: str | None, rules: list, limit: int
) -> str:
    """A row-check rule set on a table's first rows (DuckDB for files, this worker's shared SparkSession for a
    database table: executions/previews.py), its answer stored on the job the browser polls
    (executions/preview_jobs.py); nothing else saved."""
    from . import preview_jobs
    from .previews import preview

    job = preview_jobs.claim(job_id)
    if job is None:
        return "skipped"
    try:
        result = preview(datasource_id, table, src_filter, rules, limit)
    except SoftTimeLimitExceeded:
        preview_jobs.fail(
            job,
            f"The preview took longer than {settings.DQ_PREVIEW_TIMEOUT} s and was stopped; "
            "try fewer rows (limit) or a filter.",
        )
        return "error"
    except Exception as exc:  # noqa: BLE001 — the browser must get an answer, not a job that never ends
        log.exception("Preview %s failed", job_id)
        preview_jobs.fail(job, f"The preview could not run: {exc}")
        return "error"
    preview_jobs.answer(job, result)
    return "done"
