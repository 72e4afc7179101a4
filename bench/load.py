"""Web server under a crowd: each list endpoint's throughput at `--clients` concurrent clients, as
a share of `/healthz`'s in the same run, and how long a `POST /api/v1/runs/` waits to be accepted
under that load. Last line: `load_share_min=<x> post_run_accept_s=<y>`.

It starts the platform as `make run` does (scripts/run.sh: gunicorn with conf/gunicorn.conf.py and
one Celery worker) on a fresh var directory (SQLite, the filesystem broker) and a port of its own
on the loopback, seeds a member who sees ~1,000 checks and ~10,000 results (bench/load_seed.py,
bulk inserts), then loads one endpoint at a time for `--seconds` seconds with a small keep-alive
HTTP/1.1 client on asyncio (no extra package). Everything is bounded: the clients stop at the
end of each window, the platform is stopped by its process id, and the whole run gives up after
`--timeout` seconds.

Run: `make bench-load`, or `.venv/bin/python -m bench.load [--clients 100] [--seconds 20]
[--checks 1000] [--results 10000]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
HOST = "127.0.0.1"
HEALTHZ = "/healthz"
ENDPOINTS = [
    HEALTHZ,
    "/api/v1/checks/",
    "/api/v1/results/?latest=true",
    "/api/v1/results/summary/",
    "/api/v1/runs/",
    "/api/v1/incidents/",
]
# The platform's own settings must not leak in from the caller's shell (a test database, Redis).
DROPPED_ENV = ("DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "DJANGO_SETTINGS_MODULE", "DQ_FILE_ROOTS")


@dataclass
class Window:
    path: str
    seconds: float
    ok: int = 0
    failed: int = 0
    latencies: list[float] = field(default_factory=list)
    post_run_s: float | None = None

    @property
    def rate(self) -> float:
        return self.ok / self.seconds

    @property
    def p95_ms(self) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


class Connection:
    """One keep-alive HTTP/1.1 connection; reopened when the server closes it."""

    def __init__(self, port: int, token: str):
        self.port, self.token = port, token
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\nAuthorization: Token {self.token}\r\n"
            f"Accept: application/json\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        try:
            self.writer.write(head.encode() + body)
            await self.writer.drain()
            return await self._response()
        except (ConnectionError, asyncio.IncompleteReadError):
            await self.close()
            raise

    async def _response(self) -> tuple[int, bytes]:
        status = int((await self.reader.readline()).split()[1])
        headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while size := int((await self.reader.readline()).split(b";")[0], 16):
                parts.append(await self.reader.readexactly(size))
                await self.reader.readline()
            await self.reader.readline()
            body = b"".join(parts)
        else:
            body = await self.reader.read()
            headers["connection"] = "close"
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, body

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None


async def _client(port: int, token: str, window: Window, stop_at: float) -> None:
    connection = Connection(port, token)
    while time.monotonic() < stop_at:
        started = time.monotonic()
        try:
            status, _ = await asyncio.wait_for(connection.request("GET", window.path), stop_at + 30 - started)
        except (TimeoutError, OSError, asyncio.IncompleteReadError, ValueError, IndexError):
            window.failed += 1
            await connection.close()  # its late answer must not be read as the next one's
            await asyncio.sleep(0.05)
            continue
        if time.monotonic() <= stop_at:  # only answers within the window count
            if status < 400:
                window.ok += 1
                window.latencies.append(time.monotonic() - started)
            else:
                window.failed += 1
    await connection.close()


async def _post_run(port: int, token: str, check_id: int, delay: float, window: Window) -> None:
    await asyncio.sleep(delay)
    connection = Connection(port, token)
    started = time.monotonic()
    status, body = await connection.request("POST", "/api/v1/runs/", json.dumps({"checks": [check_id]}).encode())
    window.post_run_s = time.monotonic() - started
    await connection.close()
    if status not in (200, 202):
        raise RuntimeError(f"POST /api/v1/runs/ answered {status}: {body[:300]!r}")


async def load(port: int, token: str, path: str, clients: int, seconds: float, check_id: int | None) -> Window:
    """`clients` clients GET `path` for `seconds`; a run is posted half-way through (not for /healthz)."""
    window = Window(path, seconds)
    stop_at = time.monotonic() + seconds
    tasks = [_client(port, token, window, stop_at) for _ in range(clients)]
    if check_id is not None:
        tasks.append(_post_run(port, token, check_id, seconds / 2, window))
    await asyncio.gather(*tasks)
    return window


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=10):
            return True
    except OSError:
        return False


class Platform:
    """scripts/run.sh on a fresh var directory and port; stopped by its process id."""

    def __init__(self, var: Path, port: int):
        self.var, self.port = var, port
        self.env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
        self.env.update(DQ_VAR_DIR=str(var), PORT=str(port), PYTHONPATH=str(ROOT), DQ_ACCESS_LOG="/dev/null")
        self.process: subprocess.Popen | None = None
        self.log = var / "run.log"

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [PY, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=600
        )
        if done.returncode:
            raise RuntimeError(f"manage.py {args[0]} failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
        return done.stdout

    def start(self, timeout: float) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                ["scripts/run.sh"], cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
            )
        deadline = time.monotonic() + timeout
        while "is running" not in self.log.read_text(errors="replace"):  # its banner: web and worker answer
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"make run's servers did not start:\n{self.log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.5)
        while not _ready(f"http://{HOST}:{self.port}{HEALTHZ}"):  # a busy machine may be slow to answer
            if time.monotonic() > deadline:
                raise RuntimeError("The web server does not answer /healthz.")
            time.sleep(0.5)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)  # run.sh stops its web server and worker itself
        try:
            self.process.wait(timeout=45)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description="List endpoints' throughput under a crowd, against /healthz.")
    parser.add_argument("--clients", type=int, default=int(os.environ.get("BENCH_LOAD_CLIENTS", "100")))
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("BENCH_LOAD_SECONDS", "20")))
    parser.add_argument("--checks", type=int, default=int(os.environ.get("BENCH_LOAD_CHECKS", "1000")))
    parser.add_argument("--results", type=int, default=int(os.environ.get("BENCH_LOAD_RESULTS", "10000")))
    parser.add_argument("--timeout", type=float, default=900, help="Give up after this many seconds in all")
    args = parser.parse_args(argv)
    if not 1 <= args.clients <= 500 or not 0 < args.seconds <= 120:
        parser.error("--clients from 1 to 500, --seconds up to 120.")
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("bench-load ran out of time")))
    signal.alarm(int(args.timeout))
    (ROOT / "var").mkdir(exist_ok=True)
    var = Path(tempfile.mkdtemp(prefix="bench-load-", dir=ROOT / "var"))
    platform = Platform(var, free_port())
    print(f"load average before: {load_average()} (uptime; {os.cpu_count()} cores)", flush=True)
    print(f"platform on port {platform.port}, var dir {var}", flush=True)
    try:
        started = time.monotonic()
        platform.manage("migrate", "--noinput", "-v0")
        platform.manage("ensure_admin")  # the demo checks need their owner, as in make run
        platform.manage("load_demo")
        token, check_id = platform.manage(
            "shell", "-c", _SEED.format(checks=args.checks, results=args.results)
        ).split()[-2:]
        print(f"seeded {args.checks} checks, {args.results} results in {time.monotonic() - started:.1f} s", flush=True)
        platform.start(timeout=240)
        windows = asyncio.run(_measure(platform.port, token, int(check_id), args.clients, args.seconds))
    except Exception:
        print(f"--- the platform's log ---\n{platform.log.read_text(errors='replace')[-4000:]}", file=sys.stderr)
        raise
    finally:
        platform.stop()
        signal.alarm(0)
        shutil.rmtree(var, ignore_errors=True)
    return _report(windows, args.clients)


_SEED = "from bench.load_seed import seed, demo_check_id; print(seed({checks}, {results}), demo_check_id())"


async def _measure(port: int, token: str, check_id: int, clients: int, seconds: float) -> list[Window]:
    warm = Connection(port, token)
    for path in ENDPOINTS:  # each view's imports and first queries, outside the windows
        status, body = await warm.request("GET", path)
        if status >= 400:
            raise RuntimeError(f"GET {path} answered {status}: {body[:300]!r}")
    await warm.close()
    windows = []
    for path in ENDPOINTS:
        windows.append(await load(port, token, path, clients, seconds, None if path == HEALTHZ else check_id))
    return windows


def _report(windows: list[Window], clients: int) -> float:
    base = windows[0].rate or float("nan")
    print(f"{clients} clients; throughput as a share of {HEALTHZ}'s; POST /runs/ posted half-way through each window")
    print(f"{'endpoint':34} {'req/s':>8} {'p95 ms':>8} {'errors':>7} {'share':>6} {'POST /runs/ s':>14}")
    for w in windows:
        post = "" if w.post_run_s is None else f"{w.post_run_s:.2f}"
        print(f"{w.path:34} {w.rate:8.1f} {w.p95_ms:8.0f} {w.failed:7d} {w.rate / base:6.2f} {post:>14}")
    share_min = min(w.rate / base for w in windows[1:])
    post_max = max(w.post_run_s for w in windows[1:])
    print(f"load average after: {load_average()}")
    print(f"load_share_min={share_min:.2f} post_run_accept_s={post_max:.2f}", flush=True)
    return share_min


if __name__ == "__main__":
    main()
