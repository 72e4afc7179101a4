"""A table's page in the browser: reached from its datasource's catalog, profiled with "Profile now"
by the real worker, its suggested checks rejected and accepted, the accepted checks run (they pass on
the rows they were suggested from), a monitor switched on, and a second profile after new rows says
what changed. A reader who may not change the datasource still sees its monitors, and a panel whose
API fails shows its own error while the others render.

The table is executions' end-to-end `dq_e2e.orders` in PostgreSQL (ROWS): every expected figure is
counted here in plain Python from those rows."""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta

import psycopg
import pytest
from playwright.sync_api import expect

from conftest import PG
from executions.models import Result, Run
from executions.tests.conftest import ROWS, TODAY
from monitors.models import Monitor
from profiling.models import Profile
from rules.models import Check, RejectedSuggestion

from .conftest import SCHEMA, sign_in, unexpected

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

TABLE = f"{SCHEMA}.orders"
WIDE, NARROW = {"width": 1440, "height": 900}, {"width": 1024, "height": 800}
LONG = 240_000  # a first profile or run starts the worker's engines on a busy machine


def rows(page, testid: str):
    return page.get_by_test_id(testid).locator(".el-table__body .el-table__row")


def assert_fits(page, what: str) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{what} is {overflow}px too wide at {page.viewport_size['width']} px"


def open_table_page_from_the_catalog(
    page, base_url: str, username: str, password: str, datasource: str = "warehouse", table: str = TABLE
) -> None:
    sign_in(page, base_url, username, password, "/datasources")
    row = rows(page, "datasources-table").filter(has_text=datasource)
    row.locator(".el-table__expand-icon").click()
    page.get_by_role("button", name=table, exact=True).click()
    page.get_by_test_id("table-page-link").click()
    page.wait_for_url(re.compile(rf".*/tables/\d+/{re.escape(table)}$"))
    expect(page.get_by_test_id("page-title")).to_have_text(table)
    expect(page.locator("a.back")).to_have_text("Datasources")  # back where the user came from


def profile_now(page) -> None:
    page.get_by_test_id("profile-now").click()
    expect(page.get_by_test_id("profile-now")).to_have_text("Profile now", timeout=LONG)


