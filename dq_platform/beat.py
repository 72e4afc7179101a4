"""Beat's scheduler: django-celery-beat's database scheduler, except that the reaper runs here,
in beat's own process, instead of being sent to a worker.

The reaper exists for the case where workers die (executions/reaper.py); sent as a task, it would
wait in the queue of the very worker that died, or behind the long run a lone worker is busy with.
Used through settings.CELERY_BEAT_SCHEDULER: `celery -A dq_platform beat`.
"""

from __future__ import annotations

import logging

from django_celery_beat.schedulers import DatabaseScheduler

log = logging.getLogger(__name__)

# Scheduled tasks that beat runs itself rather than sending to a worker.
RUN_IN_BEAT = {"executions.tasks.reap_stale_runs"}


class Scheduler(DatabaseScheduler):
    def apply_async(self, entry, producer=None, advance=True, **kwargs):
        if entry.task not in RUN_IN_BEAT:
            return super().apply_async(entry, producer=producer, advance=advance, **kwargs)
        entry = self.reserve(entry) if advance else entry
        try:
            result = self.app.tasks[entry.task].apply(args=entry.args, kwargs=entry.kwargs)
            if result.failed():  # logged, never raised: beat must go on scheduling
                log.error("%s failed in beat: %s\n%s", entry.task, result.result, result.traceback)
            return result
        finally:  # the bookkeeping the parent class does after sending a task
            self._tasks_since_sync += 1
            if self.should_sync():
                self._do_sync()
