"""The screens say what is true: the check form shows why a datasource's table list is empty (a
wrong password) where the list is; the datasource form shows every error of a save at once; a run
whose only result could not decide reads Unknown, and its provenance names the engine that read
each batch and why the one chosen first did not. Screenshots: docs/screenshots/truth-*.png."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import PG_PROBE_DATASOURCE
from executions.models import Run
from executions.recording import record_results

from .conftest import sign_in, unexpected
from .test_browser_app import form_item, pick
from .test_lists_and_datasources import assert_fits

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

WIDE, NARROW = {"width": 1440, "height": 900}, {"width": 1024, "height": 800}
# test-artifacts/browser/ on every run; the README's docs/screenshots/ only with DQ_README_SCREENSHOTS=1.
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WRONG_PASSWORD = "not-the-Pa55word"


def _shoot(page, name: str) -> None:
    """The page at 1440 and at 1024 px wide (viewport only), neither scrolling sideways."""
    for size, suffix in ((WIDE, "1440"), (NARROW, "1024")):
        page.set_viewport_size(size)
        page.wait_for_timeout(400)
        assert_fits(page, name)
        folder = SHOTS if os.environ.get("DQ_README_SCREENSHOTS") == "1" else ARTIFACTS
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"truth-{name}-{suffix}.png"))
    page.set_viewport_size(WIDE)


def test_the_check_form_says_why_the_table_list_is_empty_under_the_table_select(
    live_server, page, console_errors, cast, pg_server, make_datasource, built_app
):
    make_datasource(name="warehouse-wrong-password", **{**PG_PROBE_DATASOURCE, "password": WRONG_PASSWORD})
    page.set_viewport_size(WIDE)
    sign_in(page, live_server.url, "author", "author-pass-123", path="/checks/new?template=null_check")

    pick(page, "Source datasource", "warehouse-wrong-password (PostgreSQL)")

    error = form_item(page, "Source table").locator(".el-form-item__error")
    expect(error).to_contain_text("The tables could not be listed: Cannot connect to PostgreSQL", timeout=20_000)
    expect(error).to_contain_text("password authentication failed")
    expect(error).not_to_contain_text(WRONG_PASSWORD)
    _shoot(page, "check-form-table-list-error")
    # The 502 the form just explained is the one console line expected.
    assert [e for e in unexpected(console_errors) if "502" not in e and "fail to" not in e] == []


def test_the_datasource_form_shows_every_error_of_a_save_at_once(
    live_server, page, console_errors, cast, make_datasource, built_app
):
    make_datasource(name="warehouse", type="postgresql", host="db", port=5432, database="d", username="u")
    page.set_viewport_size(WIDE)
    sign_in(page, live_server.url, "admin", "admin-pass-123", path="/datasources")
    page.get_by_test_id("new-datasource").click()
    dialog = page.get_by_test_id("datasource-dialog")

    # A taken name, no host, a port out of range, no database: one save, four messages.
    dialog.get_by_test_id("ds-name").fill("warehouse")
    dialog.get_by_test_id("ds-port").locator("input").fill("70000")
    dialog.get_by_test_id("ds-username").fill("reader")
    dialog.get_by_test_id("ds-save").click()

    expect(form_item(page, "Name").locator(".el-form-item__error")).to_contain_text("already exists")
    expect(form_item(page, "Host").locator(".el-form-item__error")).to_contain_text("A host name or IP address")
    expect(form_item(page, "Port").locator(".el-form-item__error")).to_contain_text("between 1 and 65535")
    expect(form_item(page, "Database").locator(".el-form-item__error")).to_contain_text("database to read")
    _shoot(page, "datasource-form-all-errors")
    assert unexpected(console_errors) == []


def test_a_run_that_could_not_decide_reads_unknown_and_names_the_engine_that_ran(
    live_server, page, console_errors, cast, api_as, pg_datasource, built_app
):
    api = api_as(cast.author)
    params = {
        "src_datasource_id": pg_datasource.pk,
        "src_table": "dq_test.orders",
        "src_field": "customer_email",
        "comparison_type": "last_7_runs_3_sigma",
    }
    created = api.post("/api/v1/checks/", {"name": "emails", "template": "null_check", "params": params}, format="json")
    assert created.status_code == 201, created.json()
    run_id = api.post("/api/v1/runs/", {"checks": [created.json()["id"]]}, format="json").json()["id"]
    Run.claim(run_id, 1)
    run = Run.objects.get(pk=run_id)
    assert run.batches["definitions"]["b1"]["engine"] == "pushdown"
    refusal = "auto: spark, since pushdown cannot run a check of it (a case-insensitive collation)"
    record_results(
        run,
        {
            "spark_application_id": "local-1764900000000",
            "batches": {"b1": {"rows": 3, "error": None, "engine": "spark", "engine_reason": refusal}},
            "checks": {str(run.check_versions.get().pk): {"status": "ok", "statistic": 1.0}},
            "plan": {"batches": {}},
        },
    )
    page.set_viewport_size(WIDE)
    sign_in(page, live_server.url, "author", "author-pass-123", path=f"/runs/{run_id}")

    expect(page.get_by_test_id("run-status")).to_have_text("Unknown")
    engine = page.get_by_test_id("batch-engine")
    expect(engine).to_contain_text("spark")
    expect(engine.get_by_test_id("batch-engine-chosen")).to_have_text("instead of pushdown:")
    expect(engine).to_contain_text("a case-insensitive collation")
    expect(page.get_by_test_id("run-results")).to_contain_text("no earlier results over the last 7 runs")
    expect(page.get_by_test_id("run-results")).not_to_contain_text("from —")
    page.get_by_text("Provenance").scroll_into_view_if_needed()
    _shoot(page, "run-unknown-provenance")
    assert unexpected(console_errors) == []
