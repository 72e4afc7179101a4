"""The row checks' preview as a job the browser polls, off the web server's request threads.

`POST /api/v1/row-checks/preview/` validates, records a PreviewJob and sends the
`preview_row_checks` task to the preview queue (settings.DQ_PREVIEW_QUEUE, apart from the runs'
queue, so a flood of previews never delays a run), then answers 202 with the job's URL;
`GET …/preview/<id>/` answers its state and, once done, the answer. A request thread never waits
on a worker: five slow previews used to hold every thread of a small web server.

A user has at most settings.DQ_PREVIEW_PER_USER previews in flight (429 beyond). A job nobody
took within DQ_PREVIEW_TIMEOUT seconds, or whose worker died, ends `error` when polled, so a lost
message never counts against the user for long.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from .models import PreviewJob

PREVIEW_TASK = "executions.tasks.preview_row_checks"

Status = PreviewJob.Status
# Past its time limit, a running job's worker is taken for dead after this much more.
GRACE_SECONDS = 15
# Finished jobs are kept this long for a late poll, then removed when their owner asks for another.
KEEP_FINISHED = timedelta(hours=1)


class TooManyPreviews(Exception):
    pass


def _stale_before() -> timezone.datetime:
    """Jobs created before this are no longer in flight, whatever their row says."""
    return timezone.now() - timedelta(seconds=2 * settings.DQ_PREVIEW_TIMEOUT + GRACE_SECONDS)


def submit(user, args: list, warnings: list) -> PreviewJob:
    """Record a job for `user` and send its task (after commit); TooManyPreviews at the limit."""
    with transaction.atomic():
        # The owner's row serialises their submissions, so two at once cannot both pass the limit.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        in_flight = PreviewJob.objects.filter(
            owner=user, status__in=PreviewJob.IN_FLIGHT, created_at__gte=_stale_before()
        ).count()
        if in_flight >= settings.DQ_PREVIEW_PER_USER:
            raise TooManyPreviews(
                f"You have {in_flight} previews in progress (at most {settings.DQ_PREVIEW_PER_USER} at once); "
                "wait for one to finish, then try again."
            )
        PreviewJob.objects.filter(owner=user, created_at__lt=timezone.now() - KEEP_FINISHED).delete()
        job = PreviewJob.objects.create(owner=user, warnings=warnings)
        transaction.on_commit(
            # Sent by name: the task module reads this one (claim, answer), so it is not imported here.
            lambda: current_app.send_task(
                PREVIEW_TASK,
                args=[str(job.pk), *args],
                queue=settings.DQ_PREVIEW_QUEUE,
                expires=settings.DQ_PREVIEW_TIMEOUT,
            )
        )
    return job


def state(job: PreviewJob) -> dict[str, Any]:
    """What a poll answers: the job's status, its message, and the answer once done."""
    _end_if_lost(job)
    body: dict[str, Any] = {"id": str(job.pk), "status": job.status, "message": job.message}
    if job.status == Status.DONE:
        body.update(job.answer)
    body["warnings"] = job.warnings
    return body


def _end_if_lost(job: PreviewJob) -> None:
    now = timezone.now()
    limit = settings.DQ_PREVIEW_TIMEOUT
    if job.status == Status.QUEUED and now - job.created_at > timedelta(seconds=limit + GRACE_SECONDS):
        message = f"No worker took the preview within {limit} s (all busy?); try again in a moment."
    elif job.status == Status.RUNNING and now - job.started_at > timedelta(seconds=limit + GRACE_SECONDS):
        message = "The worker running the preview stopped before answering; try again."
    else:
        return
    _finish(job, Status.ERROR, message=message, from_status=job.status)
    job.refresh_from_db()


def _finish(job: PreviewJob, status: str, from_status: str, **fields) -> bool:
    return bool(
        PreviewJob.objects.filter(pk=job.pk, status=from_status).update(
            status=status, finished_at=timezone.now(), **fields
        )
    )


def claim(job_id: str) -> PreviewJob | None:
    """The worker takes a queued job (None: gone, or ended as lost meanwhile)."""
    taken = PreviewJob.objects.filter(pk=job_id, status=Status.QUEUED).update(
        status=Status.RUNNING, started_at=timezone.now()
    )
    return PreviewJob.objects.get(pk=job_id) if taken else None


def answer(job: PreviewJob, result: dict[str, Any]) -> None:
    _finish(job, Status.DONE, from_status=Status.RUNNING, answer=result)


def fail(job: PreviewJob, message: str) -> None:
    _finish(job, Status.ERROR, from_status=Status.RUNNING, message=message)
