#!/usr/bin/env python3
"""The data quality platform's verdict for a workflow's Shell task, over its HTTP API.

One file, Python 3.9+ standard library only: copy it to a DolphinScheduler or Airflow worker,
which has no access to the platform's database.

    export DQ_URL=https://dq.example.com      # or --url
    export DQ_TOKEN=…                         # POST /api/v1/auth/token/; never on the command line
    python3 dq_client.py run --check 3 --check 4 --wait [--timeout 3600] [--biz-date 2026-11-29]
    python3 dq_client.py gate --datasource warehouse --table sales.orders --partition dt=2026-11-29 [--wait]

Exit codes, the same as `manage.py dq_run --wait` and `manage.py dq_gate`:
    0  run: nothing blocks (alert-only failures included) · gate: the batch may be consumed
    1  run: a `block` check failed                        · gate: quarantined or awaiting approval
    2  anything else: the run errored or was cancelled, the wait timed out, the batch is still
       validating or not registered, bad input, no token, the platform unreachable
The run's verdict is the platform's (GET /api/v1/runs/{id}/verdict/), not worked out here.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any

EXIT_OK, EXIT_BLOCKING, EXIT_ERROR = 0, 1, 2
# What each of the platform's verdicts means for a Shell task (README "Workflows: run and wait").
RUN_EXIT = {"passed": EXIT_OK, "blocked": EXIT_BLOCKING, "error": EXIT_ERROR, "timeout": EXIT_ERROR}
GATE_HELD = ("quarantined", "awaiting_approval")
GATE_WAITING = ("pending_validation", "validating", "passed", "failed", "unknown")
# Seconds one request waits on the server: short enough for any proxy in between, and the server
# caps it (DQ_RUN_WAIT_MAX); the client asks again until its own --timeout.
WAIT_PER_REQUEST = 30


class ClientError(Exception):
    """Anything that ends the task with exit code 2, in words for its log."""


@dataclass
class Outcome:
    """What a task does next: `code` (0, 1, 2), a line for its log, the platform's answer."""

    code: int
    message: str
    body: dict[str, Any] = field(default_factory=dict)


