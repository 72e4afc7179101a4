"""An incident handled in the browser: found by a search, assigned to a colleague who can see it,
commented on, refused a resolution without a note (the server's message under the field), then
resolved with one; and a muted failing run's page says who muted the check, until when and why.

Runs are recorded in this process through executions' own recording; their alerts run as eager
Celery tasks, which open the incidents."""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from watching.models import CheckMute, Incident
from watching.tests import conftest as watching_fixtures
from watching.tests.conftest import record_run

from .conftest import ARTIFACTS, README_SHOTS, sign_in, unexpected

# The fixtures of watching/tests, shared here.
eager_celery, lake = watching_fixtures.eager_celery, watching_fixtures.lake
make_check, analysts_member = watching_fixtures.make_check, watching_fixtures.analysts_member

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]
NOTE_REQUIRED = "Say what was done about it: the note is kept with the incident."


def _screenshot(page, name: str, width: int) -> None:
    """The page at `width` px wide (the top 1000 px) under test-artifacts/browser/, and with
    DQ_README_SCREENSHOTS=1 as the README's docs/screenshots/<name>.png."""
    page.locator(".el-message").first.wait_for(state="detached", timeout=10_000)  # the toasts are gone
    page.set_viewport_size({"width": width, "height": 1000})
    page.wait_for_timeout(400)  # the table and the drawer lay out again
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    if os.environ.get("DQ_README_SCREENSHOTS") == "1":
        README_SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(README_SHOTS / f"{name}.png"))


def test_an_incident_is_found_assigned_commented_and_resolved_only_with_a_note(
    live_server, page, shots, console_errors, cast, make_check, analysts_member, eager_celery, built_app
):
    statuses = make_check("orders statuses present")
    amounts = make_check("order amounts present", src_field="amount", failure_strategy="block")
    others = [make_check(f"orders check {n}") for n in range(3)]
    with transaction.atomic():
        run = record_run(
            [statuses, amounts, *others],
            {statuses: 2, amounts: 1, **{c: 2 for c in others}},
            user=cast.author,
        )
    incident = Incident.objects.get(rule_check=amounts)
    assert Incident.objects.count() == 5 and incident.severity == "critical"

    sign_in(page, live_server.url, "author", "author-pass-123", "/incidents")
    table = page.get_by_test_id("incidents-table")
    table.get_by_text("orders statuses present").wait_for()
    page.get_by_test_id("incident-search").fill("amounts")
    page.wait_for_url("**/incidents?search=amounts")
    table.get_by_text("orders statuses present").wait_for(state="detached")
    assert table.locator("tbody tr").count() == 1
    page.get_by_test_id(f"incident-severity-{incident.pk}").get_by_text("critical").wait_for()

    page.get_by_test_id(f"incident-details-{incident.pk}").click()
    drawer = page.get_by_test_id("incident-drawer")
    drawer.get_by_text(f"Incident #{incident.pk} · order amounts present").wait_for()
    # Assigned to someone who can see it, picked from the people the server offers.
    drawer.get_by_test_id("incident-assignee").click()
    page.keyboard.type("coll")
    page.get_by_role("option", name="colleague", exact=True).click()
    drawer.get_by_text("author assigned it to colleague").wait_for()
    drawer.get_by_test_id("comment-text").fill("The loader ran twice last night.")
    drawer.get_by_test_id("comment-add").click()
    drawer.get_by_test_id("incident-comments").get_by_text("The loader ran twice last night.").wait_for()

    # Resolving without a note is refused, with the server's message under the note.
    drawer.get_by_test_id("drawer-resolve").click()
    drawer.get_by_test_id("resolve-note-item").get_by_text(NOTE_REQUIRED).wait_for()
    incident.refresh_from_db()
    assert incident.status == "open"
    _screenshot(page, "incidents-drawer-1440", 1440)
    _screenshot(page, "incidents-drawer-1024", 1024)
    page.set_viewport_size({"width": 1440, "height": 1000})

    drawer.get_by_test_id("resolve-note").fill("Reloaded the amounts from the source.")
    drawer.get_by_test_id("drawer-resolve").click()
    drawer.get_by_test_id("drawer-status").get_by_text("resolved").wait_for()
    drawer.get_by_test_id("incident-history").get_by_text("author: open → resolved").wait_for()
    incident.refresh_from_db()
    assert (incident.status, incident.resolved_by, incident.assignee) == ("resolved", cast.author, analysts_member)
    assert incident.resolution_note == "Reloaded the amounts from the source."
    assert [c.text for c in incident.comments.all()] == ["The loader ran twice last night."]
    assert list(incident.changes.values_list("field", "to_value")) == [
        ("status", "open"),
        ("assignee", "colleague"),
        ("status", "resolved"),
    ]
    page.keyboard.press("Escape")
    drawer.wait_for(state="hidden")

    # Resolved, it leaves the unresolved list; the resolved ones show it with its note.
    page.get_by_text("No incident matches these filters.").wait_for()
    page.get_by_test_id("incident-search").fill("")
    table.get_by_text("orders statuses present").wait_for()
    assert table.locator("tbody tr").count() == 4
    page.get_by_test_id("incident-filter").click()
    page.get_by_role("option", name="Any status").click()
    table.get_by_text("“Reloaded the amounts from the source.”").wait_for()
    page.get_by_test_id(f"incident-assignee-{incident.pk}").get_by_text("colleague").wait_for()
    _screenshot(page, "incidents-1440", 1440)
    _screenshot(page, "incidents-1024", 1024)
    page.set_viewport_size({"width": 1440, "height": 1000})

    # A muted check's failing run says so: by whom, until when, why.
    CheckMute.objects.create(
        rule_check=statuses,
        until=timezone.now() + timedelta(hours=6),
        reason="the loader is rebuilt",
        muted_by=cast.author,
    )
    page.goto(f"{live_server.url}/runs/{run.pk}")
    said = page.get_by_test_id(f"run-muted-{statuses.pk}")
    said.get_by_text("is muted until").wait_for()
    assert "by author" in said.inner_text() and "Reason: the loader is rebuilt" in said.inner_text()
    assert page.get_by_test_id(f"run-muted-{amounts.pk}").count() == 0
    shots("run-muted")
    assert unexpected(console_errors) == []
