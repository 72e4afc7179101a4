"""Celery app. Spark work goes to the `spark` queue, served by a worker with one process so a
single long-lived JVM holds the SparkSession; everything else uses `default`.

The signals below make every process that runs tasks write heartbeats (executions/heartbeat.py),
which the reaper reads to find runs whose worker died. Beat runs with dq_platform.beat.Scheduler,
which runs the reaper in beat's own process.
"""

import os

from celery import Celery, signals
from kombu import Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dq_platform.settings")

app = Celery("dq_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = (Queue("default"), Queue("spark"))
# Runs are sent to settings.DQ_SPARK_QUEUE explicitly (executions.tasks.enqueue_run).
app.autodiscover_tasks()

# Whether the pool runs tasks in forked children (prefork) rather than in the worker itself.
_tasks_in_children = True


@app.task(name="dq_platform.ping")
def ping() -> str:
    """Used by health checks and tests to prove a worker consumes the broker."""
    return "pong"


@signals.celeryd_after_setup.connect
def _remember_worker(sender, instance, **kwargs) -> None:
    """In the worker, after -Q is applied and before the pool forks."""
    global _tasks_in_children
    from celery.concurrency.prefork import TaskPool

    from executions import heartbeat

    heartbeat.remember_worker(str(sender), list(instance.app.amqp.queues.consume_from))
    pool = instance.pool_cls
    _tasks_in_children = isinstance(pool, type) and issubclass(pool, TaskPool)


@signals.worker_process_init.connect
def _beat_from_pool_process(sender, **kwargs) -> None:
    from executions import heartbeat

    heartbeat.start(str(sender))


@signals.worker_ready.connect
def _beat_from_worker(**kwargs) -> None:
    if not _tasks_in_children:  # solo or threads pool: the worker itself runs the tasks
        from executions import heartbeat

        heartbeat.start()


@signals.worker_process_shutdown.connect
@signals.worker_shutdown.connect
def _stop_beating(**kwargs) -> None:
    from executions import heartbeat

    heartbeat.stop()
