"""Real servers in the test process (an SMTP server, an HTTP server), checks on a small Parquet
datasource, and runs recorded from an engine result document through executions' own recording
(so the hook that alerts is the real one)."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from http.server import BaseHTTPRequestHandler

import pytest

from tests.support.receiver import serving

NULL_CHECK = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "fix_value",
    "comparison_value": 0,
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- a real SMTP server -------------------------------------------------------------------------
@dataclass
class Mailbox:
    port: int
    mails: list = field(default_factory=list)

    def wait_for(self, count: int, timeout: float = 30) -> list:
        deadline = time.monotonic() + timeout
        while len(self.mails) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.mails


class _Collect:
    def __init__(self, box: Mailbox):
        self.box = box

    async def handle_DATA(self, server, session, envelope):
        parsed = message_from_bytes(envelope.content, policy=policy.default)
        part = parsed.get_body(preferencelist=("plain",))
        self.box.mails.append(
            {
                "from": envelope.mail_from,
                "to": list(envelope.rcpt_tos),
                "subject": str(parsed["subject"]),
                "text": part.get_content() if part else "",
            }
        )
        return "250 Message accepted"


@pytest.fixture
def smtp_server(settings):
    """aiosmtpd on 127.0.0.1; the platform's EMAIL_* settings point at it."""
    from aiosmtpd.controller import Controller

    box = Mailbox(port=free_port())
    controller = Controller(_Collect(box), hostname="127.0.0.1", port=box.port)
    controller.start()
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", box.port
    settings.EMAIL_HOST_USER, settings.EMAIL_HOST_PASSWORD = "", ""
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.DEFAULT_FROM_EMAIL = "dq@example.com"
    settings.DQ_ALERT_ALLOWED_HOSTS = ["127.0.0.1"]
    yield box
    controller.stop()


# --- a real HTTP server (the webhook's receiver) --------------------------------------------------
@dataclass
class Hook:
    url: str
    requests: list = field(default_factory=list)
    status: int = 200
    answer: bytes = b"ok"

    def wait_for(self, count: int, timeout: float = 30) -> list:
        deadline = time.monotonic() + timeout
        while len(self.requests) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.requests


@pytest.fixture
def webhook_server(settings):
    """An HTTP receiver on 127.0.0.1, which alert targets may reach only because the allow-list
    names it (DQ_ALERT_ALLOWED_HOSTS)."""
    settings.DQ_ALERT_ALLOWED_HOSTS = ["127.0.0.1"]
    hook = Hook(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 — the name http.server calls
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            hook.requests.append(
                {"path": self.path, "content_type": self.headers.get("Content-Type"), "json": json.loads(body or b"{}")}
            )
            self.send_response(hook.status)
            self.end_headers()
            self.wfile.write(hook.answer)

        def log_message(self, *args):  # keep the test output clean
            pass

    with serving(Handler) as port:
        hook.url = f"http://127.0.0.1:{port}/hooks/dq?token=hook-Secret-7781"
        yield hook


# --- checks and runs ------------------------------------------------------------------------------
@pytest.fixture
def lake(make_datasource, parquet_dir):
    return make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))


@pytest.fixture
def make_check(api_as, cast, lake):
    """`make_check(name, **verdict)` → a null check on lake's `orders.status`, owned by the author."""

    def make(name: str, client=None, **verdict):
        params = {"src_datasource_id": lake.pk, "src_table": "orders", "src_field": "status", **NULL_CHECK, **verdict}
        response = (client or api_as(cast.author)).post(
            "/api/v1/checks/", {"name": name, "template": "null_check", "params": params}, format="json"
        )
        assert response.status_code == 201, response.json()
        from rules.models import Check

        return Check.objects.get(pk=response.json()["id"])

    return make


@pytest.fixture
def eager_celery():
    from dq_platform.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield app
    app.conf.task_always_eager = before


def record_run(checks, outcomes: dict, user=None, trigger="schedule", biz_date=None, partition=None, rows=3):
    """Start a run of `checks` and record the engine's answer: `outcomes[check]` is a statistic
    (a number) or "error"; `partition` narrows the run to one partition of lake's orders, as a
    registered batch does, and `rows` is how many rows the engine read. Returns the finished run."""
    from executions.models import Run
    from executions.recording import record_results
    from executions.starting import start_run

    partitions = None
    if partition:
        partitions = {(checks[0].params["src_datasource_id"], "orders"): partition}
    run, _ = start_run(checks, user, biz_date=biz_date, trigger=trigger, partitions=partitions)
    assert Run.claim(run.pk, run.attempt)
    document = {"checks": {}, "batches": {"b1": {"rows": rows}}}
    for version in run.check_versions.all():
        outcome = outcomes[version.parent_check]
        document["checks"][str(version.pk)] = (
            {"status": "error", "message": "The table orders could not be read: permission denied."}
            if outcome == "error"
            else {"status": "ok", "statistic": outcome, "error_row_count": outcome}
        )
    record_results(run, document)
    run.refresh_from_db()
    return run


@pytest.fixture
def finish_run(django_capture_on_commit_callbacks, eager_celery):
    """`finish_run(checks, outcomes)`: a run recorded, committed, alerted on and delivered (eager tasks)."""

    def finish(checks, outcomes, **kwargs):
        with django_capture_on_commit_callbacks(execute=True):
            return record_run(checks, outcomes, **kwargs)

    return finish


@pytest.fixture
def analysts_member(cast, django_user_model):
    """A second member of the author's group: sees the author's checks, owns none of them."""
    member = django_user_model.objects.create_user("colleague", password="colleague-pass-123")
    member.groups.add(cast.analysts)
    return member


@pytest.fixture
def channels(cast, smtp_server, webhook_server):
    """A mail channel and a webhook channel, each told of failures, errors and recoveries, their
    targets the in-process SMTP and HTTP receivers."""
    from watching.models import AlertChannel

    email = AlertChannel(name="dq team mail", kind="email", notify_on=["fail", "error", "recovery"])
    email.target = "dq-team@example.com"
    email.save()
    hook = AlertChannel(name="ci hook", kind="webhook", notify_on=["fail", "error", "recovery"])
    hook.target = webhook_server.url
    hook.save()
    return email, hook
