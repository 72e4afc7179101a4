"""The embedded broker of `make run` (dq_platform/broker.py): a worker never takes a message
that is still being written, so none is lost and the worker does not stop on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from queue import Empty

from django.conf import settings
from kombu import Connection

TRANSPORT = "dq_platform.broker:Transport"


def test_a_worker_polling_while_a_message_is_written_finds_nothing_then_the_whole_message(tmp_path, monkeypatch):
    from dq_platform import broker

    options = {"data_folder_in": str(tmp_path), "data_folder_out": str(tmp_path)}
    polled_mid_write = []
    with (
        Connection("filesystem://", transport=TRANSPORT, transport_options=options) as web,
        Connection("filesystem://", transport=TRANSPORT, transport_options=options) as worker,
    ):
        reader = worker.default_channel

        def serialise_while_the_worker_polls(payload):
            # The message file is open at this point; a worker polls the folder now. kombu's own
            # transport hands it the empty file here (JSONDecodeError: the worker stops).
            try:
                polled_mid_write.append(reader._get("runs"))
            except Empty:
                polled_mid_write.append("nothing yet")
            return json.dumps(payload)

        monkeypatch.setattr(broker, "dumps", serialise_while_the_worker_polls)
        web.SimpleQueue("runs").put({"run": 7})

        assert polled_mid_write == ["nothing yet"]
        message = worker.SimpleQueue("runs").get(timeout=5)
        assert message.payload == {"run": 7}
        message.ack()
    assert not any(name.endswith(".part") for name in os.listdir(tmp_path))


def test_make_runs_filesystem_broker_uses_the_whole_message_transport(tmp_path):
    env = {
        **os.environ,
        "CELERY_BROKER_URL": "filesystem://",
        "DQ_VAR_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "dq_platform.settings",
    }
    env.pop("DATABASE_URL", None)
    script = "from dq_platform.celery import app; print(type(app.connection_for_write().transport).__module__)"
    shown = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {script}"],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.stdout.strip() == "dq_platform.broker", shown.stderr[-2000:]
