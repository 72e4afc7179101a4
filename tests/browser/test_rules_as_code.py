"""Rules as code in the browser: select checks in the list and export them as one check.yaml, edit
the file (a threshold changed, a check added, one broken), import it with a dry run that shows
each check's outcome and the changed fields old → new and the broken one's line, fix it, apply,
and find the changed check's new version with the import's message. No worker: nothing runs."""

from __future__ import annotations

import re

import pytest
import yaml
from playwright.sync_api import expect

from rules.models import Check
from rules.yaml_io import import_checks

from .conftest import sign_in, unexpected
from .test_browser_app import form_item

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

WIDE, NARROW = {"width": 1440, "height": 900}, {"width": 1024, "height": 800}
VERDICT = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "fix_value",
    "comparison_value": 0,
}


def _check(name: str, column: str, **changes) -> dict:
    params = {"src_datasource": "files", "src_table": "orders", "src_field": column, **VERDICT, **changes}
    return {"name": name, "template": "null_check", "params": params}


@pytest.fixture
def checks(cast, make_datasource, parquet_dir):
    """The author's three checks on the Parquet `orders` table, each at version 1."""
    make_datasource(name="files", type="file", format="parquet", path=str(parquet_dir))
    document = {
        "version": 1,
        "checks": [_check("amount nulls", "amount"), _check("status nulls", "status"), _check("id nulls", "order_id")],
    }
    import_checks(yaml.safe_dump(document), cast.author)
    return {c.name: c for c in Check.objects.all()}


def _rows(page):
    return page.get_by_test_id("checks-table").locator(".el-table__body .el-table__row")


