"""The browser app as a new user meets it: sign in, author a null check on a real PostgreSQL table
through the form the server generates, run it, watch it finish, read the statistic and the verdict,
page through the planted bad rows, and see the trend after a second run."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from executions.models import Run
from executions.tests.conftest import create_check

from .conftest import SCHEMA, assert_top_bar_fits, sign_in, unexpected, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

AUTHOR_PASSWORD = "author-pass-123"
NULL_VERDICT = "Pass when actual − expected ≤ 0: 2 − 0 = 2 > 0 → fail"
FINISHED = ("passed", "failed", "error", "unknown", "cancelled")


def form_item(page, label: str):
    """The form field whose label reads exactly `label` (form-create renders Element Plus form items)."""
    return page.locator(".el-form-item").filter(
        has=page.locator(".el-form-item__label", has_text=re.compile(rf"^\s*{re.escape(label)}\s*$"))
    )


def pick(page, label: str, option: str, *, typing: str | None = None) -> None:
    """Open the select of a field and click an option; the options may still be loading from the API."""
    form_item(page, label).locator(".el-select__wrapper").click()
    if typing:
        page.keyboard.type(typing)
    page.locator(".el-select-dropdown:visible .el-select-dropdown__item").filter(
        has_text=re.compile(rf"^\s*{re.escape(option)}\s*$")
    ).first.click()


def selected(page, label: str):
    """The text a select shows: the chosen option, or its placeholder when empty."""
    return form_item(page, label).locator(".el-select__placeholder")


def run_status(page) -> str:
    return page.locator("[data-testid=run-status]").get_attribute("data-status") or ""


def watch_run(page) -> list[str]:
    """The statuses the run page shows, in order, until the run ends."""
    seen: list[str] = []

    def finished():
        status = run_status(page)
        if not seen or seen[-1] != status:
            seen.append(status)
        return status in FINISHED

    page.wait_for_selector("[data-testid=run-status]")
    wait_until(finished, timeout=240)
    return seen


@pytest.fixture
def team_checks(cast, api_as, warehouse):
    """Checks the author's team already has on the orders table."""
    client = api_as(cast.author)
    verdict = {
        "check_type": "statistics_minus_comparison",
        "operator": "le",
        "threshold": 0,
        "failure_strategy": "alert",
        "comparison_type": "fix_value",
        "comparison_value": 0,
    }
    src = {"src_datasource_id": warehouse.pk, "src_table": f"{SCHEMA}.orders"}
    return [
        create_check(client, "orders · ids unique", "uniqueness_check", **src, src_field="order_id", **verdict),
        create_check(
            client,
            "orders · statuses known",
            "enumeration_check",
            **src,
            src_field="status",
            enum_list=["paid", "shipped", "void"],
            **{**verdict, "failure_strategy": "block"},
        ),
        create_check(
            client,
            "orders · nine positive amounts",
            "table_count_check",
            **src,
            src_filter="amount > 0",
            **{**verdict, "operator": "eq", "comparison_value": 9},
        ),
    ]


