"""Server processes for the tests that run the platform as it is deployed (the schema fuzz, the
production smoke test): started with their own environment and log, stopped by their PID."""

from __future__ import annotations

import ctypes
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path


def _die_with_parent() -> None:
    # Linux: SIGTERM when the test process dies (a CI time limit, say): no orphan keeps serving.
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    def __init__(self, name: str, command: list[str], env: dict[str, str], cwd: Path, log_dir: Path):
        self.name, self.command, self.env, self.cwd = name, command, env, cwd
        self.log_path = log_dir / f"{name}.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> Server:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            self.command, cwd=self.cwd, env=self.env, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent
        )
        return self

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout: float = 30) -> None:
        if not self.alive():
            return
        self.process.terminate()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)

    def log_tail(self, lines: int = 40) -> str:
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])


def wait_for_http(url: str, server: Server, timeout: float = 120) -> None:
    """Until `url` answers anything below 500, or fail with the server's log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not server.alive():
            raise AssertionError(f"{server.name} exited during start-up:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except urllib.error.HTTPError as exc:
            if exc.code < 500:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"{server.name} did not answer {url} within {timeout} s:\n{server.log_tail()}")


def run_checked(command: list[str], env: dict[str, str], cwd: Path, timeout: float = 600) -> str:
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout
