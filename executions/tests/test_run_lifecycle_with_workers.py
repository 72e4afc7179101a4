"""The run lifecycle with real processes: Celery workers running Spark, beat running the reaper, a
worker killed with SIGKILL. Runs read a small Parquet dataset; the slow one is a custom SQL cross
join that would take hours, so only a time limit, a cancel or a dead worker ends it."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from executions.models import Run

from .conftest import VERDICT, create_check, tasks_sent_to, wait_for_run

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

CROSS_JOIN = (
    "SELECT count(*) AS n FROM ${src_table} a CROSS JOIN ${src_table} b CROSS JOIN ${src_table} c "
    "CROSS JOIN ${src_table} d"
)


@pytest.fixture
def checks(cast, api_as, lake, parquet_dir):
    """{"slow": a check that runs for hours, "quick": one that passes in seconds}."""
    (parquet_dir / "numbers").mkdir()
    pq.write_table(pa.table({"n": pa.array(range(3000), pa.int64())}), parquet_dir / "numbers" / "part-0.parquet")
    client = api_as(cast.author)
    source = {"src_datasource_id": lake.pk, "src_table": "numbers"}
    slow = create_check(
        client,
        "cross join",
        "custom_sql",
        **source,
        statistics_name="pairs",
        statistics_execute_sql=CROSS_JOIN,
        **VERDICT,
    )
    quick = create_check(client, "ids present", "null_check", **source, src_field="n", **VERDICT)
    return {"slow": slow, "quick": quick}


@pytest.fixture
def engine_env(file_roots, tmp_path):
    return {"DQ_FILE_ROOTS": str(file_roots), "DQ_ERROR_DATA_ROOT": str(tmp_path / "error-data")}


def _start(client, check: int) -> int:
    response = client.post("/api/v1/runs/", {"checks": [check]}, format="json")
    assert response.status_code == 202, response.json()
    return response.json()["id"]


def _wait_until_running(run_id: int, worker, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while Run.objects.get(pk=run_id).status != "running":
        assert time.monotonic() < deadline, f"the worker never took run {run_id}:\n{worker.log_tail()}"
        time.sleep(0.5)


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_a_run_past_its_time_limit_ends_error_and_the_worker_then_runs_the_next(
    cast, api_as, checks, celery_processes, engine_env
):
    worker = celery_processes.worker("redis", DQ_RUN_TIME_LIMIT=20, **engine_env)
    client = api_as(cast.author)
    # A first run starts the worker's JVM (up to a minute on a busy machine, so it may even end on
    # the time limit itself); the runs below find it started.
    wait_for_run(client, _start(client, checks["quick"]))
    slow, quick = _start(client, checks["slow"]), _start(client, checks["quick"])
    stopped = wait_for_run(client, slow, timeout=240)
    assert stopped["status"] == "error", worker.log_tail()
    assert stopped["message"].startswith("The run took longer than its time limit (20 s) and was stopped.")
    assert "raise the limit with the DQ_RUN_TIME_LIMIT setting" in stopped["message"]
    assert [r["status"] for r in stopped["results"]] == ["error"]
    assert stopped["results"][0]["message"] == stopped["message"]
    assert 20 <= stopped["duration_seconds"] < 20 + 10  # its Spark jobs were cancelled, not waited for
    following = wait_for_run(client, quick, timeout=120)
    assert following["status"] == "passed", following
    assert following["worker"] == stopped["worker"] and following["worker"]  # the same worker took it


def test_a_cancelled_running_run_stops_its_spark_jobs_and_the_worker_runs_the_next(
    cast, api_as, checks, celery_processes, engine_env
):
    worker = celery_processes.worker("redis", DQ_RUN_TIME_LIMIT=600, **engine_env)
    client = api_as(cast.author)
    assert wait_for_run(client, _start(client, checks["quick"]))["status"] == "passed"  # the JVM is up
    slow = _start(client, checks["slow"])
    _wait_until_running(slow, worker)
    time.sleep(4)  # the cross join is under way in Spark
    response = client.post(f"/api/v1/runs/{slow}/cancel/")
    assert response.status_code == 200 and response.json()["status"] == "cancelled"
    cancelled_at = _moment(response.json()["finished_at"])
    quick = _start(client, checks["quick"])
    following = wait_for_run(client, quick, timeout=120)
    assert following["status"] == "passed", worker.log_tail()
    # The worker takes the next run only once the cancelled one's engine call has returned.
    waited = (_moment(following["started_at"]) - cancelled_at).total_seconds()
    assert waited < 10, f"the worker went on with the cancelled run for {waited:.1f} s:\n{worker.log_tail()}"
    run = Run.objects.get(pk=slow)
    assert run.status == "cancelled" and run.message == "Cancelled by author." and not run.results.exists()


def _queued_messages(broker_dir: Path, queue: str) -> list[Path]:
    return sorted((broker_dir / "queue").glob(f"*.{queue}.msg"))


@pytest.mark.parametrize("broker", ["filesystem", "redis"])
def test_no_run_is_lost_when_the_worker_is_killed_holding_one_running_and_two_queued(
    cast, api_as, checks, celery_processes, engine_env, broker
):
    quick_reaping = {
        "DQ_WORKER_HEARTBEAT_INTERVAL": 1,
        "DQ_WORKER_STALE_AFTER": 5,
        "DQ_RUN_CLAIM_TIMEOUT": 5,
        "DQ_REAPER_INTERVAL": 2,
        "DQ_RUN_TIME_LIMIT": 600,
        **engine_env,
    }
    client = api_as(cast.author)
    with tasks_sent_to(broker, celery_processes.broker_dir):
        first = celery_processes.worker(broker, name="first", **quick_reaping)
        beat = celery_processes.beat(broker, **quick_reaping)
        running = _start(client, checks["slow"])
        _wait_until_running(running, first)
        queued = [_start(client, checks["quick"]), _start(client, checks["quick"])]
        # Longer than a heartbeat may be late, with the reaper running every 2 s: a worker that is
        # busy but alive keeps its run (and time enough to fetch more messages, if it would).
        time.sleep(8)
        assert Run.objects.get(pk=running).status == "running", beat.log_tail()
        if broker == "filesystem":  # prefetch 1: the busy worker left them in the broker's folder ...
            messages = _queued_messages(celery_processes.broker_dir, celery_processes.queue)
            assert len(messages) == 2
            # ... but say one was fetched by a worker that then died (as with the former prefetch of
            # 4): its message is gone for good, and the reaper has to send it again.
            messages[-1].unlink()
        first.kill()
        assert [Run.objects.get(pk=i).status for i in [running, *queued]] == ["running", "queued", "queued"]

        killed_at = time.monotonic()
        second = celery_processes.worker(broker, name="second", **quick_reaping)
        while Run.objects.filter(pk__in=[running, *queued], status__in=["queued", "running"]).exists():
            # A bound for all three: the new worker's JVM start alone took up to 70 s on this 2-core
            # machine under load; the runs then take seconds.
            assert time.monotonic() - killed_at < 120, (
                f"runs still waiting: {list(Run.objects.values_list('id', 'status'))}\n"
                f"worker:\n{second.log_tail()}\nbeat:\n{beat.log_tail()}"
            )
            time.sleep(1)
    lost = Run.objects.get(pk=running)
    assert lost.status == "error" and "stopped before it finished" in lost.message and "retry the run" in lost.message
    assert [Run.objects.get(pk=i).status for i in queued] == ["passed", "passed"]
    assert all(Run.objects.get(pk=i).worker.startswith("second-") for i in queued)
    if broker == "filesystem":  # the run whose message was lost was sent once more
        assert sorted(Run.objects.get(pk=i).enqueue_count for i in queued) == [1, 2]
