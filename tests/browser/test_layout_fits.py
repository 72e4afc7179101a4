"""Every page of the app at 1024 and 1440 px wide: nothing wider than the window, no panel wider
than itself, no tag clipped, and in the form dialogs no error message over a label.

The pages are router.ts's, each with the data it shows: checks on the lake datasource (one of them
`unknown`, no expected value yet), recorded runs and their results, an incident, a schedule, an alert
channel whose test answer is long, and a registered batch with its evidence. A screenshot of each
page at each width lands in test-artifacts/browser/fit-<page>-<width>.png, and with
DQ_README_SCREENSHOTS=1 in docs/screenshots/."""

from __future__ import annotations

import os

import pytest
from django.db import transaction

from executions.models import Result
from gates.models import Batch
from watching.models import AlertChannel, Incident, Schedule
from watching.tests import conftest as watching_fixtures
from watching.tests.conftest import record_run

from .conftest import ARTIFACTS, README_SHOTS, sign_in, unexpected

eager_celery, lake = watching_fixtures.eager_celery, watching_fixtures.lake
make_check, webhook_server = watching_fixtures.make_check, watching_fixtures.webhook_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

WIDTHS = (1024, 1440)

# What the window, the panels and the tags of a page do wrong, measured in the page.
MEASURE = """() => {
  const root = document.documentElement
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden'
  const name = (el) => (el.getAttribute('data-testid') || el.className || el.tagName).toString().slice(0, 60)
  const panels = [...document.querySelectorAll('.panel, .el-dialog')].filter(visible)
    .filter((el) => el.scrollWidth > el.clientWidth + 1)
    .map((el) => `${name(el)}: ${el.scrollWidth} > ${el.clientWidth}`)
  const tags = [...document.querySelectorAll('.el-tag')].filter(visible).flatMap((tag) => {
    const content = tag.querySelector('.el-tag__content') || tag
    const text = tag.textContent.trim()
    const problems = []
    if (content.scrollWidth > content.clientWidth + 1 || tag.scrollWidth > tag.clientWidth + 1) problems.push(`${text}: ellipsised`)
    // A table cell hides what passes its padding (and draws "…" there).
    const cell = tag.closest('.cell')
    const edge = cell && cell.getBoundingClientRect().right - parseFloat(getComputedStyle(cell).paddingRight)
    if (cell && tag.getBoundingClientRect().right > edge + 1) problems.push(`${text}: cut by its cell`)
    return problems
  })
  // A list whose columns do not fit hides its last ones behind a sideways scroll (the bad rows'
  // table is the data's own width, and scrolls on purpose).
  const tables = [...document.querySelectorAll('.el-table')].filter(visible)
    .filter((t) => !t.closest('[data-testid=error-rows-table]') && t.getAttribute('data-testid') !== 'error-rows-table')
    .filter((t) => { const wrap = t.querySelector('.el-table__body-wrapper .el-scrollbar__wrap'); return wrap && wrap.scrollWidth > wrap.clientWidth + 1 })
    .map((t) => `${name(t)} scrolls sideways`)
  return { overflow: root.scrollWidth - root.clientWidth, panels: [...panels, ...tables], tags }
}"""

# Pairs (label, error message) of one dialog whose boxes intersect.
OVERLAPS = """(dialog) => {
  const boxes = (selector) => [...dialog.querySelectorAll(selector)].filter((el) => el.getClientRects().length)
    .map((el) => [el.textContent.trim(), el.getBoundingClientRect()])
  const hits = []
  for (const [label, a] of boxes('.el-form-item__label'))
    for (const [error, b] of boxes('.el-form-item__error'))
      if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) hits.push(`${label} / ${error}`)
  return hits
}"""


