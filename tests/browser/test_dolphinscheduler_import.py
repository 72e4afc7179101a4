"""A DolphinScheduler user moves here in the browser: chooses the workflow export, maps its
datasource ids, previews (nothing created), imports, opens the new checks and runs them; the run
page's verdicts agree with counts taken straight from PostgreSQL."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from imports.tests.conftest import EXPORT_PATH, SCHEMA, ds_tables, pg_count, shop  # noqa: F401  (fixtures)
from rules.models import Check

from .conftest import sign_in, unexpected
from .test_browser_app import watch_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def _map(page, ds_id: str, datasource: str) -> None:
    page.get_by_test_id(f"map-{ds_id}").locator(".el-select__wrapper").click()
    page.locator(".el-select-dropdown:visible .el-select-dropdown__item").filter(
        has_text=re.compile(rf"^\s*{re.escape(datasource)}\s*$")
    ).first.click()
    expect(page.locator(".el-select-dropdown:visible")).to_have_count(0)  # closed before the next one opens


def test_a_dolphinscheduler_export_is_imported_in_the_browser_and_its_checks_run(
    live_server,
    page,
    shots,
    console_errors,
    cast,
    shop,  # noqa: F811  (the fixture imported above)
    browser_worker,
    built_app,
):
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, live_server.url, "author", "author-pass-123", path="/checks")
    page.get_by_test_id("import-dolphinscheduler").click()
    expect(page).to_have_url(re.compile(r"/imports/dolphinscheduler$"))

    expect(page.get_by_label("Or paste the exported JSON")).to_be_visible()  # or paste it
    page.get_by_test_id("export-file").set_input_files(str(EXPORT_PATH))
    expect(page.get_by_test_id("export-summary")).to_have_text(
        "ds_export_3_2_2.json: 3 workflows, 16 data-quality tasks"
    )
    _map(page, "1", "warehouse")
    _map(page, "2", "mirror")
    page.get_by_test_id("accept-partial").click()
    page.get_by_test_id("create-schedules").click()

    page.get_by_test_id("preview-import").click()
    expect(page.get_by_test_id("import-summary")).to_contain_text(
        "Dry run: checks that would be imported: 11, tasks skipped: 5, other tasks ignored: 3."
    )
    skipped = page.get_by_test_id("skipped-table")
    expect(skipped).to_contain_text("Table 'ds_import.orders_2019' does not exist in datasource 'warehouse'.")
    expect(skipped).to_contain_text("DolphinScheduler datasource 9 is not mapped")
    expect(page.get_by_test_id("schedules-table")).to_contain_text("0 2 * * *")
    shots("preview")
    assert Check.objects.count() == 0

    page.get_by_test_id("run-import").click()
    expect(page.get_by_test_id("import-summary")).to_contain_text(
        "Checks imported: 11, tasks skipped: 5, other tasks ignored: 3."
    )
    links = page.get_by_test_id("imported-check-link")
    expect(links).to_have_count(11)
    shots("imported")
    assert Check.objects.filter(owner=cast.author).count() == 11

    # Each link leads to the check it names.
    for index in range(11):
        link = links.nth(index)
        assert link.get_attribute("href") == f"/checks/{Check.objects.get(name=link.inner_text()).pk}"

    page.get_by_test_id("run-imported").click()
    expect(page).to_have_url(re.compile(r"/runs/\d+$"))
    statuses = watch_run(page)
    orders = f"{SCHEMA}.orders"
    truth = {  # (statistic from PostgreSQL, whether the fixture's rule passes on it)
        "orders email not null": pg_count(
            f"SELECT count(*) FROM {orders} WHERE customer_email IS NULL OR customer_email = ''"
        ),
        "orders have rows": pg_count(f"SELECT count(*) FROM {orders}"),
        "orders copied": pg_count(
            f"SELECT count(*) FROM {orders} o WHERE NOT EXISTS "
            f"(SELECT 1 FROM {SCHEMA}.orders_copy c WHERE c.order_id = o.order_id)"
        ),
        "statuses known": pg_count(
            f"SELECT count(*) FROM {orders} WHERE status IS NULL OR status NOT IN ('paid', 'shipped', 'void')"
        ),
    }
    passes = {
        "orders email not null": truth["orders email not null"] - 0 <= 0,
        "orders have rows": truth["orders have rows"] - 10 == 0,
        "orders copied": truth["orders copied"] - 0 <= 0,
        "statuses known": truth["statuses known"] - 0 <= 2,
    }
    assert statuses[-1] == "failed", statuses  # at least one check fails
    for name, statistic in truth.items():
        card = page.get_by_test_id(f"result-{Check.objects.get(name=name).pk}")
        expect(card).to_have_attribute("data-status", "pass" if passes[name] else "fail")
        expect(card.get_by_test_id("statistic")).to_have_text(str(statistic))
    shots("run")
    assert unexpected(console_errors) == []
