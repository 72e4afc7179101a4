"""A member sees Edit only on the checks they may change (View, read-only, on a colleague's), and
acts on a selection of checks: disabling and tagging it changes their own checks and says, per
check, why a colleague's was left as it was."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from rules.models import Check, RuleTemplate

from .conftest import sign_in, unexpected
from .test_lists_and_datasources import assert_fits, rows

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

WIDE, NARROW = {"width": 1440, "height": 900}, {"width": 1024, "height": 800}
RULE = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "fix_value",
    "comparison_value": 0,
}


@pytest.fixture
def team_checks(cast, make_datasource, parquet_dir):
    """Two checks of the outsider (a member) and one of the author, on data both may read."""
    lake = make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    template = RuleTemplate.objects.get(key="null_check")
    made = {}
    for name, owner, column in (
        ("authors status check", cast.author, "status"),
        ("my amount check", cast.outsider, "amount"),
        ("my order check", cast.outsider, "order_id"),
    ):
        params = {"src_datasource_id": lake.pk, "src_table": "orders", "src_field": column, **RULE}
        check = Check.objects.create(name=name, template=template, params=params, owner=owner)
        check.record_version(owner)
        made[name] = check
    return made


def row_of(page, name: str):
    return rows(page, "checks-table").filter(has_text=name)


def test_a_member_sees_edit_only_on_their_own_checks_and_reads_a_colleagues_check(
    live_server, page, shots, console_errors, team_checks, built_app
):
    page.set_viewport_size(WIDE)
    sign_in(page, live_server.url, "outsider", "outsider-pass-123", path="/checks")

    expect(rows(page, "checks-table")).to_have_count(3)
    for mine in ("my amount check", "my order check"):
        expect(row_of(page, mine).get_by_test_id("edit-check")).to_be_visible()
        expect(row_of(page, mine).get_by_test_id("view-check")).to_have_count(0)
    colleagues = row_of(page, "authors status check")
    expect(colleagues.get_by_test_id("edit-check")).to_have_count(0)
    expect(colleagues.get_by_test_id("view-check")).to_be_visible()
    expect(colleagues.get_by_test_id("run-check")).to_be_visible()  # anyone who sees a check may run it

    colleagues.get_by_test_id("view-check").click()
    expect(page.get_by_test_id("read-only")).to_contain_text("only its owner (author)")
    expect(page.get_by_test_id("save-check")).to_have_count(0)
    expect(page.get_by_test_id("delete-check")).to_have_count(0)
    expect(page.get_by_test_id("clone-check")).to_be_visible()
    expect(page.get_by_test_id("check-name")).to_be_disabled()
    form = page.get_by_test_id("form-create")
    expect(form.locator("input, textarea").first).to_be_visible()
    expect(form.locator("input:not([disabled]), textarea:not([disabled])")).to_have_count(0)
    expect(page.get_by_test_id("team-enabled")).to_have_count(0)
    expect(page.get_by_test_id("team-owner")).to_have_text("author")
    shots("colleagues-check-read-only", readme="checks-team-readonly-1440")

    page.get_by_test_id("clone-check").click()
    expect(page.get_by_test_id("save-check")).to_be_visible()
    expect(form.locator("textarea")).to_be_enabled()  # the clone is the member's to change
    expect(page.get_by_test_id("check-name")).to_have_value("authors status check (copy)")
    expect(page.get_by_test_id("team-owner")).to_have_text("outsider")
    assert Check.objects.get(name="authors status check (copy)").owner.username == "outsider"
    assert unexpected(console_errors) == []


def test_a_bulk_disable_and_tag_changes_the_members_own_checks_and_names_the_refused_one(
    live_server, page, shots, console_errors, team_checks, built_app
):
    page.set_viewport_size(WIDE)
    sign_in(page, live_server.url, "outsider", "outsider-pass-123", path="/checks")
    expect(rows(page, "checks-table")).to_have_count(3)
    page.get_by_test_id("checks-table").locator(".el-table__header .el-checkbox").click()
    expect(page.get_by_test_id("bulk-actions")).to_contain_text("3 selected · you may change 2")

    page.get_by_test_id("bulk-disable").click()
    outcome = page.get_by_test_id("bulk-outcome")
    expect(outcome).to_contain_text("2 done, 1 refused")
    expect(outcome.get_by_test_id("bulk-refused")).to_have_text(
        "Only the check's owner or an administrator may change it."
    )
    expect(outcome.get_by_test_id("bulk-done")).to_have_count(2)
    outcome.get_by_role("button", name="Close", exact=True).click()
    expect(outcome).to_be_hidden()

    page.get_by_test_id("checks-table").locator(".el-table__header .el-checkbox").click()
    page.get_by_test_id("bulk-add-tag").click()
    page.locator(".bulk-prompt input").fill("finance")
    page.locator(".bulk-prompt").get_by_role("button", name="Apply").click()
    expect(outcome).to_contain_text("2 done, 1 refused")
    outcome.get_by_role("button", name="Close", exact=True).click()

    for mine in ("my amount check", "my order check"):
        expect(row_of(page, mine).get_by_test_id("check-disabled")).to_be_visible()
        expect(row_of(page, mine).get_by_test_id("check-tags")).to_have_text("finance")
    expect(row_of(page, "authors status check").get_by_test_id("check-disabled")).to_have_count(0)
    expect(row_of(page, "authors status check").get_by_test_id("check-tags")).to_have_count(0)
    state = {c.name: (c.enabled, [t.name for t in c.tags.all()]) for c in Check.objects.all()}
    assert state == {
        "authors status check": (True, []),
        "my amount check": (False, ["finance"]),
        "my order check": (False, ["finance"]),
    }

    # The whole list selected again: the colleague's check reads View, the member may change two.
    page.get_by_test_id("checks-table").locator(".el-table__header .el-checkbox").click()
    expect(page.get_by_test_id("bulk-actions")).to_contain_text("3 selected · you may change 2")
    shots("tagged-and-disabled-1440", readme="checks-team-1440")
    page.set_viewport_size(NARROW)
    assert_fits(page, "/checks with a selection")
    shots("tagged-and-disabled-1024", readme="checks-team-1024")

    # A tag is a link to its filter: the list holds the member's two tagged checks.
    page.set_viewport_size(WIDE)
    row_of(page, "my amount check").get_by_test_id("check-tags").get_by_text("finance").click()
    expect(rows(page, "checks-table")).to_have_count(2)
    expect(page).to_have_url(re.compile(r"/checks\?tag=finance$"))
    assert unexpected(console_errors) == []
