"""The reaper: no run stays `queued` or `running` for good (README "Runs that never get lost").

Beat runs `reap` every DQ_REAPER_INTERVAL seconds in its own process (dq_platform/beat.py), so it
works while every worker is dead. From the workers' heartbeats (executions/heartbeat.py):

- a `running` run whose worker stopped beating (for DQ_WORKER_STALE_AFTER seconds), or whose
  worker is alive but holds no run or another one, lost its worker: it ends `error`, each check
  with an `error` result saying so (a retry is one click away);
- a `queued` run sent more than DQ_RUN_CLAIM_TIMEOUT seconds ago, while a live worker consuming
  its queue has been idle at least that long, lost its message (a worker fetched it and died;
  the filesystem broker deletes a message once fetched): its task is sent again, at most
  DQ_RUN_MAX_ENQUEUES sends in all, then it ends `error`. A second delivery never runs a run
  twice: Run.claim is a conditional update, and only one delivery wins it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from .heartbeat import FORGET_AFTER
from .models import Run, WorkerHeartbeat
from .recording import fail_run
from .stored_words import MINUTES, NAMED_WORKER_STOPPED, NEVER_CLAIMED, SECONDS, WORKER_STOPPED

log = logging.getLogger(__name__)


def reap(send: Callable[[Run], None]) -> dict[str, int]:
    """`send` puts a run's task on the broker again (tasks.enqueue_run; passed in, as the tasks
    module imports this one)."""
    now = timezone.now()
    alive = list(WorkerHeartbeat.objects.filter(last_seen__gte=now - timedelta(seconds=settings.DQ_WORKER_STALE_AFTER)))
    counts = {"lost": end_runs_whose_worker_died(now, alive)}
    counts.update(resend_unclaimed_runs(now, alive, send))
    WorkerHeartbeat.objects.filter(last_seen__lt=now - FORGET_AFTER).delete()
    if any(counts.values()):
        log.warning("Reaper: %s", counts)
    return counts


def end_runs_whose_worker_died(now, alive: list[WorkerHeartbeat]) -> int:
    holding = {w.name: w.run_id for w in alive}
    # A run claimed a moment ago may not be in its worker's heartbeat yet: wait as long as a
    # heartbeat may be late before judging it.
    claimed_before = now - timedelta(seconds=settings.DQ_WORKER_STALE_AFTER)
    ended = 0
    for run in Run.objects.filter(status=Run.Status.RUNNING, started_at__lt=claimed_before):
        if holding.get(run.worker) == run.pk:
            continue
        fail_run(run, NAMED_WORKER_STOPPED % {"worker": run.worker} if run.worker else WORKER_STOPPED)
        run.refresh_from_db()
        ended += run.status == Run.Status.ERROR
    return ended


def resend_unclaimed_runs(now, alive: list[WorkerHeartbeat], send: Callable[[Run], None]) -> dict[str, int]:
    counts = {"resent": 0, "given_up": 0}
    cutoff = now - timedelta(seconds=settings.DQ_RUN_CLAIM_TIMEOUT)
    idle_long_enough = [
        w
        for w in alive
        if w.run_id is None and w.idle_since and w.idle_since <= cutoff and settings.DQ_SPARK_QUEUE in w.queues
    ]
    if not idle_long_enough:  # every worker is busy (runs wait their turn) or none is there yet
        return counts
    for run in Run.objects.filter(status=Run.Status.QUEUED, enqueued_at__lte=cutoff).order_by("created_at", "id"):
        if run.enqueue_count >= settings.DQ_RUN_MAX_ENQUEUES:
            counts["given_up"] += run.give_up_unclaimed(
                NEVER_CLAIMED
                % {
                    "count": run.enqueue_count,
                    "elapsed": _elapsed(now - run.created_at),
                    "queue": settings.DQ_SPARK_QUEUE,
                }
            )
        elif run.note_resent():
            send(run)
            counts["resent"] += 1
    return counts


def _elapsed(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    return MINUTES % {"count": seconds // 60} if seconds >= 120 else SECONDS % {"count": seconds}
