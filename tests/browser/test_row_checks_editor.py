"""Authoring a row_level_check in the browser: the check.yaml editor (CodeMirror) inside the
generated form validates as you type, marks a problem at its line, shows the expanded full form,
tries the checks on a sample in the worker (a job the page polls), and the check saves."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from executions.tests.conftest import start_and_wait
from rules.models import Check

from .conftest import SCHEMA, sign_in, unexpected
from .test_browser_app import AUTHOR_PASSWORD, pick

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

BROKEN = "checks:\n  - amount >= 0\n  - customer_email =~ @\n"
FIXED = "checks:\n  - amount >= 0\n  - customer_email ~= @\n"


def _replace_text(page, text: str) -> None:
    editor = page.locator(".dq-yaml-editor .cm-content")
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(text)  # as pasted: no auto-indent between the lines


def test_an_author_writes_row_checks_sees_an_error_at_its_line_fixes_it_tries_it_and_saves(
    live_server, page, shots, console_errors, cast, api_as, warehouse, browser_worker, built_app, settings
):
    settings.DQ_PREVIEW_TIMEOUT = 170  # the worker's first preview may start its SparkSession
    sign_in(page, live_server.url, "author", AUTHOR_PASSWORD, path="/checks/new?template=row_level_check")
    page.get_by_test_id("check-name").fill("orders · row rules")
    pick(page, "Source datasource", "warehouse (PostgreSQL)")
    pick(page, "Source table", f"{SCHEMA}.orders", typing=SCHEMA)

    editor = page.locator(".dq-yaml-editor")  # inside the form item "Row checks (check.yaml)"
    _replace_text(page, BROKEN)
    problem = editor.get_by_test_id("yaml-problems").locator("li")
    expect(problem).to_have_text("line 3: checks[1]: unknown operator `=~`; did you mean `~=`?")
    expect(problem).to_have_attribute("data-line", "3")
    # The marker sits on line 3 of the editor: the marked range is that line's text.
    expect(editor.locator(".cm-lintRange-error")).to_have_text("  - customer_email =~ @")
    expect(editor.locator(".cm-line").nth(2)).to_have_text("  - customer_email =~ @")
    shots("row-checks-error", readme="row-checks-editor")

    _replace_text(page, FIXED)
    expect(editor.get_by_test_id("yaml-valid")).to_have_text("Valid: 2 checks")
    expect(editor.get_by_test_id("yaml-problems")).to_have_count(0)
    editor.get_by_test_id("yaml-full-form").locator("summary").click()
    expect(editor.get_by_test_id("yaml-full-form")).to_contain_text('"name": "check-customer_email-re"')

    editor.get_by_test_id("yaml-preview").click()
    result = editor.get_by_test_id("yaml-preview-result")
    # conftest.ROWS: emails '' and 'not-an-email' lack '@' (NULL passes); amount -5 is negative.
    # A database table: the preview draws its first rows on Spark (pushdown does not draw them).
    expect(result).to_contain_text("2 of the first 10 rows fail a check (read by Spark).", timeout=180_000)
    expect(result.locator("tbody tr")).to_have_text(["check-amount-ge1", "check-customer_email-re2"])
    shots("row-checks-preview")

    page.get_by_test_id("save-check").click()
    expect(page).not_to_have_url(live_server.url + "/checks/new?template=row_level_check")

    # Run it; the bad rows page lists each check's failed rows and filters the rows by check.
    check = Check.objects.get(name="orders · row rules")
    run = start_and_wait(api_as(cast.author), [check.pk])
    result = run["results"][0]
    page.goto(f"{live_server.url}/results/{result['id']}/error-rows")
    details = page.get_by_test_id("rule-checks")
    expect(details.locator("tbody tr")).to_have_text(["check-amount-ge1", "check-customer_email-re2"])
    expect(page.get_by_test_id("error-rows-table")).to_contain_text("_dq_failed_checks")
    page.get_by_test_id("check-name-filter").click()
    page.locator(".el-select-dropdown:visible .el-select-dropdown__item").filter(has_text="check-amount-ge").click()
    expect(page.get_by_test_id("error-rows-count")).to_contain_text("1 offending row")
    expect(page.get_by_test_id("error-rows-table").locator("tbody tr")).to_have_count(1)
    shots("row-checks-error-rows")
    assert unexpected(console_errors) == []
