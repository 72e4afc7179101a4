"""The row checks' preview as a polled job: it never holds a web request thread, a flood of
previews never delays a run (their own queue), and one user has a bounded number in flight."""

from __future__ import annotations

import base64
import json
import time
from datetime import timedelta

import pytest
import redis
from django.utils import timezone

from conftest import REDIS_URL
from executions.models import PreviewJob, Run

from .conftest import preview_and_wait

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

# The lake's orders (order_id, status, amount): (1, paid, 1.5), (2, NULL, 2.0), (3, void, NULL).
# status in ('paid'): order 3 fails (NULL passes); amount >= 2: order 1 fails (NULL passes).
CHECKS_YAML = "checks:\n  - status in ('paid')\n  - amount >= 2\n"


def _body(lake) -> dict:
    return {"checks_yaml": CHECKS_YAML, "src_datasource_id": lake.pk, "src_table": "orders"}


def _run_ids_on(broker: redis.Redis, queue: str) -> list[int]:
    messages = [json.loads(raw) for raw in broker.lrange(queue, 0, -1)]
    return [json.loads(base64.b64decode(m["body"]))[0][0] for m in messages]  # args: [run id, attempt]


def test_five_previews_in_flight_do_not_delay_a_run_which_is_queued_at_once_on_its_own_queue(
    cast, api_as, lake, lake_check, celery_processes, settings
):
    settings.DQ_PREVIEW_PER_USER = 5
    broker = redis.Redis.from_url(REDIS_URL)
    # A worker on the preview queue only: the run's message must wait on the runs' queue, untouched.
    celery_processes.worker("redis", name="previews", DQ_SPARK_QUEUE=celery_processes.preview_queue)
    client = api_as(cast.author)

    posted = [client.post("/api/v1/row-checks/preview/", _body(lake), format="json") for _ in range(5)]
    started = time.monotonic()
    run = client.post("/api/v1/runs/", {"checks": [lake_check]}, format="json")
    accepted_in = time.monotonic() - started

    assert [p.status_code for p in posted] == [202] * 5, [p.json() for p in posted]
    assert run.status_code == 202, run.json()
    assert accepted_in < 1.0, f"POST /runs/ took {accepted_in:.2f} s with five previews in flight"
    assert _run_ids_on(broker, settings.DQ_SPARK_QUEUE) == [run.json()["id"]]
    states = []
    deadline = time.monotonic() + 90
    for p in posted:
        while (state := client.get(p.json()["url"]).json())["status"] not in ("done", "error"):
            assert time.monotonic() < deadline, f"preview never ended: {state}"
            time.sleep(0.2)
        states.append(state)
    assert [(s["status"], s["rows"], s["invalid_rows"]) for s in states] == [("done", 3, 2)] * 5, states
    assert all([c["failed_rows"] for c in s["checks"]] == [1, 1] for s in states)
    # The previews never touched the run: still queued, its message still on the runs' queue.
    assert Run.objects.get(pk=run.json()["id"]).status == Run.Status.QUEUED
    broker.delete(settings.DQ_SPARK_QUEUE)


def test_a_user_beyond_the_preview_limit_gets_429_saying_so_and_a_slot_frees_when_a_job_ends(
    cast, api_as, lake, settings
):
    settings.DQ_PREVIEW_PER_USER = 5
    settings.DQ_PREVIEW_QUEUE = f"preview-nobody-{cast.author.pk}-{time.monotonic_ns()}"  # no worker takes these
    client = api_as(cast.author)

    posted = [client.post("/api/v1/row-checks/preview/", _body(lake), format="json") for _ in range(5)]
    sixth = client.post("/api/v1/row-checks/preview/", _body(lake), format="json")
    someone_else = api_as(cast.admin).post("/api/v1/row-checks/preview/", _body(lake), format="json")

    assert [p.status_code for p in posted] == [202] * 5
    assert [p.json()["status"] for p in posted] == ["queued"] * 5
    assert sixth.status_code == 429
    assert sixth.json()["message"].startswith("You have 5 previews in progress (at most 5 at once)")
    assert someone_else.status_code == 202  # the limit is per user
    # A job no worker took ends `error` when polled past its wait, and no longer counts.
    PreviewJob.objects.filter(pk=posted[0].json()["id"]).update(created_at=timezone.now() - timedelta(hours=1))
    lost = client.get(posted[0].json()["url"]).json()
    assert lost["status"] == "error" and "No worker took the preview" in lost["message"]
    assert client.post("/api/v1/row-checks/preview/", _body(lake), format="json").status_code == 202
    redis.Redis.from_url(REDIS_URL).delete(settings.DQ_PREVIEW_QUEUE)


def test_a_preview_job_is_seen_by_its_author_only(cast, api_as, lake, settings):
    settings.DQ_PREVIEW_QUEUE = f"preview-nobody-{cast.author.pk}-{time.monotonic_ns()}"
    job = api_as(cast.author).post("/api/v1/row-checks/preview/", _body(lake), format="json").json()

    assert api_as(cast.admin).get(job["url"]).status_code == 404
    assert api_as(cast.author).get(job["url"]).json()["status"] == "queued"
    redis.Redis.from_url(REDIS_URL).delete(settings.DQ_PREVIEW_QUEUE)


def test_a_preview_with_a_real_worker_answers_through_the_poll(cast, api_as, lake, celery_worker_process):
    posted, answer = preview_and_wait(api_as(cast.author), _body(lake))

    assert (posted, answer["status"], answer["engine"]) == (202, "done", "duckdb"), answer
    assert (answer["rows"], answer["invalid_rows"]) == (3, 2)
