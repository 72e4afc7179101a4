"""The browser app pages and filters through the server, its dashboard counts link to the lists
they count, admins set up datasources in it (tested before they are saved), accuracy's matching
columns are picked from each table's columns, and an unknown address gets the app's own
not-found page. No worker here: results are recorded straight into the database."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from conftest import PG, PROBE_PASSWORD, PROBE_USER
from datasources.models import Datasource
from executions.tests.test_dashboard import _check, _result

from .conftest import assert_top_bar_fits, sign_in, unexpected
from .test_browser_app import form_item, pick

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

WIDE, NARROW = {"width": 1440, "height": 900}, {"width": 1024, "height": 800}


@pytest.fixture
def shop(make_datasource):
    """A datasource the results say they read (nothing connects to it here)."""
    return make_datasource(name="shop", type="postgresql", host="127.0.0.1", port=5432, database="x", username="u")


def rows(page, testid: str):
    return page.get_by_test_id(testid).locator(".el-table__body .el-table__row")


def assert_fits(page, what: str) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{what} is {overflow}px too wide at {page.viewport_size['width']} px"
    assert_top_bar_fits(page)


def test_a_list_longer_than_a_page_fetches_its_next_page_from_the_server(
    live_server, page, shots, console_errors, cast, shop, built_app
):
    checks = [_check(f"check {n:02d}", shop) for n in range(23)]
    for hours, check in enumerate(checks * 3):  # 69 results, the newest for "check 00"
        failed = hours % 4 == 0
        _result(check, "fail" if failed else "pass", hours_ago=hours + 1, statistic=2 if failed else 0)
    page.set_viewport_size(WIDE)
    sign_in(page, live_server.url, "author", "author-pass-123", path="/results")

    expect(page.get_by_test_id("results-count")).to_have_text("69 results")
    expect(rows(page, "results-table")).to_have_count(25)
    first_page = rows(page, "results-table").first.get_by_role("link", name=re.compile(r"^Run #")).inner_text()
    with page.expect_request(re.compile(r"/api/v1/results/\?.*page=2&page_size=25")) as asked:
        page.locator(".el-pagination .el-pager li", has_text=re.compile(r"^2$")).click()
    assert asked.value.response().json()["previous"] is not None
    expect(rows(page, "results-table")).to_have_count(25)
    expect(rows(page, "results-table").first).not_to_contain_text(first_page + " ")
    shots("results-page-2-1440")
    # A bigger page is another request, not a slice of a list already held.
    page.locator(".el-pagination .btn-prev").click()
    expect(rows(page, "results-table").first).to_contain_text(first_page + " ")
    with page.expect_request(re.compile(r"/api/v1/results/\?.*page=1&page_size=50")):
        page.locator(".el-pagination .el-select").click()
        page.locator(".el-select-dropdown:visible .el-select-dropdown__item", has_text="50/page").click()
    expect(rows(page, "results-table")).to_have_count(50)

    # Filters go to the server too, and start again from the first page.
    page.goto(live_server.url + "/checks")
    expect(rows(page, "checks-table")).to_have_count(20)
    with page.expect_request(re.compile(r"/api/v1/checks/\?.*page=2&page_size=20")):
        page.locator(".el-pagination .el-pager li", has_text=re.compile(r"^2$")).click()
    expect(rows(page, "checks-table")).to_have_count(3)
    expect(rows(page, "checks-table").first).to_contain_text("check 20")
    with page.expect_request(re.compile(r"/api/v1/checks/\?search=check\+1.*page=1&page_size=20")):
        page.get_by_test_id("check-search").fill("check 1")
    expect(rows(page, "checks-table")).to_have_count(10)
    page.set_viewport_size(NARROW)
    assert_fits(page, "/checks")
    shots("checks-search-1024")
    assert unexpected(console_errors) == []


def test_the_dashboard_counts_link_to_the_lists_they_count(
    live_server, page, shots, console_errors, cast, shop, built_app
):
    gate, keys, amounts, emails, fixed = (_check(n, shop) for n in ("gate", "keys", "amounts", "emails", "fixed"))
    _result(gate, "fail", hours_ago=3, strategy="block")
    keys_error = _result(keys, "error", hours_ago=2, strategy="block", statistic=None)
    keys_error.message = "Table shop.orders does not exist."
    keys_error.save()
    _result(amounts, "fail", hours_ago=2)
    _result(emails, "fail", hours_ago=1)
    _result(fixed, "fail", hours_ago=5, strategy="block")
    _result(fixed, "pass", hours_ago=1)
    page.set_viewport_size(WIDE)
    sign_in(page, live_server.url, "author", "author-pass-123", path="/results")

    expect(page.get_by_test_id("summary-open-failures")).to_have_text("4")
    blocking = page.get_by_test_id("summary-blocking")
    expect(blocking).to_contain_text("2 blocking: keys, gate")
    expect(page.get_by_test_id("summary-alerting")).to_contain_text("also emails, amounts")
    shots("dashboard-1440")
    page.set_viewport_size(NARROW)
    assert_fits(page, "/results")
    shots("dashboard-1024")
    page.set_viewport_size(WIDE)

    # The trend keeps the errored result, marked, beside the threshold band.
    rows(page, "results-table").filter(has_text="keys").get_by_test_id("open-trend").click()
    caption = page.locator(".el-drawer").get_by_test_id("trend-caption")
    expect(caption).to_contain_text("1 result over business time · 0 failed · 1 errored")
    shots("trend-with-error")
    page.keyboard.press("Escape")
    expect(page.locator(".el-drawer")).to_be_hidden()

    page.get_by_test_id("summary-blocking-count").click()
    expect(page).to_have_url(re.compile(r"/results\?.*blocks=true"))
    expect(page.get_by_test_id("filter-blocks")).to_be_visible()
    expect(page.get_by_test_id("filter-latest")).to_be_visible()
    expect(rows(page, "results-table")).to_have_count(2)
    expect(page.get_by_test_id("results-table")).to_contain_text("gate")
    expect(page.get_by_test_id("results-table")).not_to_contain_text("amounts")
    shots("blocking-list")

    page.get_by_test_id("summary-open-failures").click()
    expect(page.get_by_test_id("results-count")).to_have_text("4 results")
    expect(page.get_by_test_id("filter-blocks")).to_have_count(0)
    expect(page.get_by_test_id("results-table")).not_to_contain_text("fixed")  # its newest result passed

    page.get_by_test_id("summary-passed").click()
    expect(page.get_by_test_id("results-count")).to_have_text("1 result")
    page.get_by_test_id("summary-runs").click()
    expect(page).to_have_url(re.compile(r"/runs\?since="))
    expect(rows(page, "runs-table")).to_have_count(6)
    assert unexpected(console_errors) == []


def test_an_admin_creates_tests_and_edits_a_datasource_in_the_browser(
    live_server, page, shots, console_errors, cast, pg_server, closed_port, built_app
):
    page.set_viewport_size(WIDE)
    sign_in(page, live_server.url, "admin", "admin-pass-123", path="/datasources")
    page.get_by_test_id("new-datasource").click()
    dialog = page.get_by_test_id("datasource-dialog")
    expect(dialog).to_be_visible()

    # What the API refuses is said under the field it is about, before anything is saved.
    dialog.get_by_test_id("ds-name").fill("new warehouse")
    dialog.get_by_test_id("ds-port").locator("input").fill("70000")
    dialog.get_by_test_id("ds-test").click()
    expect(form_item(page, "Host").locator(".el-form-item__error")).to_contain_text("A host name or IP address")
    expect(form_item(page, "Database").locator(".el-form-item__error")).to_contain_text("database to read")
    expect(form_item(page, "Port").locator(".el-form-item__error")).to_contain_text("between 1 and 65535")
    shots("datasource-field-errors")

    # Test before save: a closed port, then the right one.
    dialog.get_by_test_id("ds-host").fill(PG["host"])
    dialog.get_by_test_id("ds-port").locator("input").fill(str(closed_port))
    dialog.get_by_test_id("ds-database").fill(PG["dbname"])
    dialog.get_by_test_id("ds-username").fill(PROBE_USER)
    dialog.get_by_test_id("ds-password").fill(PROBE_PASSWORD)
    dialog.get_by_test_id("ds-test").click()
    outcome = dialog.get_by_test_id("datasource-test-outcome")
    expect(outcome).to_contain_text("Could not connect")
    expect(outcome).to_contain_text(str(closed_port))
    dialog.get_by_test_id("ds-port").locator("input").fill(str(PG["port"]))
    dialog.get_by_test_id("ds-test").click()
    expect(outcome).to_contain_text("Connected")
    expect(outcome).to_contain_text("PostgreSQL")
    assert not Datasource.objects.exists()  # testing saved nothing
    shots("datasource-tested")
    dialog.get_by_test_id("ds-save").click()
    expect(dialog).to_be_hidden()
    row = rows(page, "datasources-table").filter(has_text="new warehouse")
    expect(row).to_contain_text(f"{PG['host']}:{PG['port']}")
    created = Datasource.objects.get(name="new warehouse")
    assert created.password == PROBE_PASSWORD

    # Editing: the test uses the stored password unless another is typed.
    row.get_by_test_id("edit-datasource").click()
    expect(dialog.get_by_test_id("ds-name")).to_have_value("new warehouse")
    expect(dialog.get_by_test_id("ds-password")).to_have_value("")
    dialog.get_by_test_id("ds-test").click()
    expect(outcome).to_contain_text("Connected")
    dialog.get_by_test_id("ds-password").fill("not-the-password")
    dialog.get_by_test_id("ds-test").click()
    expect(outcome).to_contain_text("password authentication failed")
    dialog.get_by_test_id("ds-password").fill("")
    dialog.locator("textarea").last.fill("The orders warehouse")
    dialog.get_by_test_id("ds-save").click()
    expect(dialog).to_be_hidden()
    expect(row).to_contain_text("The orders warehouse")
    created.refresh_from_db()
    assert created.password == PROBE_PASSWORD and created.description == "The orders warehouse"
    row.get_by_test_id("test-datasource").click()
    expect(row).to_contain_text("✓")
    page.set_viewport_size(NARROW)
    assert_fits(page, "/datasources")
    shots("datasources-1024")
    assert [e for e in unexpected(console_errors) if "status of 400" not in e] == []


def test_a_member_sees_datasources_read_only(live_server, page, shots, cast, shop, built_app):
    sign_in(page, live_server.url, "author", "author-pass-123", path="/datasources")
    expect(rows(page, "datasources-table")).to_have_count(1)
    expect(page.get_by_test_id("new-datasource")).to_have_count(0)
    expect(page.get_by_test_id("edit-datasource")).to_have_count(0)
    expect(page.get_by_test_id("test-datasource")).to_have_count(1)


def test_accuracy_matching_columns_are_picked_from_each_tables_columns(
    live_server, page, shots, console_errors, cast, make_datasource, parquet_dir, built_app
):
    make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    page.set_viewport_size(WIDE)
    sign_in(page, live_server.url, "author", "author-pass-123", path="/checks/new?template=multi_table_accuracy")
    pick(page, "Source datasource", "lake (Parquet files)")
    pick(page, "Source table", "orders")
    pick(page, "Target datasource", "lake (Parquet files)")
    pick(page, "Target table", "customers")
    mapping = form_item(page, "Matching columns")
    mapping.locator(".el-form-item").filter(has_text="Source column").locator(".el-select__wrapper").click()
    options = page.locator(".el-select-dropdown:visible .el-select-dropdown__item")
    expect(options).to_have_text(["order_id (int64)", "status (string)", "amount (double)"])
    options.first.click()
    mapping.locator(".el-form-item").filter(has_text="Target column").locator(".el-select__wrapper").click()
    expect(options).to_have_text(["customer_id (int64)", "email (string)"])
    options.first.click()
    expect(mapping).to_contain_text("order_id")
    expect(mapping).to_contain_text("customer_id")
    shots("accuracy-mapping")
    assert unexpected(console_errors) == []


def test_the_row_count_form_offers_no_comparison_with_its_own_row_count(
    live_server, page, shots, console_errors, cast, built_app
):
    sign_in(page, live_server.url, "author", "author-pass-123", path="/checks/new?template=table_count_check")
    form_item(page, "Expected value").locator(".el-select__wrapper").click()
    options = page.locator(".el-select-dropdown:visible .el-select-dropdown__item")
    expect(options.filter(has_text="Fixed value")).to_have_count(1)
    names = [text.strip() for text in options.all_inner_texts()]
    assert "Source table row count" not in names, names  # the statistic itself: always a pass
    shots("row-count-expected-values")
    assert unexpected(console_errors) == []


@pytest.mark.parametrize("path", ["/checks/not-a-check", "/runs/7/nothing-here"])
def test_an_unknown_address_gets_the_apps_not_found_page_with_a_way_home(
    live_server, page, shots, cast, path, built_app
):
    sign_in(page, live_server.url, "author", "author-pass-123", path=path)
    expect(page.get_by_test_id("not-found")).to_contain_text("Page not found")
    expect(page.get_by_test_id("not-found-path")).to_have_text(path)
    expect(page.get_by_test_id("topbar")).to_be_visible()  # inside the app, with its navigation
    shots("not-found")
    page.get_by_test_id("not-found-home").click()
    expect(page).to_have_url(live_server.url + "/results")
    expect(page.get_by_test_id("summary")).to_be_visible()
