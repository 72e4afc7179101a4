"""The reaper (beat's periodic task) against worker heartbeats: no run stays queued or running for
good. Re-sent tasks land on the real Redis broker, in a queue of this test's own."""

from __future__ import annotations

import base64
import json
import os
from datetime import timedelta

import pytest
import redis
from django.utils import timezone

from conftest import REDIS_URL
from executions.models import Run, WorkerHeartbeat
from executions.tasks import reap_stale_runs

pytestmark = pytest.mark.django_db

WORKER = "spark-worker@host pid 4242"


@pytest.fixture
def queue(settings):
    """A broker queue of this test's own; yields a reader of the run ids sent to it."""
    settings.DQ_SPARK_QUEUE = f"reaper-test-{os.getpid()}"
    settings.DQ_WORKER_STALE_AFTER, settings.DQ_RUN_CLAIM_TIMEOUT, settings.DQ_RUN_MAX_ENQUEUES = 60, 60, 3
    broker = redis.Redis.from_url(REDIS_URL)
    broker.delete(settings.DQ_SPARK_QUEUE)

    def sent() -> list[list[int]]:
        messages = [json.loads(raw) for raw in broker.lrange(settings.DQ_SPARK_QUEUE, 0, -1)]
        return [json.loads(base64.b64decode(m["body"]))[0] for m in messages]  # [run id, attempt]

    yield sent
    broker.delete(settings.DQ_SPARK_QUEUE)


def _ago(seconds: float):
    return timezone.now() - timedelta(seconds=seconds)


def _heartbeat(name=WORKER, seen=0, run=None, idle_for=None, queues=None, settings=None):
    return WorkerHeartbeat.objects.create(
        name=name,
        last_seen=_ago(seen),
        run_id=run,
        idle_since=None if idle_for is None else _ago(idle_for),
        queues=queues if queues is not None else ["default", settings.DQ_SPARK_QUEUE],
    )


def _running(run_id: int, worker: str = WORKER, since: float = 120) -> None:
    assert Run.claim(run_id, 1, worker)
    Run.objects.filter(pk=run_id).update(started_at=_ago(since))


def test_a_running_run_whose_worker_stopped_beating_ends_error_for_each_check(start_lake_run, queue, settings):
    run_id = start_lake_run()
    _running(run_id)
    _heartbeat(seen=61, run=run_id, settings=settings)
    assert reap_stale_runs() == {"lost": 1, "resent": 0, "given_up": 0}
    run = Run.objects.get(pk=run_id)
    assert run.status == "error" and run.finished_at
    assert run.message == (
        f"The worker running this run ({WORKER}) stopped before it finished (killed, crashed or lost); retry the run."
    )
    result = run.results.get()
    assert result.status == "error" and result.message == run.message
    assert run.blocking is True  # the check's strategy is `block`: it fails closed


def test_a_run_whose_worker_beats_and_holds_it_is_left_running(start_lake_run, queue, settings):
    beating, just_claimed = start_lake_run(), start_lake_run()
    _running(beating)
    _heartbeat(seen=5, run=beating, settings=settings)
    # Claimed a moment ago by a worker whose first heartbeat has not landed yet.
    _running(just_claimed, worker="new-worker pid 1", since=1)
    assert reap_stale_runs() == {"lost": 0, "resent": 0, "given_up": 0}
    assert set(Run.objects.values_list("status", flat=True)) == {"running"}


def test_a_run_its_live_worker_no_longer_holds_ends_error(start_lake_run, queue, settings):
    run_id = start_lake_run()
    _running(run_id)
    _heartbeat(seen=2, run=None, idle_for=30, settings=settings)  # alive, and idle: the run went missing
    assert reap_stale_runs()["lost"] == 1
    assert Run.objects.get(pk=run_id).status == "error"


def test_a_queued_run_nobody_took_is_sent_again_then_given_up_with_a_message(start_lake_run, queue, settings):
    run_id = start_lake_run()
    _heartbeat(seen=1, idle_for=120, settings=settings)

    def unclaimed_for_long():
        Run.objects.filter(pk=run_id).update(enqueued_at=_ago(61))

    unclaimed_for_long()
    assert reap_stale_runs() == {"lost": 0, "resent": 1, "given_up": 0}
    assert queue() == [[run_id, 1]]  # the same attempt: whichever delivery claims it first runs it
    run = Run.objects.get(pk=run_id)
    assert run.status == "queued" and run.enqueue_count == 2
    assert reap_stale_runs()["resent"] == 0  # just sent: the worker gets its claim timeout again
    unclaimed_for_long()
    assert reap_stale_runs()["resent"] == 1 and Run.objects.get(pk=run_id).enqueue_count == 3
    unclaimed_for_long()
    assert reap_stale_runs() == {"lost": 0, "resent": 0, "given_up": 1}
    run = Run.objects.get(pk=run_id)
    assert run.status == "error" and run.finished_at and not run.results.exists()
    assert run.message.startswith("No worker took this run although one was idle (its task was sent 3 times")
    assert f"consumes the '{settings.DQ_SPARK_QUEUE}' queue" in run.message and "retry the run" in run.message
    assert len(queue()) == 2


@pytest.mark.parametrize(
    "worker",
    [
        {"run": "other"},  # busy with another run: the queued one waits its turn
        {"idle_for": 10},  # idle only for a moment: it may be fetching the run right now
        {"idle_for": 120, "seen": 90},  # dead: nobody could take it
        {"idle_for": 120, "queues": ["default"]},  # does not consume the runs' queue
    ],
)
def test_a_queued_run_is_left_alone_when_no_worker_could_have_taken_it(start_lake_run, queue, settings, worker):
    run_id = start_lake_run()
    other = start_lake_run()
    Run.claim(other, 1, WORKER)
    Run.objects.filter(pk=run_id).update(enqueued_at=_ago(600))
    _heartbeat(
        seen=worker.get("seen", 1),
        run=other if worker.get("run") else None,
        idle_for=worker.get("idle_for"),
        queues=worker.get("queues"),
        settings=settings,
    )
    assert reap_stale_runs()["resent"] == 0
    assert queue() == [] and Run.objects.get(pk=run_id).status == "queued"


def test_heartbeats_not_seen_for_a_day_are_forgotten(queue, settings):
    _heartbeat(name="gone pid 1", seen=2 * 86400, settings=settings)
    _heartbeat(name="recent pid 2", seen=3600, settings=settings)
    reap_stale_runs()
    assert list(WorkerHeartbeat.objects.values_list("name", flat=True)) == ["recent pid 2"]
