"""bench/load.py, tiny: the platform starts as make run does, is loaded for a second per endpoint
by a few clients, prints each endpoint's share of /healthz's throughput and the POST /runs/ wait,
and stops by itself (no server left behind on its port)."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_load_benchmark_prints_each_endpoint_s_share_and_the_run_s_wait_then_stops():
    done = subprocess.run(
        [sys.executable, "-m", "bench.load", "--clients", "3", "--seconds", "1", "--checks", "30", "--results", "200"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )

    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    lines = done.stdout.strip().splitlines()
    last = re.fullmatch(r"load_share_min=(\d+\.\d\d) post_run_accept_s=(\d+\.\d\d)", lines[-1])
    assert last, lines[-1]
    rows = {line.split()[0]: line.split() for line in lines if line.startswith("/")}
    assert list(rows) == [
        "/healthz",
        "/api/v1/checks/",
        "/api/v1/results/?latest=true",
        "/api/v1/results/summary/",
        "/api/v1/runs/",
        "/api/v1/incidents/",
    ]
    assert all(float(row[1]) > 0 and row[3] == "0" for row in rows.values()), rows  # answers, no errors
    shares = [float(row[4]) for path, row in rows.items() if path != "/healthz"]
    assert float(last[1]) == min(shares)
    posts = [float(row[5]) for path, row in rows.items() if path != "/healthz"]
    assert float(last[2]) == max(posts) and all(p > 0 for p in posts)
    port = int(re.search(r"on port (\d+)", done.stdout)[1])
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0, "the platform still listens after the benchmark"