def test_a_new_user_authors_runs_and_reads_a_null_check(
    live_server, page, shots, console_errors, cast, warehouse, pg_datasource, team_checks, browser_worker, built_app
):
    url = live_server.url
    sign_in(page, url, "author", AUTHOR_PASSWORD)
    expect(page.get_by_test_id("user-menu")).to_contain_text("author")
    expect(page.get_by_test_id("admin-link")).to_have_count(0)  # no admin link for a non-admin

    # The catalog, grouped by quality dimension, leads to the form of a template.
    page.get_by_role("link", name="Rule templates").click()
    completeness = page.locator("[data-dimension=completeness]")
    expect(completeness).to_contain_text("Null check")
    completeness.locator("[data-template=null_check]").get_by_role("link", name="Create a check").click()
    expect(page).to_have_url(re.compile(r"/checks/new\?template=null_check$"))

    # The form is form-create's rendering of /rule-templates/null_check/form/, with live selects.
    page.get_by_test_id("check-name").fill("orders · customer e-mail present")
    pick(page, "Source datasource", "warehouse (PostgreSQL)")
    pick(page, "Source table", f"{SCHEMA}.orders", typing=SCHEMA)
    pick(page, "Source column", "customer_email (text)")
    # Another datasource clears the table and column picked from the first one.
    pick(page, "Source datasource", "warehouse-pg (PostgreSQL)")
    expect(selected(page, "Source table")).to_have_text("Pick a table")
    expect(selected(page, "Source column")).to_have_text("Pick a column")
    pick(page, "Source datasource", "warehouse (PostgreSQL)")
    pick(page, "Source table", f"{SCHEMA}.orders", typing=SCHEMA)
    pick(page, "Source column", "customer_email (text)")
    expect(page.get_by_test_id("rule-preview")).to_contain_text("Pass when actual − expected ≤ 0")
    shots("form", readme="check-form")

    # A bad threshold (none at all) is caught under its field, as the served rule says.
    threshold = form_item(page, "Threshold")
    threshold.locator("input").fill("")
    page.get_by_test_id("save-check").click()
    expect(threshold.locator(".el-form-item__error")).to_have_text("Enter threshold: it is required.")
    shots("threshold-error")
    # A filter only the server can judge: its 400 lands under the filter field.
    threshold.locator("input").fill("0")
    source_filter = form_item(page, "Source filter")
    source_filter.locator("textarea").fill("amount > (SELECT 1)")
    page.get_by_test_id("save-check").click()
    expect(source_filter.locator(".el-form-item__error")).to_contain_text("subquery")
    expect(page.get_by_test_id("server-errors")).to_be_visible()
    shots("field-errors")
    source_filter.locator("textarea").fill("")
    page.get_by_test_id("save-check").click()
    expect(page).to_have_url(re.compile(r"/checks/\d+$"))
    expect(page.get_by_test_id("current-version")).to_have_text("1")
    check_id = int(page.url.rsplit("/", 1)[1])

    # Run now → the run page follows it from queued to its end and shows the result. Pushdown on
    # a 3-row table ends before the page first renders, so the worker is held stopped until the
    # page has shown the run waiting, then started: the page must move on by itself.
    browser_worker.stop()
    page.get_by_test_id("run-now").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+$"))
    expect(page.get_by_test_id("run-status")).to_have_attribute("data-status", "queued")
    browser_worker.start()
    statuses = watch_run(page)
    assert statuses[0] == "queued" and statuses[-1] == "failed", statuses
    result = page.get_by_test_id(f"result-{check_id}")
    expect(result.get_by_test_id("statistic")).to_have_text("2")
    expect(result.get_by_test_id("expected")).to_have_text("0")
    expect(result.get_by_test_id("verdict")).to_have_text(NULL_VERDICT)
    # Provenance says which engine read the batch and why (a PostgreSQL table: the database itself).
    expect(page.get_by_test_id("batch-engine")).to_contain_text("pushdown")
    expect(page.get_by_test_id("batch-engine")).to_contain_text("auto: a table in one database")
    shots("run-finished")

    # The results page says the same, with how the expected value was obtained.
    page.get_by_role("link", name="Results", exact=True).click()
    row = page.get_by_test_id("results-table").locator(".el-table__row").filter(has_text="customer e-mail present")
    expect(row.get_by_test_id("statistic")).to_have_text("2")
    expect(row.get_by_test_id("verdict")).to_have_text(NULL_VERDICT)
    expect(row).to_contain_text("Fixed value set on the check")
    expect(row).to_contain_text(f"{SCHEMA}.orders")
    expect(page.get_by_test_id("summary-open-failures")).to_have_text("1")

    # The bad rows: the NULL e-mail of order 2 and the empty one of order 3, and a CSV of them.
    row.get_by_test_id("open-error-rows").click()
    expect(page).to_have_url(re.compile(r"/results/\d+/error-rows$"))
    table = page.get_by_test_id("error-rows-table")
    expect(table.locator("thead")).to_contain_text("customer_email")
    expect(table.locator(".el-table__body .el-table__row")).to_have_count(2)
    headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    email, order = headers.index("customer_email"), headers.index("order_id")
    cells = [r.locator("td").all_inner_texts() for r in table.locator(".el-table__body .el-table__row").all()]
    assert sorted((c[order].strip(), c[email].strip()) for c in cells) == [("2", "NULL"), ("3", "(empty)")]
    expect(page.get_by_test_id("error-rows-count")).to_contain_text("2 offending rows")
    shots("error-rows", readme="error-rows")
    with page.expect_download() as download:
        page.get_by_test_id("download-csv").click()
    lines = download.value.path().read_text().splitlines()
    assert "customer_email" in lines[0] and len(lines) == 3

    # The checks list: pick every check and run them together.
    page.get_by_role("link", name="Checks", exact=True).click()
    checks = page.get_by_test_id("checks-table")
    expect(checks.locator(".el-table__body .el-table__row")).to_have_count(4)
    expect(checks.locator(".el-table__row").filter(has_text="customer e-mail present")).to_contain_text("Fail")
    shots("checks-list", readme="checks-list")
    checks.locator(".el-table__header .el-checkbox").click()
    page.get_by_test_id("run-selected").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+$"))
    shots("run-live")
    assert watch_run(page)[-1] == "failed"
    expect(page.get_by_test_id("run-results").locator("article")).to_have_count(4)
    expect(page.get_by_test_id("run-blocking")).to_be_visible()  # the enumeration check blocks on failure
    # Each result names its template as people read it, never by its key.
    results_text = page.get_by_test_id("run-results").inner_text()
    for name in ("Null check", "Uniqueness check", "Enumeration check"):
        assert name in results_text, results_text
    for key in ("null_check", "uniqueness_check", "enumeration_check"):
        assert key not in results_text, results_text
    shots("run-of-four", readme="run")
    run_path = page.url.removeprefix(url)

    # The dashboard, then the trend of the null check across its two runs, failures marked.
    page.get_by_role("link", name="Results", exact=True).click()
    expect(page.get_by_test_id("summary-checks")).to_have_text("4")
    expect(page.get_by_test_id("results-table").locator(".el-table__body .el-table__row")).to_have_count(5)
    shots("dashboard", readme="dashboard")
    newest = page.get_by_test_id("results-table").locator(".el-table__row").filter(has_text="customer e-mail present")
    newest.first.get_by_test_id("open-trend").click()
    drawer = page.locator(".el-drawer")
    expect(drawer.get_by_test_id("trend-caption")).to_contain_text("2 results over business time")
    expect(drawer.get_by_test_id("trend-caption")).to_contain_text("2 failed · 0 errored")
    expect(drawer.locator("canvas")).to_have_count(1)
    shots("trend", readme="trend")
    page.keyboard.press("Escape")

    # Nothing breaks on a 1024-px window: no page scrolls sideways, the verdicts wrap.
    page.set_viewport_size({"width": 1024, "height": 800})
    for path in [
        run_path,
        "/results",
        "/checks",
        f"/checks/{check_id}",
        "/checks/new?template=null_check",
        "/runs",
        "/templates",
        "/datasources",
    ]:
        page.goto(url + path)
        page.wait_for_load_state("networkidle")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{path} is {overflow}px too wide at 1024 px"
        assert_top_bar_fits(page)
        if path == run_path:
            shots("narrow-run")
            # Every verdict line stays inside its card (none is cut off at the right edge).
            cut = page.evaluate(
                "[...document.querySelectorAll('[data-testid=verdict]')].filter("
                "v => v.getBoundingClientRect().right > v.closest('article').getBoundingClientRect().right + 1).length"
            )
            assert cut == 0, f"{cut} verdicts run past their card at 1024 px"
    shots("narrow-checks")

    # Retry from the browser: attempt 2 of this very run (its versions and batches), linked to it.
    page.goto(url + run_path)
    first_run = int(run_path.rsplit("/", 1)[1])
    page.get_by_test_id("run-retry").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+$"))
    expect(page.get_by_test_id("run-attempt")).to_contain_text(f"attempt 2 of run #{first_run}")
    assert page.url.removeprefix(url) != run_path
    assert watch_run(page)[-1] == "failed"
    expect(page.get_by_test_id("run-results").locator("article")).to_have_count(4)
    retried, first = Run.objects.get(retry_of_id=first_run), Run.objects.get(pk=first_run)
    assert retried.attempt == 2 and retried.batches == first.batches
    assert set(retried.check_versions.values_list("pk", flat=True)) == set(
        first.check_versions.values_list("pk", flat=True)
    )
    shots("run-retried")
    assert unexpected(console_errors) == []


