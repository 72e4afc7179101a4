"""Pickers and list search boxes over 1,200 checks: what is typed is searched by the server, so a
check far past the first page (by name, the last of them all) is found in the alert-channel
dialog, the schedule dialog and the lists, and a chosen check shows its name wherever the
picker opens, never a bare id."""

from __future__ import annotations

import os
from datetime import date

import pytest

from gates.models import Batch
from tests.support.many_checks import bulk_checks, bulk_runs
from watching.models import AlertChannel, Schedule
from watching.tests import conftest as watching_fixtures

from .conftest import README_SHOTS, sign_in, unexpected

lake = watching_fixtures.lake

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

NEEDLE = "ledger reconciliation"  # sorts after every "check 0000" … "check 1199"
WIDTHS = (1440, 1024)


@pytest.fixture
def many_checks(cast, lake):
    """1,200 checks any signed-in user sees, and the one the tests look for, last by name."""
    plain = bulk_checks([f"check {i:04d}" for i in range(1200)], lake, owner=cast.author)
    (needle,) = bulk_checks([NEEDLE], lake, owner=cast.author)
    return plain, needle


def picker_shot(page, name: str) -> None:
    """docs/screenshots/<name>-<width>.png with the dropdown still open (DQ_README_SCREENSHOTS=1)."""
    if os.environ.get("DQ_README_SCREENSHOTS") != "1":
        return
    README_SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(300)
    page.screenshot(path=str(README_SHOTS / f"{name}-{page.viewport_size['width']}.png"))


def pick(page, testid: str, typed: str, option: str) -> None:
    page.get_by_test_id(testid).click()
    page.keyboard.type(typed)
    page.get_by_role("option", name=option, exact=True).click()


def close_picker(page, dialog: str) -> None:
    """Clicking outside closes a picker's list (Escape first clears what was typed, as Element Plus does)."""
    page.get_by_test_id(dialog).locator(".el-dialog__title").click()


def chips(page, testid: str) -> list[str]:
    return [t.strip() for t in page.get_by_test_id(testid).locator(".el-select__tags-text").all_inner_texts()]


def test_the_alert_channel_dialog_finds_the_last_of_1200_checks_and_names_it_when_edited(
    live_server, page, console_errors, cast, many_checks, lake, built_app
):
    _, needle = many_checks
    sign_in(page, live_server.url, "admin", "admin-pass-123", "/alert-channels")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/alert-channels")
        page.get_by_test_id("new-channel").click()
        page.get_by_test_id("channel-checks").click()
        page.get_by_role("option", name="check 0000", exact=True).wait_for()  # the first page, before typing
        page.get_by_test_id("remote-select-footer").get_by_text("20 of 1201 checks").wait_for()
        page.keyboard.type("reconcil")
        page.get_by_role("option", name=NEEDLE, exact=True).wait_for()
        picker_shot(page, "pickers-alert-channel")
        page.get_by_role("option", name=NEEDLE, exact=True).click()
        close_picker(page, "channel-dialog")
        if width != WIDTHS[0]:
            page.get_by_role("button", name="Cancel").click()
            continue
        pick(page, "channel-datasources", "lak", "lake")
        close_picker(page, "channel-dialog")
        page.get_by_test_id("channel-name").fill("ledger team")
        page.get_by_test_id("channel-target").fill("ledger@example.com")
        page.get_by_test_id("channel-save").click()
        page.get_by_test_id("channels-table").get_by_text("ledger team").wait_for()

    channel = AlertChannel.objects.get()
    assert list(channel.checks.all()) == [needle] and list(channel.datasources.all()) == [lake]

    page.goto(f"{live_server.url}/alert-channels")
    page.get_by_test_id("channels-table").get_by_role("button", name="Edit").click()
    page.get_by_test_id("channel-checks").locator(".el-select__tags-text", has_text=NEEDLE).wait_for()
    assert chips(page, "channel-checks") == [NEEDLE]  # named, though on no page the picker loaded
    assert chips(page, "channel-datasources") == ["lake"]
    assert unexpected(console_errors) == []