def _line_of(text: str, needle: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_user_exports_a_selection_edits_it_and_imports_it_after_reviewing_the_dry_run(
    live_server, page, shots, console_errors, cast, checks, built_app
):
    page.set_viewport_size(WIDE)
    sign_in(page, live_server.url, "author", "author-pass-123", path="/checks")
    expect(_rows(page)).to_have_count(3)

    # Export two of the three.
    for name in ("status nulls", "amount nulls"):
        _rows(page).filter(has_text=name).locator(".el-checkbox").first.click()
    expect(page.get_by_test_id("export-selected")).to_have_text(re.compile(r"Export \(2\)"))
    page.set_viewport_size(NARROW)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the checks list with its export and import buttons is {overflow}px too wide at 1024 px"
    shots("selection-1024")
    page.set_viewport_size(WIDE)
    with page.expect_download() as download:
        page.get_by_test_id("export-selected").click()
    exported = open(download.value.path(), encoding="utf-8").read()
    document = yaml.safe_load(exported)
    assert [c["name"] for c in document["checks"]] == ["amount nulls", "status nulls"]
    assert document["checks"][1]["params"]["threshold"] == 0

    # Edit it as a user would: a threshold, a new check, and a column that does not exist.
    lines = exported.splitlines()
    start = lines.index("- name: status nulls")
    at = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("threshold:"))
    assert lines[at].strip() == "threshold: 0"
    lines[at] = lines[at].replace("threshold: 0", "threshold: 5")
    edited = "\n".join(lines) + "\n"
    edited += yaml.safe_dump([_check("void orders", "status", threshold=1)], sort_keys=False)
    broken = yaml.safe_dump([_check("typo", "stauts")], sort_keys=False)
    text = edited + broken
    typo_line = _line_of(text, "src_field: stauts")

    page.get_by_test_id("import-checks").click()
    dialog = page.locator(".el-dialog").filter(has_text="Import check.yaml")
    expect(dialog).to_be_visible()
    dialog.locator("textarea").fill(text)
    page.get_by_test_id("import-message").fill("Tolerate five nulls in status")
    page.get_by_test_id("import-dry-run").click()

    plan = page.get_by_test_id("import-plan")
    expect(page.get_by_test_id("import-count-added")).to_have_text("1 added")
    expect(page.get_by_test_id("import-count-changed")).to_have_text("1 changed")
    expect(page.get_by_test_id("import-count-unchanged")).to_have_text("1 unchanged")
    expect(page.get_by_test_id("import-count-refused")).to_have_text("1 refused")
    expect(page.get_by_test_id("outcome-status nulls")).to_have_text("Changed")
    expect(page.get_by_test_id("outcome-amount nulls")).to_have_text("Unchanged")
    expect(page.get_by_test_id("outcome-void orders")).to_have_text("Added")
    expect(page.get_by_test_id("outcome-typo")).to_have_text("Refused")
    expect(page.get_by_test_id("changes-status nulls")).to_have_text(re.compile(r"threshold\s*0\s*→\s*5"))
    expect(page.get_by_test_id("errors-typo")).to_contain_text(f"line {typo_line} · params.src_field")
    expect(page.get_by_test_id("errors-typo")).to_contain_text("stauts")
    expect(page.get_by_test_id("import-apply")).to_be_disabled()
    # The dry run wrote nothing.
    assert Check.objects.get(name="status nulls").current_version == 1
    assert not Check.objects.filter(name__in=["void orders", "typo"]).exists()
    shots("dry-run-1440", readme="import-dry-run")
    page.set_viewport_size(NARROW)
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the import dialog is {overflow}px too wide at 1024 px"
    shots("dry-run-1024", readme="import-dry-run-1024")
    page.set_viewport_size(WIDE)

    # Fix the column; the shown plan is stale until the dry run runs again.
    dialog.locator("textarea").fill(text.replace("src_field: stauts", "src_field: status"))
    expect(page.get_by_test_id("import-stale")).to_be_visible()
    expect(page.get_by_test_id("import-apply")).to_be_disabled()
    page.get_by_test_id("import-dry-run").click()
    expect(page.get_by_test_id("import-count-added")).to_have_text("2 added")
    expect(page.get_by_test_id("import-count-refused")).to_have_text("0 refused")
    expect(plan).not_to_contain_text("stauts")
    expect(page.get_by_test_id("import-apply")).to_have_text(re.compile(r"Apply \(3\)"))
    shots("dry-run-fixed", readme="import-ready")
    page.get_by_test_id("import-apply").click()
    expect(dialog).to_be_hidden()
    expect(page.locator(".el-message--success")).to_contain_text("Imported: 2 added, 1 changed.")
    expect(_rows(page)).to_have_count(5)

    status = Check.objects.get(name="status nulls")
    assert (status.current_version, status.params["threshold"]) == (2, 5)
    assert Check.objects.get(name="amount nulls").current_version == 1
    assert Check.objects.get(name="typo").params["src_field"] == "status"

    # The changed check shows its new version with the message.
    _rows(page).filter(has_text="status nulls").get_by_role("link", name="status nulls").click()
    page.get_by_role("tab", name=re.compile("Versions")).click()
    expect(page.get_by_test_id("version-message-2")).to_have_text("Tolerate five nulls in status")
    expect(page.get_by_test_id("version-diff")).to_contain_text("Threshold")
    shots("version-message", readme="import-version-message")

    # A save in the form says what changed too.
    page.get_by_role("tab", name="Settings").click()
    form_item(page, "Threshold").locator("input").fill("7")
    page.get_by_test_id("version-message").fill("Seven after the backfill")
    page.get_by_test_id("save-check").click()
    expect(page.get_by_test_id("current-version")).to_have_text("3")
    page.get_by_role("tab", name=re.compile("Versions")).click()
    expect(page.get_by_test_id("version-message-3")).to_have_text("Seven after the backfill")
    expect(page.get_by_test_id("version-message-2")).to_have_text("Tolerate five nulls in status")
    assert list(status.versions.values_list("number", "message")) == [
        (1, ""),
        (2, "Tolerate five nulls in status"),
        (3, "Seven after the backfill"),
    ]
    assert not unexpected(console_errors), console_errors