def test_a_signed_out_link_signs_in_first_and_an_admin_signs_out(
    live_server, page, shots, console_errors, cast, built_app
):
    url = live_server.url
    sign_in(page, url, "admin", "admin-pass-123", path="/runs/999")
    expect(page).to_have_url(url + "/runs/999")  # back where the link pointed
    expect(page.get_by_test_id("load-error")).to_contain_text("Run #999 does not exist")
    expect(page.get_by_test_id("admin-link")).to_have_attribute("href", "/admin/")
    page.get_by_role("link", name="Checks", exact=True).click()
    expect(page.get_by_test_id("empty-state")).to_contain_text("No checks yet")
    shots("empty-checks")
    page.get_by_test_id("user-menu").click()
    page.get_by_role("menuitem", name="Sign out").click()
    expect(page).to_have_url(re.compile(r"/login/$"))
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    shots("signed-out")
    assert [e for e in unexpected(console_errors) if "404" not in e] == []


def test_an_author_sees_that_the_template_changed_and_upgrades_the_check_to_it(
    live_server, page, shots, console_errors, cast, api_as, warehouse, built_app
):
    from executions.tests.conftest import VERDICT
    from rules.models import Check, InputEntry

    source = {"src_datasource_id": warehouse.pk, "src_table": f"{SCHEMA}.orders", "src_field": "customer_email"}
    check_id = create_check(api_as(cast.author), "orders · e-mail present", "null_check", **source, **VERDICT)
    entry = InputEntry.objects.get(field="src_field")  # an admin renames a field of the template
    entry.title = "Column to inspect"
    entry.save()

    saved_with = Check.objects.get(pk=check_id).current().definition.number

    sign_in(page, live_server.url, "author", "author-pass-123", path=f"/checks/{check_id}")
    banner = page.get_by_test_id("template-upgrade")
    expect(banner).to_contain_text(f"still computes with template v{saved_with}")
    banner.get_by_test_id("upgrade-show").click()
    expect(banner.get_by_test_id("upgrade-plan")).to_contain_text(f"From template v{saved_with} to v{saved_with + 1}")
    expect(banner.get_by_test_id("upgrade-change")).to_have_text(
        ['inputs.src_field.title: "Source column" → "Column to inspect"']
    )
    shots("template-upgrade")
    banner.get_by_test_id("upgrade-confirm").click()
    expect(page.get_by_test_id("current-version")).to_have_text("2")
    expect(page.get_by_test_id("template-upgrade")).to_have_count(0)
    check = Check.objects.get(pk=check_id)
    assert check.current().definition.number == saved_with + 1
    assert check.versions.get(number=1).definition.number == saved_with  # the old version keeps its meaning
    assert unexpected(console_errors) == []
