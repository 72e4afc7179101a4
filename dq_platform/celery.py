"""Celery app. Spark work goes to the `spark` queue, served by a worker with one process so a
single long-lived JVM holds the SparkSession (stack-notes T13); everything else uses `default`."""

import os

from celery import Celery
from kombu import Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dq_platform.settings")

app = Celery("dq_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.task_queues = (Queue("default"), Queue("spark"))
# Runs are sent to settings.DQ_SPARK_QUEUE explicitly (executions.starting.enqueue).
app.autodiscover_tasks()


@app.task(name="dq_platform.ping")
def ping() -> str:
    """Used by health checks and tests to prove a worker consumes the broker."""
    return "pong"
