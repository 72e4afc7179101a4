"""The app from the keyboard: the skip link is the first Tab stop and lands on the page's content,
a dialog opens with its first field focused, Esc on a half-filled dialog asks before anything is
lost, and a Cancel button is one Tab stop."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from watching.models import Schedule
from watching.tests import conftest as watching_fixtures

from .conftest import sign_in, unexpected

lake, make_check = watching_fixtures.lake, watching_fixtures.make_check

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

ACTIVE_TESTID = "() => document.activeElement && document.activeElement.getAttribute('data-testid')"


def test_the_first_tab_reaches_the_skip_link_and_enter_moves_the_focus_to_the_content(
    live_server, page, cast, console_errors, built_app
):
    sign_in(page, live_server.url, "author", "author-pass-123", "/schedules")
    page.get_by_test_id("new-schedule").wait_for()
    page.evaluate("document.activeElement && document.activeElement.blur()")
    skip = page.get_by_test_id("skip-link")
    assert skip.bounding_box()["y"] < 0  # out of sight until focused
    page.keyboard.press("Tab")
    expect(skip).to_be_focused()
    box = skip.bounding_box()
    assert box["y"] >= 0 and box["height"] > 0 and skip.inner_text() == "Skip to content"
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("main")).to_be_focused()
    # The next Tab goes into the page, past the nine sections of the top bar: the page's first button.
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('main') !== null")
    expect(page.get_by_test_id("new-schedule")).to_be_focused()
    assert unexpected(console_errors) == []


def test_a_half_filled_dialog_asks_before_esc_throws_it_away_and_keeps_the_text_when_told_to(
    live_server, page, cast, make_check, console_errors, built_app
):
    make_check("orders · statuses present")
    sign_in(page, live_server.url, "author", "author-pass-123", "/schedules")
    dialog = page.get_by_test_id("schedule-dialog")
    name = page.get_by_test_id("schedule-name")
    question = page.get_by_text("Discard your changes?")

    # Untouched: it opens on its first field, and Esc closes it at once.
    page.get_by_test_id("new-schedule").click()
    expect(name).to_be_focused()
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert question.count() == 0

    # Typed into: Esc asks; "Keep editing" keeps the dialog and the text.
    page.get_by_test_id("new-schedule").click()
    expect(name).to_be_focused()
    page.keyboard.type("nightly orders")
    page.keyboard.press("Escape")
    expect(question).to_be_visible()
    page.get_by_role("button", name="Keep editing").click()
    expect(question).to_be_hidden()
    expect(dialog).to_be_visible()
    expect(name).to_have_value("nightly orders")

    # Cancel asks as well; "Discard" closes, and nothing was saved.
    dialog.get_by_role("button", name="Cancel").click()
    expect(question).to_be_visible()
    page.get_by_role("button", name="Discard").click()
    expect(dialog).to_be_hidden()
    assert Schedule.objects.count() == 0

    # Opened again, the form starts afresh: Esc closes it without asking.
    page.get_by_test_id("new-schedule").click()
    expect(name).to_be_focused()
    expect(name).to_have_value("")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    assert unexpected(console_errors) == []


def test_every_form_dialog_opens_with_its_first_field_focused(live_server, page, cast, console_errors, built_app):
    sign_in(page, live_server.url, "admin", "admin-pass-123", "/alert-channels")
    page.get_by_test_id("new-channel").click()
    expect(page.get_by_test_id("channel-name")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("channel-dialog")).to_be_hidden()

    page.goto(live_server.url + "/datasources")
    page.get_by_test_id("new-datasource").click()
    expect(page.get_by_test_id("ds-name")).to_be_focused()
    assert unexpected(console_errors) == []


def test_cancel_is_one_tab_stop_after_the_button_before_it(
    live_server, page, cast, make_check, console_errors, built_app
):
    check = make_check("orders · statuses present")
    sign_in(page, live_server.url, "admin", "admin-pass-123", "/datasources")
    page.get_by_test_id("new-datasource").click()
    expect(page.get_by_test_id("ds-name")).to_be_focused()
    page.get_by_test_id("ds-test").focus()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent.trim()") == "Cancel"
    page.keyboard.press("Tab")
    assert page.evaluate(ACTIVE_TESTID) == "ds-save"

    # The check editor's Cancel goes to the list; it is one stop, then Save.
    page.goto(f"{live_server.url}/checks/{check.pk}")
    save = page.get_by_test_id("save-check")
    save.wait_for()
    save.focus()
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.textContent.trim()") == "Cancel"
    page.keyboard.press("Shift+Tab")
    assert page.evaluate("document.activeElement.textContent.trim()") != "Cancel"  # not the same button twice
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server.url}/checks")
    assert unexpected(console_errors) == []