class Platform:
    """The platform's API with a token: JSON in, (status, JSON) out."""

    def __init__(self, url: str | None = None, token: str | None = None):
        self.url = (url or os.environ.get("DQ_URL") or "").rstrip("/")
        self.token = token or os.environ.get("DQ_TOKEN") or ""
        if not self.url:
            raise ClientError("No platform address: set DQ_URL (e.g. http://127.0.0.1:8000) or pass --url.")
        if not self.token:
            raise ClientError("No token: set DQ_TOKEN (POST /api/v1/auth/token/ gives one).")

    def call(self, method: str, path: str, body: dict | None = None, timeout: float = 60) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", f"Token {self.token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, _json(response.read())
        except urllib.error.HTTPError as answer:
            return answer.code, {**_json(answer.read()), "_retry_after": answer.headers.get("Retry-After")}
        except (urllib.error.URLError, OSError) as exc:
            raise ClientError(f"The platform at {self.url} did not answer: {getattr(exc, 'reason', exc)}.") from None


def _json(raw: bytes) -> dict:
    try:
        value = json.loads(raw or b"{}")
    except ValueError:
        return {"message": raw[:200].decode(errors="replace")}
    return value if isinstance(value, dict) else {"message": str(value)}


def _refused(status: int, body: dict) -> ClientError:
    fields = body.get("fields") or {}
    details = " ".join(f"{name}: {' '.join(map(str, msgs))}" for name, msgs in fields.items() if isinstance(msgs, list))
    return ClientError(f"The platform refused the request (HTTP {status}): {body.get('message', '')} {details}".strip())


def run_and_wait(
    platform: Platform,
    checks: list[int],
    *,
    timeout: float = 3600,
    biz_date: str | None = None,
    backfill: bool = False,
    engine: str | None = None,
    idempotency_key: str | None = None,
    sleep=time.sleep,
) -> Outcome:
    """Start a run of `checks` and wait for its verdict, up to `timeout` seconds, in requests of
    at most WAIT_PER_REQUEST seconds. The idempotency key makes a repeated start (after a lost
    connection or a busy answer) return the same run instead of a second one."""
    body: dict[str, Any] = {"checks": checks, "idempotency_key": idempotency_key or f"dq-client-{uuid.uuid4()}"}
    if biz_date:
        body["biz_date"] = biz_date
    if backfill:
        body["trigger"] = "backfill"
    if engine:
        body["engine"] = engine
    deadline = time.monotonic() + timeout
    path = "/api/v1/runs/"
    method: str = "POST"
    while True:
        wait = int(max(0, min(WAIT_PER_REQUEST, deadline - time.monotonic())))
        status, answer = platform.call(
            method, f"{path}?wait={wait}", body if method == "POST" else None, timeout=wait + 60
        )
        if status == 429:  # every waiting slot of that web process is taken: ask again shortly
            if time.monotonic() >= deadline:
                return Outcome(EXIT_ERROR, answer.get("message", "The platform is busy."), answer)
            sleep(min(float(answer.get("_retry_after") or 5), max(0.0, deadline - time.monotonic())))
            continue
        if "verdict" not in answer:
            raise _refused(status, answer)
        if answer["verdict"] != "timeout" or time.monotonic() >= deadline:
            break
        # The run goes on: wait on it, not on a new one.
        path, method = f"/api/v1/runs/{answer['run']}/verdict/", "GET"
    if answer["verdict"] == "timeout":
        message = f"Run {answer['run']} did not finish within {timeout:g} s (status {answer['status']})."
        return Outcome(EXIT_ERROR, message, answer)
    return Outcome(RUN_EXIT[answer["verdict"]], answer.get("message", ""), answer)


def start_only(platform: Platform, checks: list[int], **fields: Any) -> Outcome:
    body = {"checks": checks, **{k: v for k, v in fields.items() if v}}
    status, answer = platform.call("POST", "/api/v1/runs/", body)
    if status not in (200, 202):
        raise _refused(status, answer)
    return Outcome(EXIT_OK, f"Run {answer['id']} {answer['status']}.", answer)


def ask_gate(platform: Platform, datasource: str, table: str, partition: dict[str, Any]) -> Outcome:
    """The gate's answer once: 0 may consume, 1 held, 2 anything else (still validating, no batch)."""
    query = [("datasource", datasource), ("table", table)]
    if partition:  # one JSON object: a value may hold commas or colons
        query.append(("partition", json.dumps(partition)))
    status, answer = platform.call("GET", "/api/v1/gate/?" + urllib.parse.urlencode(query))
    if status != 200:
        raise _refused(status, answer)
    state = answer.get("state")
    line = f"{state or 'no batch'}: {answer.get('reason', '')}" + (
        f" (batch {answer['batch']})" if answer.get("batch") else ""
    )
    if answer.get("may_consume"):
        return Outcome(EXIT_OK, f"may consume — {line}", answer)
    if state in GATE_HELD:
        return Outcome(EXIT_BLOCKING, f"held — {line}", answer)
    return Outcome(EXIT_ERROR, f"not consumable — {line}", answer)


def wait_for_gate(
    platform: Platform,
    datasource: str,
    table: str,
    partition: dict[str, Any],
    *,
    timeout: float = 3600,
    interval: float = 5,
    sleep=time.sleep,
) -> Outcome:
    """Ask the gate until the batch's validation has an outcome or `timeout` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        outcome = ask_gate(platform, datasource, table, partition)
        if outcome.body.get("state") not in GATE_WAITING:
            return outcome
        if time.monotonic() >= deadline:
            state, batch = outcome.body.get("state"), outcome.body.get("batch")
            return Outcome(
                EXIT_ERROR, f"not consumable — still {state} after {timeout:g} s (batch {batch})", outcome.body
            )
        sleep(min(interval, max(0.0, deadline - time.monotonic())))


def parse_partition(pairs: list[str]) -> dict[str, Any]:
    """`dt=2026-11-29` (repeatable, or comma-separated), or one JSON object, as `dq_gate` reads it."""
    if len(pairs) == 1 and pairs[0].lstrip().startswith("{"):
        try:
            value = json.loads(pairs[0])
        except ValueError:
            raise ClientError(f"--partition {pairs[0]!r} is not a JSON object.") from None
        if not isinstance(value, dict):
            raise ClientError(f"--partition {pairs[0]!r} is not a JSON object.")
        return value
    partition: dict[str, Any] = {}
    for item in (part.strip() for pair in pairs for part in pair.split(",")):
        if not item:
            continue
        name, found, value = item.partition("=")
        if not found or not name.strip():
            raise ClientError(f"--partition {item!r} is not column=value.")
        if name.strip() in partition:
            raise ClientError(f"--partition: column {name.strip()!r} is given twice.")
        partition[name.strip()] = value.strip()
    return partition


def summary(body: dict) -> list[str]:
    """The run's checks, one line each, as `dq_run` prints them."""
    lines = []
    for result in body.get("results") or []:
        cells = [
            str(result.get("name", "")),
            str(result.get("status", "")).upper(),
            _number(result.get("statistic")),
            _number(result.get("expected")),
            str(result.get("failure_strategy", "")),
            str(result.get("message") or ""),
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def _number(value: Any) -> str:
    if value is None:
        return "—"
    return str(int(value)) if float(value).is_integer() else f"{value:.4g}"


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="dq_client.py",
        description="The data quality platform's verdict for a Shell task. Token from DQ_TOKEN; exit 0 ok, "
        "1 blocking or held, 2 error, timeout or anything else.",
    )
    parser.add_argument("--url", help="The platform's address (default: DQ_URL).")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="Start a run of checks; with --wait, exit with its verdict.")
    run.add_argument("--check", type=int, action="append", required=True, help="Check id (repeatable).")
    run.add_argument("--biz-date", help="Business date YYYY-MM-DD (default: today on the platform).")
    run.add_argument("--backfill", action="store_true", help="Mark as a backfill (kept out of history averages).")
    run.add_argument("--engine", help="auto (default), pushdown, duckdb or spark.")
    run.add_argument("--idempotency-key", help="The same key again answers the same run (e.g. the task instance).")
    run.add_argument("--wait", action="store_true", help="Wait for the run to end and exit with its verdict.")
    run.add_argument("--timeout", type=float, default=3600, help="Seconds to wait (default 3600).")
    gate = commands.add_parser("gate", help="May the newest batch of a table's partition be consumed?")
    gate.add_argument("--datasource", required=True, help="Datasource name (or id).")
    gate.add_argument("--table", required=True)
    gate.add_argument("--partition", action="append", default=[], help="column=value (repeatable), or one JSON object.")
    gate.add_argument("--wait", action="store_true", help="Wait while the batch is being validated.")
    gate.add_argument("--timeout", type=float, default=3600, help="Seconds to wait (default 3600).")
    gate.add_argument("--interval", type=float, default=5, help="Seconds between questions (default 5).")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    options = _arguments(argv)
    try:
        platform = Platform(options.url)
        if options.command == "gate":
            partition = parse_partition(options.partition)
            if options.wait:
                outcome = wait_for_gate(
                    platform,
                    options.datasource,
                    options.table,
                    partition,
                    timeout=options.timeout,
                    interval=options.interval,
                )
            else:
                outcome = ask_gate(platform, options.datasource, options.table, partition)
        elif options.wait:
            outcome = run_and_wait(
                platform,
                options.check,
                timeout=options.timeout,
                biz_date=options.biz_date,
                backfill=options.backfill,
                engine=options.engine,
                idempotency_key=options.idempotency_key,
            )
            for line in summary(outcome.body):
                sys.stdout.write(line + "\n")
        else:
            outcome = start_only(
                platform,
                options.check,
                biz_date=options.biz_date,
                trigger="backfill" if options.backfill else None,
                engine=options.engine,
                idempotency_key=options.idempotency_key,
            )
    except ClientError as exc:
        sys.stderr.write(f"{exc}\n")
        return EXIT_ERROR
    (sys.stdout if outcome.code == EXIT_OK else sys.stderr).write(outcome.message + "\n")
    return outcome.code


if __name__ == "__main__":
    sys.exit(main())