def test_an_owner_profiles_a_table_accepts_its_suggested_checks_which_pass_and_switches_on_a_monitor(
    live_server, page, shots, console_errors, cast, api_as, warehouse, browser_worker, built_app
):
    warehouse.owner_groups.set([cast.analysts])  # the author answers for it: switches monitors on
    page.set_viewport_size(WIDE)
    open_table_page_from_the_catalog(page, live_server.url, "author", "author-pass-123")
    profile_panel = page.get_by_test_id("profile-panel")
    expect(profile_panel).to_contain_text("This table has no profile yet.")
    expect(page.get_by_test_id("suggestions-panel")).to_contain_text("Profile the table first")

    # --- the first profile: its figures, against the rows counted here ---------------------------
    profile_now(page)
    columns = rows(page, "profile-columns")
    expect(columns).to_have_count(5, timeout=LONG)
    expect(page.get_by_test_id("profile-row-count")).to_have_text(f"{len(ROWS)} rows")
    email_nulls = sum(1 for r in ROWS if r[1] is None)
    emails = columns.filter(has=page.locator(".mono", has_text=re.compile("^customer_email$")))
    expect(emails.get_by_test_id("column-nulls")).to_have_text(f"{email_nulls} ({100 * email_nulls / len(ROWS):.1f}%)")
    status, count = Counter(r[2] for r in ROWS).most_common(1)[0]
    statuses = columns.filter(has=page.locator(".mono", has_text=re.compile("^status$")))
    expect(statuses.get_by_test_id("top-value").first).to_have_text(f"{status} · {count}")
    amounts = columns.filter(has=page.locator(".mono", has_text=re.compile("^amount$")))
    low, high = min(r[3] for r in ROWS), max(r[3] for r in ROWS)
    expect(amounts.get_by_test_id("column-range")).to_contain_text(f"{low} … {high}")
    expect(amounts.get_by_test_id("histogram").locator("span")).not_to_have_count(0)

    # --- suggestions: reject one, accept every other ----------------------------------------------
    suggestions = rows(page, "suggestions")
    expect(suggestions.first).to_be_visible(timeout=30_000)
    offered = suggestions.count()
    assert offered >= 2, "a 10-row table with nulls, ranges and few statuses suggests several checks"
    expect(suggestions.first.get_by_test_id("backtest")).to_contain_text("this profile: would pass")
    rejected_name = suggestions.first.get_by_test_id("suggestion-name").inner_text()
    suggestions.first.get_by_test_id("reject-suggestion").click()
    box = page.locator(".el-message-box")
    box.locator("input").fill("amounts may go negative for refunds")
    box.get_by_role("button", name="Reject").click()
    expect(suggestions).to_have_count(offered - 1)
    expect(page.get_by_test_id("suggestions")).not_to_contain_text(rejected_name)
    rejection = RejectedSuggestion.objects.get()
    assert (rejection.table, rejection.reason) == (TABLE, "amounts may go negative for refunds")

    first_name = suggestions.first.get_by_test_id("suggestion-name").inner_text()
    suggestions.first.get_by_test_id("accept-suggestion").click()
    expect(suggestions).to_have_count(offered - 2)
    expect(rows(page, "bound-checks")).to_contain_text(first_name)
    page.get_by_test_id("accept-all-suggestions").click()
    expect(suggestions).to_have_count(0)
    expect(page.get_by_test_id("suggestions-panel")).to_contain_text(
        f"Hidden: 1 rejected, {offered - 1} already checks"
    )
    accepted = Check.objects.alive().filter(params__src_table=TABLE)
    assert accepted.count() == offered - 1 and rejected_name not in {c.name for c in accepted}

    # --- the accepted checks run, from the table page, and pass on the rows they came from -------
    expect(rows(page, "bound-checks")).to_have_count(offered - 1)
    page.get_by_test_id("run-every-check").get_by_test_id("run-for-date").click()
    page.get_by_test_id("run-biz-date").fill(TODAY.isoformat())
    page.get_by_test_id("run-for-date-start").click()
    page.wait_for_url(re.compile(r".*/runs/\d+$"))
    run = Run.objects.get(pk=int(page.url.rsplit("/", 1)[1]))
    expect(page.get_by_test_id("run-status")).to_have_text("Passed", timeout=LONG)
    results = Result.objects.filter(run=run)
    assert sorted(r.rule_check_id for r in results) == sorted(c.pk for c in accepted)
    assert {r.status for r in results} == {"pass"}, [(r.rule_check.name, r.status, r.message) for r in results]
    page.go_back()
    expect(rows(page, "bound-checks").filter(has_text="Pass")).to_have_count(offered - 1)

    # --- a monitor, switched on in the dialog, listed with its checks ----------------------------
    page.get_by_test_id("switch-on-monitor").click()
    dialog = page.get_by_role("dialog", name="Watch this table")
    dialog.get_by_test_id("monitor-time-column").click()
    page.get_by_role("option", name="created_at", exact=True).click()
    dialog.get_by_test_id("monitor-max-age").locator("input").fill("72")
    dialog.get_by_test_id("monitor-schedule").fill("0 2 * *")
    dialog.get_by_test_id("monitor-save").click()
    expect(dialog.locator(".el-form-item__error")).not_to_have_count(0)  # the server's reason, under the cron
    assert not Monitor.objects.exists()
    dialog.get_by_test_id("monitor-schedule").fill("0 * * * *")
    dialog.get_by_test_id("monitor-save").click()
    expect(dialog).to_be_hidden()
    monitor = page.get_by_test_id("monitor")
    expect(monitor).to_have_count(1)
    expect(monitor).to_contain_text("Volume, Freshness, Schema changes")
    made = Monitor.objects.get()
    names = sorted(mc.rule_check.name for mc in made.monitor_checks.all())
    assert len(names) == 3 and made.time_column == "created_at" and made.freshness_max_age == 72
    expect(monitor.locator(".checks li")).to_have_count(3)
    for name in names:
        expect(monitor).to_contain_text(name)

    # --- new rows, a second profile, and what changed ---------------------------------------------
    added = [(11, "h@x.io", "paid", 500), (12, None, "refund", 600), (13, "i@x.io", "paid", 700)]
    with psycopg.connect(**PG, autocommit=True) as conn, conn.cursor() as cur:
        cur.executemany(
            f"INSERT INTO {SCHEMA}.orders VALUES (%s, %s, %s, %s, %s)", [(*r, TODAY - timedelta(days=1)) for r in added]
        )
    profile_now(page)
    before, after = len(ROWS), len(ROWS) + len(added)
    changes = page.get_by_test_id("profile-changes")
    expect(changes).to_contain_text(f"Rows: {before} → {after} (+{100 * len(added) / before:.1f}%)", timeout=LONG)
    expect(changes).to_contain_text(re.compile(rf"amount: [^\n]*max {high} → 700"))
    nulls_after = email_nulls + sum(1 for r in added if r[1] is None)
    expect(changes).to_contain_text(
        f"customer_email: null share {100 * email_nulls / before:.1f}% → {100 * nulls_after / after:.1f}%"
    )
    expect(page.get_by_test_id("profile-row-count")).to_have_text(f"{after} rows")
    expect(page.get_by_test_id("suggestions-panel")).to_contain_text("backtested on 1 earlier profile")
    expect(suggestions.first).to_be_visible()  # the new figures suggest new bounds

    expect(page.locator(".el-message")).to_have_count(0, timeout=10_000)  # the toasts have gone
    page.mouse.move(0, 0)  # nothing hovered in the pictures
    page.evaluate("window.scrollTo(0, 0)")
    assert_fits(page, "the table page")
    shots("table-page-1440", readme="table-page")
    page.set_viewport_size(NARROW)
    assert_fits(page, "the table page")
    shots("table-page-1024", readme="table-page-1024")
    assert unexpected(console_errors) == []


