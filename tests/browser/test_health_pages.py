"""The health pages in the browser: the platform's first screen, a datasource's and a table's.

Checks in four dimensions on the lake's `orders` (Parquet: order_id 1, 2, 3; status 'paid', NULL,
'void') run for real on the worker. Which pass is worked out here from those rows, and the score
each page shows must be passed ÷ (passed + failed) × 100 of them; the datasource's coverage must
be its checked tables and columns over its catalog (orders and the unchecked customers)."""

from __future__ import annotations

import re

import pyarrow.parquet as pq
import pytest
from playwright.sync_api import expect

from executions.tests.conftest import VERDICT, create_check, start_and_wait

from .conftest import assert_top_bar_fits, sign_in, unexpected

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

WIDE, NARROW = {"width": 1440, "height": 900}, {"width": 1024, "height": 800}
LONG = 240_000


def assert_fits(page, what: str) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{what} is {overflow}px too wide at {page.viewport_size['width']} px"


def percent(value: float) -> str:
    """As the page writes a score: 75.0 → '75%', 66.7 → '66.7%'."""
    return f"{round(value, 1):g}%"


def test_the_health_pages_score_a_tables_checks_by_dimension_and_the_datasources_coverage(
    live_server, page, shots, console_errors, cast, api_as, make_datasource, parquet_dir, browser_worker, built_app
):
    lake = make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    client = api_as(cast.author)
    src = {"src_datasource_id": lake.pk, "src_table": "orders"}
    checks = {
        "completeness": create_check(
            client, "orders · status present", "null_check", **src, src_field="status", **VERDICT
        ),
        "uniqueness": create_check(
            client, "orders · ids unique", "uniqueness_check", **src, src_field="order_id", **VERDICT
        ),
        "validity": create_check(
            client,
            "orders · ids 1 to 3",
            "value_range_check",
            **src,
            src_field="order_id",
            min_value=1,
            max_value=3,
            **VERDICT,
        ),
    }
    ids_present = create_check(client, "orders · ids present", "null_check", **src, src_field="order_id", **VERDICT)
    filed = client.patch(f"/api/v1/checks/{ids_present}/", {"dimension": "accuracy"}, format="json")
    assert filed.json()["effective_dimension"] == "accuracy"
    checks["accuracy"] = ids_present
    run = start_and_wait(client, list(checks.values()))
    assert run["status"] in ("passed", "failed"), run

    # By hand, from the rows: each check passes when what it counts is ≤ 0.
    orders = pq.read_table(parquet_dir / "orders").to_pydict()
    counted = {
        "completeness": sum(1 for s in orders["status"] if s is None),  # 1 NULL status
        "uniqueness": len(orders["order_id"]) - len(set(orders["order_id"])),  # 0 duplicates
        "validity": sum(1 for i in orders["order_id"] if not 1 <= i <= 3),  # 0 out of range
        "accuracy": sum(1 for i in orders["order_id"] if i is None),  # 0 NULL ids
    }
    passes = {dimension: count <= 0 for dimension, count in counted.items()}
    results = client.get("/api/v1/results/", {"run": run["id"]}).json()["results"]
    by_check = {r["check"]: r["status"] for r in results}
    assert {d: by_check[c] == "pass" for d, c in checks.items()} == passes
    passed, failed = sum(passes.values()), sum(not p for p in passes.values())
    score = percent(passed * 100 / (passed + failed))  # 3 ÷ 4 → 75%

    # --- the first screen: the platform's health ---------------------------------------------
    page.set_viewport_size(WIDE)
    sign_in(page, live_server.url, "author", "author-pass-123", "/")
    page.wait_for_url(re.compile(r".*/health$"))
    expect(page.get_by_test_id("page-title")).to_have_text("Health")
    expect(page.get_by_test_id("health-score")).to_have_text(score)
    expect(page.get_by_test_id("health-formula")).to_contain_text("passed ÷ (passed + failed) × 100")
    expect(page.get_by_test_id("health-counts")).to_contain_text(f"{passed} of {passed + failed} decided passed")
    for dimension, passing in passes.items():
        card = page.locator(f"[data-dimension={dimension}]")
        expect(card.get_by_test_id("dimension-score")).to_have_text("100%" if passing else "0%")
    expect(page.locator("[data-dimension=timeliness]")).to_contain_text("No check")
    expect(page.get_by_test_id("health-trend").locator("canvas")).to_be_visible()
    worst = page.get_by_test_id("worst-tables")
    expect(worst.locator(".el-table__row")).to_have_count(1)
    expect(worst.locator(".el-table__row")).to_contain_text(score)
    datasources = page.get_by_test_id("health-datasources").locator(".el-table__row")
    expect(datasources).to_have_count(1)
    expect(datasources).to_contain_text("1 of 2")  # orders checked, customers not
    assert_fits(page, "the health page")
    shots("platform", readme="health")

    # --- the datasource: coverage over its catalog (orders checked, customers not) -----------
    worst.get_by_role("link", name="lake").click()
    page.wait_for_url(re.compile(rf".*/health/datasources/{lake.pk}$"))
    expect(page.get_by_test_id("page-title")).to_have_text("lake")
    catalog_columns = {"orders": 3, "customers": 2}
    named = {"status", "order_id"}  # the columns the checks name, all in orders
    expect(page.get_by_test_id("coverage-tables")).to_have_text(percent(1 * 100 / len(catalog_columns)))
    coverage = page.get_by_test_id("health-coverage")
    expect(coverage).to_contain_text(f"1 of {len(catalog_columns)} have a check")
    expect(page.get_by_test_id("coverage-columns")).to_have_text(
        percent(len(named) * 100 / sum(catalog_columns.values()))
    )
    expect(coverage).to_contain_text(f"{len(named)} of {sum(catalog_columns.values())} named by a check")
    expect(page.get_by_test_id("unchecked-tables")).to_have_text("No check yet: customers")
    expect(page.get_by_test_id("health-score")).to_have_text(score)
    shots("datasource", readme="health-datasource")

    # --- the table page's health section -----------------------------------------------------
    page.get_by_test_id("worst-tables").get_by_role("link", name="orders").click()
    page.wait_for_url(re.compile(rf".*/tables/{lake.pk}/orders$"))
    expect(page.locator("a.back")).to_have_text("Health")
    table = page.get_by_test_id("table-health")
    expect(table.get_by_test_id("health-score")).to_have_text(score)
    listed = table.get_by_test_id("health-checks").locator(".el-table__row")
    expect(listed).to_have_count(4)
    expect(listed.filter(has_text="orders · ids present")).to_contain_text("Accuracy")
    expect(listed.filter(has_text="orders · status present")).to_contain_text("Completeness")
    shots("table", readme="health-table")

    # --- 1024 px: nothing overflows ----------------------------------------------------------
    page.set_viewport_size(NARROW)
    page.goto(live_server.url + "/health")
    expect(page.get_by_test_id("health-score")).to_have_text(score)
    assert_fits(page, "the health page")
    assert_top_bar_fits(page)
    shots("platform-narrow", readme="health-1024")
    page.goto(live_server.url + f"/tables/{lake.pk}/orders")
    expect(page.get_by_test_id("table-health").get_by_test_id("health-score")).to_have_text(score)
    assert_fits(page, "the table page")
    shots("table-narrow", readme="health-table-1024")

    # --- the check form files "ids present" under validity instead: no new version, new scores --
    page.set_viewport_size(WIDE)
    page.goto(live_server.url + f"/checks/{checks['completeness']}")
    expect(page.get_by_test_id("check-dimension")).to_contain_text("From the template (Completeness)")
    page.goto(live_server.url + f"/checks/{ids_present}")
    dimension = page.get_by_test_id("check-dimension")
    expect(dimension).to_contain_text("Accuracy")
    dimension.click()
    page.locator(".el-select-dropdown__item:visible", has_text=re.compile(r"^Validity$")).click()
    page.get_by_test_id("save-check").click()
    expect(page.locator(".el-message")).to_contain_text("Nothing changed: still version 1.")
    page.goto(live_server.url + f"/tables/{lake.pk}/orders")
    validity = page.get_by_test_id("table-health").locator("[data-dimension=validity]")
    expect(validity).to_contain_text("2 of 2 decided passed")
    expect(page.get_by_test_id("table-health").locator("[data-dimension=accuracy]")).to_contain_text("No check")
    expect(page.get_by_test_id("table-health").get_by_test_id("health-score")).to_have_text(score)
    assert unexpected(console_errors) == []
