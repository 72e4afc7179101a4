"""Who may acknowledge, resolve and mute: the owners of the check's datasource, the check's owner
and administrators, not everyone who may read the check; a mute has a reason and an end at most
DQ_MUTE_MAX_DAYS ahead."""

from datetime import timedelta

import pytest
from django.utils import timezone

from watching.models import CheckMute, Incident

pytestmark = pytest.mark.django_db
URL = "/api/v1/incidents/"


@pytest.fixture
def incident(make_check, finish_run) -> Incident:
    """The open incident of the author's failing check on the open lake (everyone may read it)."""
    check = make_check("statuses present")
    finish_run([check], {check: 2})
    return Incident.objects.get(rule_check=check)


def soon(**delta) -> str:
    return (timezone.now() + timedelta(**delta)).isoformat()


def test_reading_a_check_is_not_enough_to_acknowledge_resolve_or_mute_it(cast, api_as, incident, analysts_member):
    for user in (cast.outsider, analysts_member):
        client = api_as(user)
        assert client.get(f"{URL}{incident.pk}/").status_code == 200  # they may read it
        refused = client.post(f"{URL}{incident.pk}/acknowledge/")
        assert refused.status_code == 403 and "owners of the check's datasource" in refused.json()["message"]
        assert client.post(f"{URL}{incident.pk}/resolve/", {"note": "mine now"}, format="json").status_code == 403
        mute = {"until": soon(hours=1), "reason": "quiet please"}
        assert client.post(f"/api/v1/checks/{incident.rule_check_id}/mute/", mute, format="json").status_code == 403
    incident.refresh_from_db()
    assert (incident.status, incident.acknowledged_by, incident.resolved_by) == ("open", None, None)
    assert not CheckMute.objects.exists()


def test_the_owners_of_the_checks_datasource_handle_its_incidents(cast, api_as, incident, analysts_member, lake):
    granted = api_as(cast.admin).patch(f"/api/v1/datasources/{lake.pk}/", {"owners": ["colleague"]}, format="json")
    assert granted.status_code == 200
    owner = api_as(analysts_member)
    acknowledged = owner.post(f"{URL}{incident.pk}/acknowledge/")
    assert acknowledged.status_code == 200 and acknowledged.json()["acknowledged_by"] == "colleague"
    mute = {"until": soon(days=2), "reason": "the loader is being fixed"}
    muted = owner.post(f"/api/v1/checks/{incident.rule_check_id}/mute/", mute, format="json")
    assert muted.status_code == 200 and muted.json()["muted_by"] == "colleague"
    resolved = owner.post(f"{URL}{incident.pk}/resolve/", {"note": "reloaded"}, format="json")
    assert resolved.status_code == 200 and resolved.json()["resolved_by"] == "colleague"
    # Ownership granted to a group works the same; taking it away takes the right away.
    api_as(cast.admin).patch(f"/api/v1/datasources/{lake.pk}/", {"owners": []}, format="json")
    assert owner.delete(f"/api/v1/checks/{incident.rule_check_id}/mute/").status_code == 403
    api_as(cast.admin).patch(f"/api/v1/datasources/{lake.pk}/", {"owner_groups": ["analysts"]}, format="json")
    assert owner.delete(f"/api/v1/checks/{incident.rule_check_id}/mute/").status_code == 204


def test_a_mute_needs_a_reason_and_ends_within_the_configured_days(cast, api_as, incident, settings):
    author = api_as(cast.author)  # the check's owner
    url = f"/api/v1/checks/{incident.rule_check_id}/mute/"
    no_reason = author.post(url, {"until": soon(hours=1)}, format="json")
    assert no_reason.status_code == 400 and list(no_reason.json()["fields"]) == ["reason"]
    blank = author.post(url, {"until": soon(hours=1), "reason": "  "}, format="json")
    assert blank.json()["fields"]["reason"] == ["Say why the check's messages are held back."]
    forever = author.post(url, {"until": "9999-12-31T00:00:00Z", "reason": "noisy"}, format="json")
    assert forever.status_code == 400
    assert forever.json()["fields"]["until"] == [
        "A mute lasts at most 30 days (DQ_MUTE_MAX_DAYS); mute again when it ends."
    ]
    settings.DQ_MUTE_MAX_DAYS = 1
    assert (
        "at most 1 day "
        in author.post(url, {"until": soon(days=2), "reason": "x"}, format="json").json()["fields"]["until"][0]
    )
    assert not CheckMute.objects.exists()
    ok = author.post(url, {"until": soon(hours=20), "reason": "table reload"}, format="json")
    assert ok.status_code == 200 and ok.json()["reason"] == "table reload"
