"""Worker liveness: each process that runs runs keeps a WorkerHeartbeat row fresh.

Who starts the beating (dq_platform/celery.py connects the signals): a prefork pool process when it
starts (the process that runs tasks, so a pool process killed mid-run stops beating even though
its parent lives on), or the worker itself with a solo/threads pool. A process that runs a run
without that (an eager task in the web process, a test) beats for the length of the run only
(`holding`). The reaper (executions/reaper.py) reads the rows; nothing here changes a run.

The row says which queues the process consumes, the run it holds now and since when it is idle:
a queued run that nobody took while a worker consuming its queue has been idle longer than the
claim timeout lost its message.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone

from .models import WorkerHeartbeat

log = logging.getLogger(__name__)

# Rows not seen for this long are deleted by the reaper (kept a while for the admin's list).
FORGET_AFTER = timedelta(days=1)


@dataclass
class _Process:
    name: str
    queues: list[str]
    pid: int = field(default_factory=os.getpid)
    run_id: int | None = None
    idle_since: datetime | None = field(default_factory=timezone.now)


_lock = threading.Lock()  # the beating thread and the task's thread both write the row
_node: str = ""  # the Celery node name, kept by the worker before it forks its pool
_queues: list[str] = []
_me: _Process | None = None
_beater: _Beater | None = None


def remember_worker(node: str, queues: list[str]) -> None:
    """Called in the worker before its pool forks (the children inherit it)."""
    global _node, _queues
    _node, _queues = node, sorted(queues)


def start(node: str = "") -> None:
    """Start beating from this process until it exits (or `stop`)."""
    global _beater
    me = _myself(node)
    if _beater is None or not _beater.is_alive():
        _beater = _Beater(me)
        _beater.start()


def stop() -> None:
    """A clean shutdown: stop beating and remove the row (a stopped worker is not a dead one)."""
    global _beater
    if _beater is not None:
        _beater.halt()
        _beater = None
    if _me is not None and _me.pid == os.getpid():
        try:
            WorkerHeartbeat.objects.filter(name=_me.name).delete()
        except Exception:  # noqa: BLE001 — shutting down: the row goes stale and the reaper forgets it
            log.warning("Could not remove the heartbeat of %s", _me.name, exc_info=True)


def worker_name() -> str:
    return _myself().name


@contextmanager
def holding(run_id: int) -> Iterator[None]:
    """The run this process executes now: written at once, cleared (idle again) at the end."""
    me = _myself()
    temporary = _beater is None or not _beater.is_alive()
    beater = _Beater(me) if temporary else None
    me.run_id, me.idle_since = run_id, None
    _beat_or_warn()
    if beater:
        beater.start()
    try:
        yield
    finally:
        me.run_id, me.idle_since = None, timezone.now()
        if beater:
            beater.halt()
        _beat_or_warn()


def _beat_or_warn() -> None:
    """A heartbeat that cannot be written must not fail the run; the next one may succeed."""
    try:
        beat()
    except Exception:  # noqa: BLE001
        log.warning("Could not write the heartbeat of %s", _myself().name, exc_info=True)


def beat() -> None:
    """Write this process's heartbeat row now."""
    me = _myself()
    values = {"queues": me.queues, "run_id": me.run_id, "idle_since": me.idle_since, "last_seen": timezone.now()}
    with _lock:
        if not WorkerHeartbeat.objects.filter(name=me.name).update(**values):
            WorkerHeartbeat.objects.create(name=me.name, **values)


def _myself(node: str = "") -> _Process:
    """This process's identity; a forked child makes its own (a new pid is a new worker)."""
    global _me
    if _me is None or _me.pid != os.getpid():
        node = node or _node or socket.gethostname()
        _me = _Process(name=f"{node} pid {os.getpid()}", queues=list(_queues))
    return _me


class _Beater(threading.Thread):
    def __init__(self, me: _Process):
        super().__init__(name="dq-heartbeat", daemon=True)
        self.me = me
        self.halted = threading.Event()

    def run(self) -> None:
        try:
            while not self.halted.is_set():
                try:
                    beat()
                except Exception:  # noqa: BLE001 — a database hiccup must not stop the beating
                    log.warning("Could not write the heartbeat of %s", self.me.name, exc_info=True)
                    connection.close()  # a broken connection is opened anew on the next beat
                self.halted.wait(settings.DQ_WORKER_HEARTBEAT_INTERVAL)
        finally:
            connection.close()  # this thread's own connection

    def halt(self) -> None:
        self.halted.set()
        if self is not threading.current_thread():
            self.join(timeout=10)
