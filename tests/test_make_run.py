"""`make run` (scripts/run.sh) as a user runs it: a worker killed with SIGKILL is started again and
the web server keeps serving (a dead worker used to stop the web server too)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BANNER = "Data quality platform is running"
RESTARTED = "The Celery worker stopped (exit status 137); starting a new one."


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _celery_children(parent: int) -> list[int]:
    """The worker leaders run.sh started: celery worker processes below it whose parent is not a
    celery worker itself (setsid may fork, so a leader can be a grandchild of run.sh). `-ww`: ps cuts
    its lines at 80 columns when not on a terminal, which hid " worker " behind a long checkout path."""
    out = subprocess.run(["ps", "-ww", "-e", "-o", "pid=,ppid=,args="], capture_output=True, text=True).stdout
    processes = {}
    for line in out.splitlines():
        pid, ppid, args = line.split(None, 2) if len(line.split(None, 2)) == 3 else (*line.split(), "")
        processes[int(pid)] = (int(ppid), args)

    def is_worker(pid: int) -> bool:
        args = processes.get(pid, (0, ""))[1]
        return "celery" in args and " worker " in args

    def below_parent(pid: int) -> bool:
        while pid in processes and pid != parent:
            pid = processes[pid][0]
        return pid == parent

    return sorted(pid for pid in processes if is_worker(pid) and not is_worker(processes[pid][0]) and below_parent(pid))


def _group(leader: int) -> list[str]:
    return subprocess.run(["ps", "-o", "pid=", "-g", str(leader)], capture_output=True, text=True).stdout.split()


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


# What the test settings put in this process's environment (dq_platform/settings_test.py: a Redis
# broker shared with the end-to-end tests' workers). A user's `make run` has none of it: it runs on
# the embedded filesystem broker and SQLite under its own var directory.
TEST_ONLY = ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND")


def _user_env(var_dir: Path) -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if k not in TEST_ONLY}, "DQ_VAR_DIR": str(var_dir)}


def _worker_answers(var_dir: Path) -> bool:
    command = [".venv/bin/celery", "-A", "dq_platform", "inspect", "ping", "--timeout", "3", "-d", "make-run@localhost"]
    return subprocess.run(command, cwd=REPO, env=_user_env(var_dir), capture_output=True).returncode == 0


def _wait(what: str, condition, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen in {timeout:.0f} s:\n{log.read_text()[-3000:]}"
        time.sleep(0.5)


@pytest.fixture
def make_run(tmp_path):
    """scripts/run.sh (what `make run` runs after its builds) on a free port and its own var dir."""
    port = _free_port()
    env = {**_user_env(tmp_path / "var"), "PORT": str(port)}
    log = tmp_path / "run.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            ["scripts/run.sh"], cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield process, port, log
    finally:
        process.send_signal(signal.SIGTERM)  # its stop_all: TERM to both servers, KILL after 30 s
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_a_killed_worker_is_started_again_while_the_web_server_keeps_serving(make_run):
    process, port, log = make_run
    _wait("the start-up banner", lambda: BANNER in log.read_text(), log, timeout=300)
    [first] = _celery_children(process.pid)

    os.kill(first, signal.SIGKILL)

    # run.sh says so, ends the dead worker's group, then starts the new one (until then the dead
    # leader's pool process may still be listed beneath it)
    _wait("the restart message", lambda: RESTARTED in log.read_text(), log, timeout=60)
    _wait("a new worker", lambda: _celery_children(process.pid) not in ([], [first]), log, timeout=60)
    assert process.poll() is None and _healthy(port), log.read_text()[-3000:]
    [second] = _celery_children(process.pid)
    # The dead worker's pool process and embedded beat went with it: no orphan runs checks or
    # fires schedules beside the new worker.
    _wait("the end of the killed worker's processes", lambda: not _group(first), log, timeout=15)
    _wait(f"an answer from the new worker {second}", lambda: _worker_answers(log.parent / "var"), log, timeout=120)
    assert _healthy(port)
