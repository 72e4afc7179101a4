"""GET /api/v1/incidents/ (open first), …/{id}/acknowledge/, …/{id}/resolve/ {"note"};
GET /api/v1/notifications/?run=; POST/DELETE /api/v1/checks/{id}/mute/ {"until"}."""

from datetime import timedelta

import pytest
from django.utils import timezone

from watching.models import AlertChannel, CheckMute, Incident

pytestmark = pytest.mark.django_db
URL = "/api/v1/incidents/"
FAILING, PASSING = 2, 0


@pytest.fixture
def three_incidents(make_check, finish_run):
    """One resolved by a pass, one acknowledged later, one open."""
    passed, acked, still = make_check("passed"), make_check("acked"), make_check("still")
    finish_run([passed, acked, still], {passed: FAILING, acked: FAILING, still: FAILING})
    finish_run([passed], {passed: PASSING})
    return passed, acked, still


def test_incidents_list_newest_first_and_filter_by_status(cast, api_as, three_incidents):
    passed, acked, still = three_incidents
    client = api_as(cast.author)
    opened_order = [i["check_name"] for i in client.get(URL).json()["results"]]
    # One run opened all three at the same moment: then the later id comes first.
    by_id = sorted(Incident.objects.select_related("rule_check"), key=lambda i: -i.pk)
    assert opened_order == [i.rule_check.name for i in by_id]
    incident = Incident.objects.get(rule_check=acked)
    response = client.post(f"{URL}{incident.pk}/acknowledge/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "acknowledged" and body["acknowledged_by"] == "author" and body["acknowledged_at"]
    listing = client.get(URL).json()
    assert listing["count"] == 3 and [i["check_name"] for i in listing["results"]] == opened_order
    resolved = client.get(URL, {"status": "resolved"}).json()["results"]
    assert [i["check_name"] for i in resolved] == ["passed"] and resolved[0]["resolved_automatically"] is True
    assert [
        i["status"] for i in client.get(URL, {"status": "open,acknowledged", "ordering": "status"}).json()["results"]
    ] == [
        "open",
        "acknowledged",
    ]
    bad = client.get(URL, {"status": "closed"})
    assert bad.status_code == 400 and "status" in bad.json()["fields"]


def test_resolving_by_hand_records_who_when_and_the_note(cast, api_as, three_incidents):
    incident = Incident.objects.get(rule_check=three_incidents[2])
    client = api_as(cast.admin)
    body = client.post(f"{URL}{incident.pk}/resolve/", {"note": "Upstream reloaded the table."}, format="json").json()
    assert body["status"] == "resolved" and body["resolved_by"] == "admin" and body["resolved_at"]
    assert body["resolution_note"] == "Upstream reloaded the table." and body["resolved_automatically"] is False
    again = client.post(f"{URL}{incident.pk}/resolve/", {"note": "twice"}, format="json")
    assert again.status_code == 400 and "resolved already" in again.json()["fields"]["status"][0]
    assert client.post(f"{URL}{incident.pk}/acknowledge/").status_code == 400


def test_an_outsider_sees_no_incident_of_a_check_closed_to_them(cast, api_as, three_incidents, lake):
    lake.allowed_groups.set([cast.analysts])
    incident = Incident.objects.get(rule_check=three_incidents[2])
    outsider = api_as(cast.outsider)
    assert outsider.get(URL).json()["count"] == 0
    assert outsider.post(f"{URL}{incident.pk}/acknowledge/").status_code == 404


def test_an_acknowledged_incident_is_not_said_again_when_realert_time_passes(
    cast, api_as, make_check, finish_run, webhook_server, settings
):
    hook = AlertChannel(name="hook", kind="webhook", notify_on=["fail"])
    hook.target = webhook_server.url
    hook.save()
    check = make_check("statuses present")
    finish_run([check], {check: FAILING})
    incident = Incident.objects.get()
    api_as(cast.author).post(f"{URL}{incident.pk}/acknowledge/")
    Incident.objects.update(last_notified_at=timezone.now() - timedelta(seconds=settings.DQ_REALERT_AFTER + 1))
    finish_run([check], {check: FAILING})
    assert len(webhook_server.requests) == 1


def test_notifications_of_a_run_are_listed_with_each_attempt(cast, api_as, make_check, finish_run, webhook_server):
    hook = AlertChannel(name="hook", kind="webhook", notify_on=["fail"])
    hook.target = webhook_server.url
    hook.save()
    check = make_check("statuses present")
    run = finish_run([check], {check: FAILING})
    finish_run([check], {check: FAILING})  # joins the incident: no notification
    page = api_as(cast.author).get("/api/v1/notifications/", {"run": run.pk}).json()
    assert page["count"] == 1
    (notification,) = page["results"]
    assert notification["channel_name"] == "hook" and notification["status"] == "sent" and notification["sent_at"]
    assert notification["attempts"][0]["number"] == 1 and notification["attempts"][0]["ok"] is True
    assert notification["incidents"] == [Incident.objects.get().pk] and "statuses present" in notification["body"]
    assert api_as(cast.outsider).get("/api/v1/notifications/", {"run": "x"}).status_code == 400


def test_muting_a_check_is_for_its_owner_and_admins_and_needs_a_future_time(cast, api_as, make_check, analysts_member):
    check = make_check("statuses present")
    url = f"/api/v1/checks/{check.pk}/mute/"
    until = (timezone.now() + timedelta(hours=3)).isoformat()
    assert api_as(analysts_member).post(url, {"until": until}, format="json").status_code == 403
    past = api_as(cast.author).post(url, {"until": "2001-01-01T00:00:00Z"}, format="json")
    assert past.status_code == 400 and "until" in past.json()["fields"]
    muted = api_as(cast.author).post(url, {"until": until, "reason": "table reload"}, format="json").json()
    assert muted["muted_by"] == "author" and muted["reason"] == "table reload"
    assert api_as(analysts_member).get(url).json()["until"] is not None
    assert api_as(cast.admin).delete(url).status_code == 204
    assert api_as(cast.author).get(url).json()["until"] is None


def test_every_listed_incident_reads_as_on_its_own_page(cast, api_as, make_check, finish_run, three_incidents):
    """The list builds its rows from column values (watching/incident_rows.py); each row must be
    what the incident's own page (IncidentSerializer) says, whatever state the incident is in."""
    passed, acked, still = three_incidents
    by_hand, muted, once_muted = make_check("by hand"), make_check("muted"), make_check("once muted")
    finish_run([by_hand, muted, once_muted], {by_hand: FAILING, muted: FAILING, once_muted: FAILING})
    author = api_as(cast.author)
    author.post(f"{URL}{Incident.objects.get(rule_check=acked).pk}/acknowledge/")
    author.post(f"{URL}{Incident.objects.get(rule_check=by_hand).pk}/resolve/", {"note": "reloaded"}, format="json")
    soon = (timezone.now() + timedelta(hours=3)).isoformat()
    author.post(f"/api/v1/checks/{muted.pk}/mute/", {"until": soon, "reason": "table reload"}, format="json")
    CheckMute.objects.create(rule_check=once_muted, until=timezone.now() - timedelta(hours=1), reason="over")
    Incident.objects.filter(rule_check=still).update(partition_key='{"country": "NO"}', blocking=True)

    for client in (author, api_as(cast.admin)):
        listed = client.get(URL, {"ordering": "status"}).json()["results"]
        assert [i["status"] for i in listed] == ["open"] * 3 + ["acknowledged"] + ["resolved"] * 2
        assert {i["check_name"] for i in listed if i["muted_until"]} == {"muted"}
        assert [i["partition"] for i in listed if i["check_name"] == "still"] == ["partition country=NO"]
        assert [i["resolved_automatically"] for i in listed if i["status"] == "resolved"] == [False, True]
        for row in listed:
            detail = client.get(f"{URL}{row['id']}/").json()
            assert row == {key: value for key, value in detail.items() if key not in ("comments", "history")}
