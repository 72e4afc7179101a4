"""Schedules, alert channels, incidents and a run's notifications in the browser (watching/).

Runs are recorded in this process through executions' own recording; their alerts run as eager
Celery tasks and reach a real HTTP server on 127.0.0.1 (the webhook channel)."""

from __future__ import annotations

import re

import pytest
from django.db import transaction

from watching.models import Incident, Schedule
from watching.tests import conftest as watching_fixtures
from watching.tests.conftest import record_run

from .conftest import sign_in, unexpected

# The fixtures of watching/tests, shared here.
eager_celery, lake = watching_fixtures.eager_celery, watching_fixtures.lake
make_check, webhook_server = watching_fixtures.make_check, watching_fixtures.webhook_server

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def test_an_author_schedules_a_check_reading_its_cron_in_words_and_pauses_it(
    live_server, page, shots, console_errors, cast, make_check, built_app
):
    check = make_check("orders · statuses present")
    sign_in(page, live_server.url, "author", "author-pass-123", "/schedules")
    page.get_by_test_id("new-schedule").click()
    dialog = page.get_by_test_id("schedule-dialog")
    page.get_by_test_id("schedule-name").fill("nightly orders")
    cron = page.get_by_test_id("schedule-cron")
    cron.fill("0 2 * *")
    dialog.get_by_text("five fields").wait_for()  # the server's reason, under the field, as it is typed
    cron.fill("0 2 * * *")
    page.get_by_test_id("schedule-timezone").click()
    page.keyboard.type("Asia/Shanghai")
    page.get_by_role("option", name="Asia/Shanghai", exact=True).click()
    preview = page.get_by_test_id("schedule-preview")
    preview.get_by_text("Runs every day at 02:00 Asia/Shanghai").wait_for()
    assert preview.inner_text().count("·") == 4  # five next firing times
    page.get_by_test_id("schedule-checks").click()
    page.get_by_role("option", name="orders · statuses present").click()
    page.keyboard.press("Escape")
    shots("schedule-form")
    page.get_by_test_id("schedule-save").click()
    table = page.get_by_test_id("schedules-table")
    table.get_by_text("every day at 02:00 Asia/Shanghai").wait_for()
    table.get_by_text("orders · statuses present").wait_for()
    schedule = Schedule.objects.get()
    assert (
        schedule.cron == "0 2 * * *" and schedule.timezone == "Asia/Shanghai" and list(schedule.checks.all()) == [check]
    )
    page.get_by_test_id(f"schedule-enabled-{schedule.pk}").click()
    table.get_by_text("Paused").wait_for()
    shots("schedules-paused", readme="schedules")
    schedule.refresh_from_db()
    assert schedule.enabled is False
    assert unexpected(console_errors) == []


def test_an_admin_adds_a_webhook_channel_sends_a_test_and_people_triage_the_incident(
    live_server, page, shots, console_errors, cast, make_check, webhook_server, eager_celery, built_app
):
    check = make_check("orders · statuses present")
    sign_in(page, live_server.url, "admin", "admin-pass-123", "/alert-channels")
    page.get_by_test_id("new-channel").click()
    page.get_by_test_id("channel-name").fill("ci hook")
    page.get_by_test_id("channel-kind").click()
    page.get_by_role("option", name="Webhook (JSON POST)").click()
    target = page.get_by_test_id("channel-target")
    target.fill("ftp://nowhere")
    page.get_by_test_id("channel-save").click()
    page.get_by_test_id("channel-dialog").get_by_text("Expected a URL starting with http://").wait_for()
    target.fill(webhook_server.url)
    page.get_by_test_id("channel-save").click()
    table = page.get_by_test_id("channels-table")
    table.get_by_text("ci hook").wait_for()
    assert "hook-Secret-7781" not in page.content()
    channel_id = int(re.search(r"channel-test-(\d+)", page.content()).group(1))
    page.get_by_test_id(f"channel-test-{channel_id}").click()
    page.get_by_test_id(f"channel-test-outcome-{channel_id}").get_by_text("Test message sent").wait_for()
    assert webhook_server.requests[0]["json"]["event"] == "dq.test"
    shots("channels", readme="alert-channels")

    with transaction.atomic():
        run = record_run([check], {check: 2}, user=cast.author)
    assert webhook_server.wait_for(2)[1]["json"]["run"]["id"] == run.pk
    incident = Incident.objects.get()

    page.goto(f"{live_server.url}/runs/{run.pk}")
    notifications = page.get_by_test_id("run-notifications")
    notifications.get_by_text("ci hook").wait_for()
    notifications.get_by_text("sent").first.wait_for()
    shots("run-notifications")

    nightly = Schedule.objects.create(name="nightly", cron="0 2 * * *", timezone="Asia/Shanghai", owner=cast.author)
    nightly.checks.set([check])
    page.goto(f"{live_server.url}/checks/{check.pk}?tab=watching")
    watching = page.get_by_test_id("check-watching")
    watching.get_by_test_id("check-incident").get_by_text(f"Incident #{incident.pk}").wait_for()
    watching.get_by_test_id("check-channel").get_by_text("ci hook").wait_for()
    watching.get_by_test_id("check-schedule").get_by_text("every day at 02:00 Asia/Shanghai").wait_for()
    assert "hook-Secret-7781" not in page.content()
    shots("check-watching-tab")

    page.goto(f"{live_server.url}/incidents")
    page.get_by_test_id(f"incident-ack-{incident.pk}").click()
    page.get_by_test_id(f"incident-status-{incident.pk}").get_by_text("acknowledged").wait_for()
    page.get_by_test_id(f"incident-details-{incident.pk}").click()
    drawer = page.get_by_test_id("incident-drawer")
    drawer.get_by_test_id("resolve-note").fill("Reloaded the orders table.")
    drawer.get_by_test_id("drawer-resolve").click()
    drawer.get_by_test_id("drawer-status").get_by_text("resolved").wait_for()
    page.keyboard.press("Escape")
    page.get_by_text("No incidents here").wait_for()
    incident.refresh_from_db()
    assert incident.status == "resolved" and incident.resolved_by == cast.admin
    assert incident.resolution_note == "Reloaded the orders table."
    page.get_by_test_id("incident-filter").click()
    page.get_by_role("option", name="Resolved", exact=True).click()
    page.get_by_test_id("incidents-table").get_by_text("“Reloaded the orders table.”").wait_for()
    shots("incidents-resolved")
    assert unexpected(console_errors) == []
