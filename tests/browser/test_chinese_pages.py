"""The runs, results, batches and watching pages in Simplified Chinese, at 1024 and 1440 px wide.

A browser whose language is Chinese (and a user with no saved choice) gets the app in Chinese. On
each page: the title and the column headers are the Chinese words (实际值 / 期望值 beside each other
on the results), nothing is wider than the window or its panel, no button's text is cut or wrapped,
no column header is cut. A screenshot of each lands in test-artifacts/browser/zh-<page>-<width>.png."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from watching.models import AlertChannel, Incident

from . import test_layout_fits as fits
from .conftest import ARTIFACTS, sign_in, unexpected

# The pages' data (every_page) and the fixtures it asks for, as the layout test has them.
every_page, eager_celery, lake = fits.every_page, fits.eager_celery, fits.lake
make_check, webhook_server = fits.make_check, fits.webhook_server
MEASURE, settle = fits.MEASURE, fits.settle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

WIDTHS = (1024, 1440)
LOCALES = Path(__file__).resolve().parents[2] / "frontend" / "src" / "locales"


def chinese(area: str, key: str) -> str:
    """A message as the Chinese catalogue holds it (read here, not through the app)."""
    node = json.loads((LOCALES / "zh-CN" / f"{area}.json").read_text(encoding="utf-8"))
    for part in key.split("."):
        node = node[part]
    return node


# Buttons whose text is cut or runs onto a second line, and column headers that are cut.
CRAMPED = """() => {
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden'
  const buttons = [...document.querySelectorAll('.el-button')].filter(visible).flatMap((b) => {
    const text = b.textContent.trim()
    if (!text) return []
    const span = b.querySelector('span') || b
    const problems = []
    if (b.scrollWidth > b.clientWidth + 1) problems.push(`button “${text}” is cut`)
    // A button is one line high: text on two lines is taller than the button.
    if (span.getBoundingClientRect().height > b.clientHeight + 1) problems.push(`button “${text}” wraps`)
    return problems
  })
  const headers = [...document.querySelectorAll('.el-table__header th .cell')].filter(visible)
    .filter((c) => c.textContent.trim() && c.scrollWidth > c.clientWidth + 1)
    .map((c) => `column “${c.textContent.trim()}” is cut`)
  return [...buttons, ...headers]
}"""


def shot(page, name: str) -> None:
    page.wait_for_timeout(300)
    height = min(1400, page.evaluate("document.documentElement.scrollHeight"))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    clip = {"x": 0, "y": 0, "width": page.viewport_size["width"], "height": height}
    page.screenshot(path=str(ARTIFACTS / f"zh-{name}.png"), full_page=True, clip=clip)


@pytest.fixture
def chinese_page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="zh-CN")
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    yield page, errors
    context.close()


def test_the_runs_results_batches_and_watching_pages_speak_chinese_and_fit_at_1024_and_1440_px(
    live_server, chinese_page, every_page, built_app
):
    page, console_errors = chinese_page
    sign_in(page, live_server.url, "admin", "admin-pass-123", "/results")
    titles = {
        "runs": chinese("runs", "title"),
        "run": None,
        "results": chinese("results", "title"),
        "error-rows": None,
        "batches": chinese("batches", "title"),
        "batch": None,
        "table": None,
        "schedules": chinese("watching", "schedules.title"),
        "incidents": chinese("watching", "incidents.title"),
        "alert-channels": chinese("watching", "channels.title"),
        "check": None,
    }
    problems: list[str] = []
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        for name, title in titles.items():
            page.goto(live_server.url + every_page[name])
            page.get_by_test_id("page-title").first.wait_for()
            settle(page)
            if title is not None and page.get_by_test_id("page-title").first.inner_text().strip() != title:
                problems.append(f"{name}: the title is {page.get_by_test_id('page-title').first.inner_text()!r}")
            if name == "results":
                headers = page.get_by_test_id("results-table").locator("th").all_inner_texts()
                statistic, expected = chinese("results", "col.statistic"), chinese("results", "col.expected")
                if [statistic, expected] != [h for h in headers if h in (statistic, expected)]:
                    problems.append(f"results: the columns are {headers}")
            if name == "incidents":
                incident = Incident.objects.first()
                page.get_by_test_id(f"incident-details-{incident.pk}").click()
                page.get_by_test_id("drawer-status").wait_for()
                problems += [f"incident drawer at {width}: {p}" for p in page.evaluate(CRAMPED)]
                shot(page, f"incident-drawer-{width}")
                page.keyboard.press("Escape")
                page.get_by_test_id("incident-drawer").wait_for(state="hidden")
            if name == "check":  # the check's schedules, channels, incident and mute
                page.locator("#tab-watching").click()
                page.get_by_test_id("check-watching").wait_for()
                settle(page)
            if name == "alert-channels":
                channel = AlertChannel.objects.get()
                page.get_by_test_id(f"channel-test-{channel.pk}").click()
                page.get_by_test_id(f"channel-test-outcome-{channel.pk}").wait_for()
            measured = page.evaluate(MEASURE)
            if measured["overflow"] > 0:
                problems.append(f"{name} at {width}: the document is {measured['overflow']} px wider than the window")
            problems += [f"{name} at {width}: panel {p}" for p in measured["panels"]]
            problems += [f"{name} at {width}: tag {t}" for t in measured["tags"]]
            problems += [f"{name} at {width}: {p}" for p in page.evaluate(CRAMPED)]
            shot(page, f"{name}-{width}")
        # The channel form, with the language of its messages.
        page.goto(live_server.url + every_page["alert-channels"])
        page.get_by_test_id("new-channel").click()
        dialog = page.get_by_test_id("channel-dialog")
        dialog.get_by_text(chinese("watching", "channels.language"), exact=True).wait_for()
        page.wait_for_timeout(300)
        problems += [f"channel dialog at {width}: {p}" for p in page.evaluate(CRAMPED)]
        shot(page, f"channel-dialog-{width}")
        page.keyboard.press("Escape")
    assert problems == [], "\n".join(problems)
    assert unexpected(console_errors) == []
