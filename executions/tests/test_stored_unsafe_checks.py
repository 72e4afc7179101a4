"""Checks saved before the SQL allow-list existed: the engine refuses them again before any query runs.

The checks are written straight into the database (no API, so no save-time validation), run in this
process on the real SparkSession against the real PostgreSQL test table, and must end `error` with
the reason, without the worker ever fetching the URL the SQL names.
"""

from __future__ import annotations

import http.server
import threading

import pytest

from executions.models import Result, Run
from executions.starting import start_run
from executions.tasks import execute_claimed_run
from rules.models import Check, RuleTemplate

# The run watcher reads the run's status on its own connection: the rows must be committed.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

VERDICT = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "fix_value",
    "comparison_value": 0,
}


@pytest.fixture
def probe_server():
    """An HTTP server on 127.0.0.1 that records every request it gets (the SSRF target)."""
    requests: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's naming
            requests.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"<xs:schema xmlns:xs='http://www.w3.org/2001/XMLSchema'/>")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", requests
    server.shutdown()


def _stored_check(user, name: str, template: str, params: dict) -> Check:
    """A check as an older release could have saved it: no validation of its params."""
    check = Check.objects.create(name=name, template=RuleTemplate.objects.get(key=template), params=params, owner=user)
    check.record_version(user)
    return check


def _run_in_this_process(checks, user, monkeypatch) -> Run:
    monkeypatch.setattr("executions.starting.enqueue", lambda run: None)  # this process runs it, no worker
    run, _ = start_run(checks, user)
    assert Run.claim(run.pk, run.attempt)
    run.refresh_from_db()
    execute_claimed_run(run)
    run.refresh_from_db()
    return run


def test_a_stored_custom_sql_check_calling_from_xml_ends_error_and_fetches_nothing(
    cast, pg_datasource, probe_server, settings, tmp_path, monkeypatch
):
    settings.DQ_ERROR_DATA_ROOT = str(tmp_path)
    url, requests = probe_server
    src = {"src_datasource_id": pg_datasource.pk, "src_table": "dq_test.orders"}
    ssrf = _stored_check(
        cast.author,
        "xsd from a url",
        "custom_sql",
        {
            **src,
            "statistics_name": "n",
            "statistics_execute_sql": "SELECT count(*) FROM ${src_table} WHERE from_xml(customer_email, "
            f"'a INT', map('rowValidationXSDPath', '{url}/probe.xsd')) IS NULL",
            **VERDICT,
        },
    )
    rows = _stored_check(
        cast.author,
        "rows from a generator",
        "table_count_check",
        {**src, "src_filter": "size(sequence(1, 100000000)) > 0", **VERDICT},
    )
    fine = _stored_check(
        cast.author,
        "emails present",
        "null_check",
        {**src, "src_field": "customer_email", **VERDICT},
    )

    run = _run_in_this_process([ssrf, rows, fine], cast.author, monkeypatch)

    results = {r.rule_check_id: r for r in Result.objects.filter(run=run)}
    assert results[ssrf.pk].status == Result.Status.ERROR
    assert "function `from_xml` is not allowed" in results[ssrf.pk].message
    assert results[rows.pk].status == Result.Status.ERROR
    assert "function `sequence` is not allowed" in results[rows.pk].message
    assert results[fine.pk].status == Result.Status.FAIL  # the other check of the run still ran
    assert requests == []  # the worker never fetched the URL