@pytest.fixture
def every_page(cast, api_as, make_check, lake, webhook_server, eager_celery):
    """The data every page of the app shows, and the address of each page."""
    webhook_server.status, webhook_server.answer = 503, b"upstream mail relay is down for maintenance " * 4
    nulls = make_check("orders · statuses present")
    # An average of earlier results has nothing to average yet: its first result is `unknown`.
    trend = make_check("orders · status nulls against their daily average", comparison_type="daily_avg")
    # A registered batch: its run goes through the worker's task, here in this process (eager).
    client = api_as(cast.author)
    response = client.post("/api/v1/batches/", {"datasource": lake.pk, "table": "orders"}, format="json")
    assert response.status_code == 201, response.json()
    batch = Batch.objects.get(pk=response.json()["id"])
    assert batch.state not in (Batch.State.VALIDATING, Batch.State.PENDING), batch.state
    assert batch.latest_attempt().run.results.get(check_version__parent_check=trend).status == "unknown"

    with transaction.atomic():
        run = record_run([nulls, trend], {nulls: 2, trend: 0}, user=cast.author)
    failing = Result.objects.get(run=run, check_version__parent_check=nulls)
    assert Incident.objects.exists()  # the failing check's, on the incidents page
    nightly = Schedule.objects.create(
        name="nightly orders", cron="0 2 * * *", timezone="Asia/Shanghai", owner=cast.author
    )
    nightly.checks.set([nulls, trend])

    # A template whose statistic has a long name (out_of_range_count.out_of_range), shown in the
    # check page's 300 px side panel.
    params = {"src_datasource_id": lake.pk, "src_table": "orders", "src_field": "amount", "min_value": 0}
    params |= {"max_value": 10, **watching_fixtures.NULL_CHECK}
    response = client.post(
        "/api/v1/checks/",
        {"name": "orders · amounts 0 to 10", "template": "value_range_check", "params": params},
        format="json",
    )
    assert response.status_code == 201, response.json()
    ranged = response.json()["id"]

    channel = AlertChannel(name="ops webhook", kind="webhook", notify_on=["fail", "error", "recovery"])
    channel.target = webhook_server.url
    channel.save()

    return {
        "checks": "/checks",
        "check-new": "/checks/new",
        "check": f"/checks/{nulls.pk}",
        "check-range": f"/checks/{ranged}",
        "runs": "/runs",
        "run": f"/runs/{run.pk}",
        "results": "/results",
        "error-rows": f"/results/{failing.pk}/error-rows",
        "datasources": "/datasources",
        "templates": "/templates",
        "schedules": "/schedules",
        "incidents": "/incidents",
        "alert-channels": "/alert-channels",
        "batches": "/batches",
        "batch": f"/batches/{batch.pk}",
        "table": f"/tables/{lake.pk}/orders",
        "import-dolphinscheduler": "/imports/dolphinscheduler",
        "not-found": "/no-such-page",
    }


def screenshot(page, name: str) -> None:
    """The top of the page (at most 1400 px tall) as fit-<name>.png under test-artifacts/browser/, and
    with DQ_README_SCREENSHOTS=1 under docs/screenshots/ too (committed, so a run leaves no diff)."""
    page.wait_for_timeout(300)
    height = min(1400, page.evaluate("document.documentElement.scrollHeight"))
    clip = {"x": 0, "y": 0, "width": page.viewport_size["width"], "height": height}
    folders = [ARTIFACTS] + ([README_SHOTS] if os.environ.get("DQ_README_SCREENSHOTS") == "1" else [])
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"fit-{name}.png"), full_page=True, clip=clip)


def settle(page) -> None:
    """Wait until the page's requests are answered and its loading skeletons gone."""
    page.wait_for_load_state("networkidle")
    if page.locator(".el-skeleton").count():
        page.locator(".el-skeleton").first.wait_for(state="detached", timeout=15_000)
    page.wait_for_timeout(400)


def test_every_page_fits_the_window_at_1024_and_1440_px_with_no_tag_clipped(
    live_server, page, every_page, console_errors, built_app
):
    sign_in(page, live_server.url, "admin", "admin-pass-123", "/results")
    problems: list[str] = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for name, path in every_page.items():
            seen = len(console_errors)
            page.goto(live_server.url + path)
            page.get_by_test_id("not-found" if name == "not-found" else "page-title").first.wait_for()
            settle(page)
            if name == "datasources":  # the catalog of a datasource, opened on a table's columns
                page.locator(".el-table__expand-icon").first.click()
                page.get_by_role("button", name="orders", exact=True).click()
                page.get_by_test_id("table-page-link").wait_for()
            if name == "alert-channels":
                channel = AlertChannel.objects.get()
                page.get_by_test_id(f"channel-test-{channel.pk}").click()
                page.get_by_test_id(f"channel-test-outcome-{channel.pk}").wait_for()
                # The answer goes under the buttons: Send test, Edit and Delete stay on one line.
                tops = (
                    page.get_by_test_id(f"channel-actions-{channel.pk}")
                    .locator("button")
                    .evaluate_all("(buttons) => buttons.map((b) => Math.round(b.getBoundingClientRect().top))")
                )
                if len(set(tops)) != 1:
                    problems.append(f"{name} at {width}: the channel's buttons wrap ({tops})")
            measured = page.evaluate(MEASURE)
            if measured["overflow"] > 0:
                problems.append(f"{name} at {width}: the document is {measured['overflow']} px wider than the window")
            problems += [f"{name} at {width}: panel {p}" for p in measured["panels"]]
            problems += [f"{name} at {width}: tag {t}" for t in measured["tags"]]
            screenshot(page, f"{name}-{width}")
            if name == "not-found":  # the server answers an unknown address with the app and a 404
                console_errors[seen:] = [e for e in console_errors[seen:] if "status of 404" not in e]
    assert problems == [], "\n".join(problems)
    assert unexpected(console_errors) == []


