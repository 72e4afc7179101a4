"""A bounded property-based fuzz of the OpenAPI schema against a live server.

Schemathesis generates requests for every operation of /api/schema/ (its examples and fuzzing
phases, a fixed number of cases per operation, then the coverage phase's boundary values on every
POST and PATCH body; a fixed seed so a failure reproduces) and sends
them to the platform served as in production: gunicorn, DEBUG off, its own SQLite database with a
small world (tests/support/fuzz_world.py). Any 5xx, any status the schema does not document, and
any answer that does not match its documented schema or content type fails the test.

The fuzzing user is a group member, not an admin: an admin may create datasources and alert
channels pointing anywhere, and a fuzzed host or URL must never be connected to. The broker is
Celery's in-memory one, so a fuzzed run is accepted and never executed. Token revocation is left
out (it would sign the fuzzer out; accounts/tests/test_tokens.py covers it).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.processes import Server, free_port, run_checked, wait_for_http

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
EXAMPLES_PER_OPERATION = 8
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"


def _environment(var: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DQ_", "DATABASE_URL", "CELERY_", "SECRET_KEY"))}
    env.update(
        DJANGO_SETTINGS_MODULE="dq_platform.settings",
        DQ_VAR_DIR=str(var),
        DQ_FILE_ROOTS=str(var / "files"),
        CELERY_BROKER_URL="memory://",
        CELERY_RESULT_BACKEND="cache+memory://",
        DQ_PREVIEW_TIMEOUT="1",  # a preview that got through waits for no worker for long
        DQ_RUN_WAIT_MAX="2",  # a fuzzed ?wait= waits for no worker for long (runs never execute here)
        PYTHONPATH=str(ROOT),
    )
    return env


def _failures(report: str, limit: int = 12000) -> str:
    """The report's FAILURES section (each failing case with its curl) and its summary, cut to a
    readable length; the end of the report when it has no such section."""
    start = report.find("FAILURES")
    return (report[start : start + limit] + "\n…\n" + report[-2000:]) if start >= 0 else report[-6000:]


# Two passes over one server: every operation with its examples and random cases; then the
# coverage phase (boundary values: huge numbers, empty and odd strings, nulls, wrong types, missing
# fields) on the bodies of every POST and PATCH, where most of the hand fuzz's 500s were.
PASSES = {
    "all operations": (["--phases", "examples,fuzzing", "--max-examples", str(EXAMPLES_PER_OPERATION)], 300),
    "request bodies at their boundaries": (
        # Less the administrators' writes, which answer this member 403 whatever the body.
        [
            "--phases",
            "coverage",
            "--include-method",
            "POST",
            "--include-method",
            "PATCH",
            "--exclude-path-regex",
            "^/api/v1/(datasources|alert-channels|integrations|comparison-types)/",
        ],
        300,
    ),
}


def test_a_bounded_fuzz_of_the_schema_finds_no_server_error_and_no_contract_violation(tmp_path):
    var = tmp_path / "var"
    env = _environment(var)
    run_checked([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], env, ROOT)
    token = run_checked([sys.executable, "-m", "tests.support.fuzz_world", str(var / "files")], env, ROOT).split()[-1]
    port = free_port()
    server = Server(
        "gunicorn",
        [str(BIN / "gunicorn"), "-c", "conf/gunicorn.conf.py"],
        {**env, "DQ_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "1", "DQ_ACCESS_LOG": str(tmp_path / "access.log")},
        ROOT,
        tmp_path,
    ).start()
    try:
        wait_for_http(f"http://127.0.0.1:{port}/healthz", server)
        for name, (options, at_least) in PASSES.items():
            command = [
                str(BIN / "schemathesis"),
                "run",
                f"http://127.0.0.1:{port}/api/schema/",
                "--header",
                f"Authorization: Token {token}",
                "--checks",
                CHECKS,
                *options,
                "--seed",
                "20261201",
                "--workers",
                "1",
                "--request-timeout",
                "60",
                "--no-shrink",
                "--exclude-path",
                "/api/v1/auth/token/revoke/",
            ]
            result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
            report = tmp_path / f"schemathesis-{name.replace(' ', '-')}.txt"
            report.write_text(result.stdout)  # the whole report, kept with the test's files
            summary = _failures(result.stdout)
            assert result.returncode == 0, f"{name}:\n{summary}\n--- server log ---\n{server.log_tail(60)}"
            counts = re.search(r"(\d+) generated, (\d+) passed", summary)
            assert counts, summary
            generated, passed = (int(n) for n in counts.groups())
            assert passed == generated >= at_least, summary  # every operation got its cases, and all held
    finally:
        server.stop()
