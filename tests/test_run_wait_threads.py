"""Requests that wait for runs (POST /runs/?wait=S) do not starve the web server: served as in
production (gunicorn's gthread worker, conf/gunicorn.conf.py: one process, 4 threads here), two
requests waiting on runs leave its other threads answering at once, and a third waiting request
is refused at once (429, nothing started) instead of taking a thread too. The broker is Celery's
in-memory one, so the runs never end and the waits last their whole time."""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

from tests.support.processes import Server, free_port, run_checked, wait_for_http
from tests.test_api_fuzz import _environment

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
WAIT = 8


def test_two_waiting_requests_leave_the_web_process_serving_and_a_third_is_refused_at_once(tmp_path):
    env = {**_environment(tmp_path / "var"), "DQ_RUN_WAIT_MAX": "60", "DQ_RUN_WAIT_SLOTS": "2"}
    run_checked([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], env, ROOT)
    token = run_checked([sys.executable, "-m", "tests.support.fuzz_world", str(tmp_path / "files")], env, ROOT)
    headers = {"Authorization": f"Token {token.split()[-1]}"}
    port = free_port()
    server = Server(
        "gunicorn",
        [str(BIN / "gunicorn"), "-c", "conf/gunicorn.conf.py"],
        {**env, "DQ_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "1", "DQ_WEB_THREADS": "4",
         "DQ_ACCESS_LOG": str(tmp_path / "access.log")},
        ROOT,
        tmp_path,
    ).start()  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_http(f"{base}/healthz", server)
        check = requests.get(f"{base}/api/v1/checks/", headers=headers, timeout=30).json()["results"][0]["id"]

        def wait_on_a_run():
            started = time.monotonic()
            answer = requests.post(
                f"{base}/api/v1/runs/?wait={WAIT}", json={"checks": [check]}, headers=headers, timeout=WAIT + 30
            )
            return answer, time.monotonic() - started

        with ThreadPoolExecutor(2) as pool:
            waiting = [pool.submit(wait_on_a_run) for _ in range(2)]
            time.sleep(1.5)  # both are waiting now
            started = time.monotonic()
            third = requests.post(
                f"{base}/api/v1/runs/?wait={WAIT}", json={"checks": [check]}, headers=headers, timeout=WAIT + 30
            )
            refused_after = time.monotonic() - started
            latencies = []
            for _ in range(10):
                started = time.monotonic()
                listing = requests.get(f"{base}/api/v1/runs/", headers=headers, timeout=30)
                latencies.append(time.monotonic() - started)
                assert listing.status_code == 200
            answers = [w.result() for w in waiting]

        assert third.status_code == 429 and third.json()["marker"] == "DQ_VERDICT=BUSY", third.text
        assert refused_after < 2 and third.headers["Retry-After"].isdigit()
        # Every other request was answered while both waited (well within their wait), not after.
        assert max(latencies) < 2 and sum(latencies) < WAIT - 2, latencies
        for answer, took in answers:
            assert answer.status_code == 408 and answer.json()["marker"] == "DQ_VERDICT=TIMEOUT", answer.text
            assert WAIT <= took < WAIT + 5
        # Two runs were started and go on (queued: no worker here); the refused request started none.
        runs = requests.get(f"{base}/api/v1/runs/?status=queued", headers=headers, timeout=30).json()
        assert runs["count"] == 2
    finally:
        server.stop()