def dialog_problems(page, dialog, label: str, width: int) -> list[str]:
    measured = page.evaluate(MEASURE)
    problems = [f"{label} at {width}: {o}" for o in dialog.evaluate(OVERLAPS)]
    problems += [f"{label} at {width}: panel {p}" for p in measured["panels"]]
    if measured["overflow"] > 0:
        problems.append(f"{label} at {width}: the document is {measured['overflow']} px wider than the window")
    return problems


def test_the_form_dialogs_show_every_error_under_its_field_clear_of_the_next_label(
    live_server, page, every_page, console_errors, built_app
):
    sign_in(page, live_server.url, "admin", "admin-pass-123", "/schedules")
    problems: list[str] = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})

        # A cron with four fields: the server's sentence (two lines in a half-width column).
        page.goto(live_server.url + "/schedules")
        page.get_by_test_id("new-schedule").click()
        dialog = page.get_by_test_id("schedule-dialog")
        page.get_by_test_id("schedule-cron").fill("0 2 * *")
        dialog.get_by_text("five fields").wait_for()
        problems += dialog_problems(page, dialog, "schedule dialog, bad cron", width)
        page.get_by_test_id("schedule-save").click()  # no name, no checks: every field's message at once
        dialog.locator(".el-form-item__error").nth(1).wait_for()
        page.wait_for_timeout(300)
        problems += dialog_problems(page, dialog, "schedule dialog, saved empty", width)
        screenshot(page, f"schedule-dialog-errors-{width}")

        page.goto(live_server.url + "/alert-channels")
        page.get_by_test_id("new-channel").click()
        dialog = page.get_by_test_id("channel-dialog")
        page.get_by_test_id("channel-save").click()
        dialog.locator(".el-form-item__error").first.wait_for()
        page.wait_for_timeout(300)
        problems += dialog_problems(page, dialog, "channel dialog, saved empty", width)
        screenshot(page, f"channel-dialog-errors-{width}")

        page.goto(live_server.url + "/datasources")
        page.get_by_test_id("new-datasource").click()
        dialog = page.get_by_test_id("datasource-dialog")
        page.get_by_test_id("ds-save").click()
        dialog.locator(".el-form-item__error").first.wait_for()
        page.wait_for_timeout(300)
        problems += dialog_problems(page, dialog, "datasource dialog, saved empty", width)
        screenshot(page, f"datasource-dialog-errors-{width}")
        page.keyboard.press("Escape")
    assert problems == [], "\n".join(problems)
    assert unexpected(console_errors) == []


def test_the_batch_page_names_each_table_with_its_own_filter(
    live_server, page, every_page, cast, api_as, console_errors, built_app
):
    sign_in(page, live_server.url, "admin", "admin-pass-123", every_page["batch"])
    filters = page.get_by_test_id("attempt-1-filters")
    filters.wait_for()
    attempt = api_as(cast.admin).get(f"/api/v1/{every_page['batch'].strip('/')}/").json()["attempts"][0]
    expected = "; ".join(
        f"{f['table']} where {f['filter']}" if f["filter"] else f"{f['table']}: all rows" for f in attempt["filters"]
    )
    assert attempt["filters"] and filters.inner_text() == expected
    assert unexpected(console_errors) == []


def test_the_sign_in_page_and_the_runs_page_say_where_checks_run(live_server, page, cast, console_errors, built_app):
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(live_server.url + "/login/")
        intro = page.locator(".intro").inner_text()
        assert "pushed down into your database" in intro and "DuckDB" in intro and "Spark" in intro
        assert "Run them on Spark" not in intro
        assert page.evaluate(MEASURE)["overflow"] <= 0
        screenshot(page, f"login-{width}")
    sign_in(page, live_server.url, "author", "author-pass-123", "/runs")
    subtitle = page.locator(".subtitle").inner_text()
    assert all(words in subtitle for words in ("pushed down into the database", "embedded DuckDB", "on Spark", "auto"))
    assert unexpected(console_errors) == []