def test_a_parquet_datasets_suggested_checks_all_accepted_at_once_pass_on_the_rows_they_came_from(
    live_server, page, shots, console_errors, cast, make_datasource, parquet_dir, browser_worker, built_app
):
    # parquet_dir's orders: order_id 1, 2, 3; status paid, NULL, void; amount 1.5, 2.0, NULL.
    make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))
    statuses, amounts = ["paid", None, "void"], [1.5, 2.0, None]
    page.set_viewport_size(WIDE)
    open_table_page_from_the_catalog(page, live_server.url, "author", "author-pass-123", "lake", "orders")
    profile_now(page)
    columns = rows(page, "profile-columns")
    expect(columns).to_have_count(3, timeout=LONG)
    expect(page.get_by_test_id("profile-row-count")).to_have_text(f"{len(statuses)} rows")
    status = columns.filter(has=page.locator(".mono", has_text=re.compile("^status$")))
    nulls = statuses.count(None)
    expect(status.get_by_test_id("column-nulls")).to_have_text(f"{nulls} ({100 * nulls / len(statuses):.1f}%)")
    for value, count in Counter(v for v in statuses if v is not None).items():
        expect(status.get_by_test_id("top-value").filter(has_text=value)).to_have_text(f"{value} · {count}")
    amount = columns.filter(has=page.locator(".mono", has_text=re.compile("^amount$")))
    present = [a for a in amounts if a is not None]
    expect(amount.get_by_test_id("column-range")).to_have_text(f"{min(present)} … {max(present):g}")

    suggestions = rows(page, "suggestions")
    expect(suggestions.first).to_be_visible(timeout=30_000)
    offered = suggestions.count()
    page.get_by_test_id("accept-all-suggestions").click()
    expect(suggestions).to_have_count(0)
    accepted = Check.objects.alive().filter(params__src_table="orders")
    assert accepted.count() == offered
    page.get_by_test_id("run-every-check").get_by_test_id("run-for-date").click()
    page.get_by_test_id("run-biz-date").fill(TODAY.isoformat())
    page.get_by_test_id("run-for-date-start").click()
    page.wait_for_url(re.compile(r".*/runs/\d+$"))
    expect(page.get_by_test_id("run-status")).to_have_text("Passed", timeout=LONG)
    results = Result.objects.filter(run_id=int(page.url.rsplit("/", 1)[1]))
    assert sorted(r.rule_check_id for r in results) == sorted(c.pk for c in accepted)
    assert {r.status for r in results} == {"pass"}, [(r.rule_check.name, r.status, r.message) for r in results]
    assert unexpected(console_errors) == []