def test_a_schedule_opened_from_a_check_far_down_the_list_names_it_and_the_dialog_finds_others(
    live_server, page, console_errors, cast, many_checks, built_app
):
    plain, needle = many_checks
    sign_in(page, live_server.url, "author", "author-pass-123", f"/checks/{needle.pk}?tab=watching")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/checks/{needle.pk}?tab=watching")
        page.get_by_role("button", name="Schedule this check").click()
        page.get_by_test_id("schedule-checks").locator(".el-select__tags-text", has_text=NEEDLE).wait_for()
        assert chips(page, "schedule-checks") == [NEEDLE]
        pick(page, "schedule-checks", "check 1187", "check 1187")
        page.get_by_test_id("schedule-checks").locator(".el-select__tags-text", has_text="check 1187").wait_for()
        picker_shot(page, "pickers-schedule")
        close_picker(page, "schedule-dialog")
        assert chips(page, "schedule-checks") == [NEEDLE, "check 1187"]
        if width == WIDTHS[-1]:
            page.get_by_test_id("schedule-name").fill("nightly ledger")
            page.get_by_test_id("schedule-save").click()
            page.get_by_test_id("check-schedule").get_by_text("nightly ledger").wait_for()
        else:
            page.get_by_role("button", name="Cancel").click()

    schedule = Schedule.objects.get()
    assert set(schedule.checks.all()) == {needle, plain[1187]}

    page.goto(f"{live_server.url}/schedules")
    page.get_by_test_id("schedules-table").get_by_role("button", name="Edit").click()
    page.get_by_test_id("schedule-checks").locator(".el-select__tags-text", has_text="check 1187").wait_for()
    assert sorted(chips(page, "schedule-checks")) == ["check 1187", NEEDLE]
    assert unexpected(console_errors) == []


def test_the_lists_search_boxes_find_what_is_far_past_their_first_page(
    live_server, page, console_errors, cast, many_checks, lake, make_datasource, built_app
):
    plain, needle = many_checks
    (needle_run,) = bulk_runs([needle], lake, author=cast.admin)  # the oldest run: the last of the list
    bulk_runs(plain[:60], lake)
    Batch.objects.create(datasource=lake, table="ledger_entries", biz_date=date(2026, 1, 1))
    for day in range(1, 31):
        Batch.objects.create(
            datasource=lake, table="orders", biz_date=date(2026, 1, 1 + day % 28), data_version=str(day)
        )
    for i in range(30):
        make_datasource(name=f"warehouse {i:02d}", type="postgresql", host="h", port=5432, database="d", username="u")

    sign_in(page, live_server.url, "author", "author-pass-123", "/checks")
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/checks")
        checks = page.get_by_test_id("checks-table")
        checks.get_by_text("check 0000", exact=True).wait_for()
        page.get_by_test_id("check-search").fill("reconcil")
        checks.get_by_text(NEEDLE, exact=True).wait_for()
        assert checks.get_by_text("check 0000", exact=True).count() == 0

        page.goto(f"{live_server.url}/runs")
        runs = page.get_by_test_id("runs-table")
        runs.get_by_text("check 0059").wait_for()
        page.get_by_test_id("run-search").fill("reconcil")
        runs.get_by_text(f"#{needle_run.pk}", exact=True).wait_for()
        assert runs.locator("tbody tr").count() == 1
        picker_shot(page, "pickers-runs-search")

        page.goto(f"{live_server.url}/batches")
        batches = page.get_by_test_id("batches-table")
        batches.get_by_text("lake · orders").first.wait_for()
        page.get_by_test_id("batch-search").fill("ledger")
        batches.get_by_text("lake · ledger_entries").wait_for()
        page.wait_for_function("document.querySelectorAll('[data-testid=batches-table] tbody tr').length === 1")

        page.goto(f"{live_server.url}/datasources")
        datasources = page.get_by_test_id("datasources-table")
        datasources.get_by_text("lake", exact=True).wait_for()
        assert datasources.get_by_text("warehouse 29", exact=True).count() == 0  # 31 of them: 20 a page
        page.get_by_test_id("datasource-search").fill("house 29")
        datasources.get_by_text("warehouse 29", exact=True).wait_for()
        page.wait_for_function(
            "document.querySelectorAll('[data-testid=datasources-table] tbody tr.el-table__row').length === 1"
        )
        picker_shot(page, "pickers-datasources-search")
    assert unexpected(console_errors) == []
