"""Through real processes: two `celery beat` (the production scheduler, dq_platform.beat) and a
`celery worker` on the default queue, sharing this test session's database file over Redis.

- A schedule firing every minute starts runs with trigger `schedule` and the slot's business
  date, one per slot although two beats tick.
- A run recorded here sends its alerts through the worker: one e-mail (the platform's SMTP
  server, EMAIL_URL) and one webhook per run, none for a second failure, one recovery; a channel
  whose server is down is retried with backoff and recorded as failed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import datetime, timedelta

import pytest
from django.conf import settings
from django.db import transaction

from conftest import REDIS_URL
from executions.models import Run
from executions.tests.conftest import _die_with_parent
from watching.models import AlertChannel, AlertedRun, DeliveryAttempt, Notification

from .conftest import Mailbox, _Collect, free_port, record_run

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
ROOT = settings.BASE_DIR
FAILING, PASSING = 2, 0


class CeleryProcess:
    def __init__(self, args: list[str], env: dict[str, str], log_path):
        self.log_path = log_path
        with log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "dq_platform", *args],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, 15)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait(timeout=30)

    @property
    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


@pytest.fixture(scope="module")
def module_smtp():
    from aiosmtpd.controller import Controller

    box = Mailbox(port=free_port())
    controller = Controller(_Collect(box), hostname="127.0.0.1", port=box.port)
    controller.start()
    yield box
    controller.stop()


@pytest.fixture(scope="module")
def processes_env(django_db_setup, module_smtp, tmp_path_factory):
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=3).ping()
    except redis.ConnectionError as exc:
        pytest.fail(f"Redis unreachable at {REDIS_URL} ({exc}); start it with scripts/services.sh.", pytrace=False)
    # Runs started here are only looked at, never executed: their queue has no consumer.
    unused_queue = f"unused-spark-{os.getpid()}"
    previous, settings.DQ_SPARK_QUEUE = settings.DQ_SPARK_QUEUE, unused_queue
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "dq_platform.settings_test",
        "DATABASE_URL": f"sqlite:///{settings.DATABASES['default']['NAME']}",
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_RESULT_BACKEND": REDIS_URL,
        "DQ_SPARK_QUEUE": unused_queue,
        "DQ_SCHEDULE_TICK": "2",
        "DQ_REAPER_INTERVAL": "3600",
        "DQ_NOTIFY_ATTEMPTS": "3",
        "DQ_NOTIFY_BACKOFF": "0.5",
        "EMAIL_URL": f"smtp://127.0.0.1:{module_smtp.port}",
        "DQ_ALERT_ALLOWED_HOSTS": "127.0.0.1",  # the webhook receivers of these tests
        "DEFAULT_FROM_EMAIL": "dq@example.com",
        "DQ_PUBLIC_URL": "https://dq.example.com",
        "DQ_FILE_ROOTS": str(tmp_path_factory.getbasetemp()),
    }
    yield env, tmp_path_factory.mktemp("celery-logs")
    settings.DQ_SPARK_QUEUE = previous
    redis.Redis.from_url(REDIS_URL).delete(unused_queue)


@pytest.fixture(scope="module")
def default_worker(processes_env):
    env, logs = processes_env
    worker = CeleryProcess(
        [
            "worker",
            "-Q",
            "default",
            "-c",
            "2",
            "-l",
            "info",
            "-n",
            f"watching-{os.getpid()}@%h",
            "--without-mingle",
            "--without-gossip",
        ],
        env,
        logs / "worker.log",
    )
    yield worker
    worker.stop()


def _wait(condition, timeout: float, what: str, *processes: CeleryProcess):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.5)
    tails = "\n".join(f"--- {p.log_path.name}\n{p.log[-3000:]}" for p in processes)
    raise AssertionError(f"Timed out waiting for {what}.\n{tails}")


def test_two_beats_and_a_worker_start_one_run_per_minute_with_trigger_schedule(
    cast, api_as, make_check, default_worker, processes_env
):
    env, logs = processes_env
    check = make_check("statuses present")
    created = api_as(cast.author).post(
        "/api/v1/schedules/",
        {
            "name": "every minute",
            "cron": "* * * * *",
            "timezone": "Asia/Shanghai",
            "checks": [check.pk],
            "biz_date_offset_days": -1,
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    schedule_id = created.json()["id"]
    beats = [
        CeleryProcess(["beat", "-S", "dq_platform.beat:Scheduler", "-l", "info"], env, logs / f"beat-{n}.log")
        for n in (1, 2)
    ]
    try:
        runs = _wait(
            lambda: (lambda found: found if len(found) >= 2 else None)(list(Run.objects.order_by("id"))),
            200,
            "two scheduled runs",
            default_worker,
            *beats,
        )
        time.sleep(5)  # more ticks of both beats see the same slots: still one run each
        assert all("Sending due task fire-due-schedules" in beat.log for beat in beats)
    finally:
        for beat in beats:
            beat.stop()
    runs = list(Run.objects.order_by("id"))
    keys = [r.idempotency_key for r in runs]
    assert len(set(keys)) == len(keys), keys  # one run per slot
    for run in runs:
        assert run.trigger == "schedule" and run.created_by == cast.author
        prefix = f"schedule:{schedule_id}:"
        assert run.idempotency_key.startswith(prefix)
        slot = datetime.fromisoformat(run.idempotency_key[len(prefix) :])
        assert slot.utcoffset() == timedelta(hours=8) and slot.second == 0
        assert run.biz_date == slot.date() - timedelta(days=1)
        assert [v.parent_check_id for v in run.check_versions.all()] == [check.pk]
    slots = [datetime.fromisoformat(k.split(":", 2)[2]) for k in keys]
    assert all(b - a == timedelta(minutes=1) for a, b in zip(slots, slots[1:], strict=False))


def test_alerts_go_through_the_worker_once_per_run_and_channel_and_a_dead_channel_is_retried(
    cast, make_check, default_worker, module_smtp, webhook_server, closed_port
):
    module_smtp.mails.clear()
    mail = AlertChannel(name="mail", kind="email", notify_on=["fail", "error", "recovery"])
    mail.target = "dq-team@example.com"
    mail.save()
    hook = AlertChannel(name="hook", kind="webhook", notify_on=["fail", "error", "recovery"])
    hook.target = webhook_server.url
    hook.save()
    dead = AlertChannel(name="dead", kind="webhook", notify_on=["fail"])
    dead.target = f"http://127.0.0.1:{closed_port}/hook?token=deadSecret-9931"
    dead.save()
    check = make_check("statuses present")

    def run_and_wait(outcome) -> Run:
        with transaction.atomic():
            run = record_run([check], {check: outcome})
        _wait(lambda: AlertedRun.objects.filter(run=run).exists(), 60, f"the alerts of run {run.pk}", default_worker)
        return run

    first = run_and_wait(FAILING)
    (sent,) = module_smtp.wait_for(1)
    assert sent["subject"] == f"[DQ] Run {first.pk}: statuses present: 1 check failed"
    assert f"https://dq.example.com/runs/{first.pk}" in sent["text"] and "2 − 0 = 2 > 0 → fail" in sent["text"]
    (request,) = webhook_server.wait_for(1)
    assert request["json"]["failures"][0]["check_name"] == "statuses present"
    failed = _wait(
        lambda: Notification.objects.filter(run=first, channel_name="dead", status="failed").first(),
        60,
        "the dead channel's last attempt",
        default_worker,
    )
    assert failed.attempt == 3 and "could not be reached" in failed.error and "deadSecret-9931" not in failed.error
    times = list(DeliveryAttempt.objects.filter(notification=failed).values_list("at", flat=True))
    assert len(times) == 3 and (times[2] - times[1]) > (times[1] - times[0]) * 1.3  # backoff grows
    assert Run.objects.get(pk=first.pk).status == "failed"
    assert list(first.results.values_list("status", flat=True)) == ["fail"]

    second = run_and_wait(FAILING)
    time.sleep(1)
    assert not Notification.objects.filter(run=second).exists() and len(module_smtp.mails) == 1

    recovered = run_and_wait(PASSING)
    mails = module_smtp.wait_for(2)
    assert len(mails) == 2 and mails[1]["subject"] == f"[DQ] Run {recovered.pk}: 1 recovered"
    assert webhook_server.wait_for(2)[1]["json"]["recoveries"][0]["check_name"] == "statuses present"
    assert "deadSecret-9931" not in default_worker.log