def test_a_reader_sees_the_monitors_without_switches_and_a_failing_panel_does_not_hide_the_others(
    live_server, page, shots, console_errors, cast, api_as, warehouse, built_app
):
    owner = api_as(cast.admin)
    made = owner.post(
        "/api/v1/monitors/", {"datasource": warehouse.pk, "table": TABLE, "kinds": ["schema"]}, format="json"
    )
    assert made.status_code == 201, made.json()
    # The author may read the warehouse but does not answer for it: the API refuses them a monitor.
    refused = api_as(cast.author).post(
        "/api/v1/monitors/", {"datasource": warehouse.pk, "table": TABLE, "kinds": ["volume"]}, format="json"
    )
    assert refused.status_code == 403
    # Reading a table's suggestions and accepting one (creating a check) need the datasource's use.
    warehouse.allowed_groups.set([cast.analysts])
    outsider = api_as(cast.outsider)
    query = {"datasource": warehouse.pk, "table": TABLE}
    assert outsider.get("/api/v1/suggestions/", query).status_code == 404
    fingerprint = {**query, "fingerprint": "0" * 64}
    assert outsider.post("/api/v1/suggestions/accept/", fingerprint, format="json").status_code == 404
    assert outsider.get("/api/v1/monitors/", query).json()["count"] == 0

    failed = "Table 'dq_e2e.orders' could not be read: permission denied."
    Profile.objects.create(datasource=warehouse, table=TABLE, status=Profile.Status.ERROR, message=failed)

    # The suggestions' API fails: its panel says so with a retry; profile and monitors still show.
    failing = {"suggestions": True}

    def suggestions_route(route):
        if failing["suggestions"]:
            route.fulfill(status=503, content_type="application/json", body='{"message": "Suggestions are down."}')
        else:
            route.continue_()

    page.route(re.compile(r".*/api/v1/suggestions/\?.*"), suggestions_route)
    page.set_viewport_size(WIDE)
    open_table_page_from_the_catalog(page, live_server.url, "author", "author-pass-123")
    suggestions_panel = page.get_by_test_id("suggestions-panel")
    expect(suggestions_panel.get_by_test_id("load-error")).to_contain_text("Suggestions are down.")
    expect(page.get_by_test_id("profile-panel")).to_contain_text("This table has no profile yet.")
    expect(page.get_by_test_id("profile-failed")).to_have_text(f"The last profile failed: {failed}")
    monitor = page.get_by_test_id("monitor")
    expect(monitor).to_contain_text("Schema changes")
    expect(monitor.locator(".checks li")).to_have_count(1)
    # A reader: the monitor and its checks, but no switch to flip.
    expect(monitor.get_by_role("button", name="Pause")).to_have_count(0)
    expect(page.get_by_test_id("switch-on-monitor")).to_have_count(0)
    expect(page.get_by_test_id("monitors-panel")).to_contain_text("Only the owners of the datasource")
    failing["suggestions"] = False
    suggestions_panel.get_by_role("button", name="Try again").click()
    expect(suggestions_panel).to_contain_text("Profile the table first")
    expect(suggestions_panel.get_by_test_id("load-error")).to_have_count(0)

    # The gate's own answer for the table fails: the panels above it still render.
    page.route(re.compile(r".*/api/v1/gated-table/\?.*"), lambda route: route.fulfill(status=500, body="boom"))
    page.route(re.compile(r".*/api/v1/profiles/\?.*"), lambda route: route.fulfill(status=500, body="boom"))
    page.reload()
    expect(page.get_by_test_id("gate-panel").get_by_test_id("load-error")).to_be_visible()
    expect(page.get_by_test_id("profile-panel").get_by_test_id("load-error")).to_be_visible()
    expect(page.get_by_test_id("profile-now")).to_be_enabled()  # a new profile may still be asked for
    expect(page.get_by_test_id("monitor")).to_contain_text("Schema changes")
    expect(suggestions_panel).to_contain_text("Profile the table first")
    shots("table-page-panels-failing")
    assert [e for e in unexpected(console_errors) if "status of 50" not in e] == []
