"""Celery task: a thin adapter that takes the profile's id (profiling/jobs.py does the work)."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from . import jobs

log = logging.getLogger(__name__)
PROFILE_TASK = "profiling.tasks.execute_profile"


@shared_task(
    name=PROFILE_TASK,
    acks_late=True,
    reject_on_worker_lost=False,  # a profile that kills its worker is not redelivered; it ends when read
    soft_time_limit=settings.DQ_RUN_TIME_LIMIT,
    time_limit=settings.DQ_RUN_TIME_LIMIT + 60,
)
def execute_profile(profile_id: int) -> str:
    profile = jobs.claim(profile_id)
    if profile is None:
        log.info("Profile %s is not queued any more; this delivery does nothing.", profile_id)
        return "skipped"
    try:
        return jobs.execute(profile)
    except SoftTimeLimitExceeded:
        return jobs.finish(
            profile,
            jobs.Status.ERROR,
            message=f"The profile took longer than {settings.DQ_RUN_TIME_LIMIT} s and was stopped; "
            "profile a batch (a filter) or lower DQ_PROFILE_ROW_GUARD.",
        )


def enqueue_profile(profile_id: int) -> None:
    """Sent to the runs' queue: its workers hold the engines (and the warm SparkSession)."""
    execute_profile.apply_async(args=[profile_id], queue=settings.DQ_SPARK_QUEUE)
