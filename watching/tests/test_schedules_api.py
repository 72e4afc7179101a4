"""GET/POST /api/v1/schedules/, GET/PATCH/DELETE …/{id}/ and …/preview/."""

from datetime import date

import pytest

from watching.models import Schedule

pytestmark = pytest.mark.django_db
URL = "/api/v1/schedules/"


def _body(check_ids, **changes):
    return {
        "name": "nightly orders",
        "cron": "0 2 * * *",
        "timezone": "Asia/Shanghai",
        "checks": check_ids,
        "enabled": True,
        "biz_date_offset_days": -1,
        **changes,
    }


def test_a_schedule_is_created_with_its_cron_in_words_and_next_five_firing_times(cast, api_as, make_check):
    check = make_check("statuses present")
    response = api_as(cast.author).post(URL, _body([check.pk]), format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["description"] == "every day at 02:00 Asia/Shanghai"
    assert len(body["next_runs"]) == 5 and all(t.endswith("T02:00:00+08:00") for t in body["next_runs"])
    days = [date.fromisoformat(t[:10]) for t in body["next_runs"]]
    assert [(b - a).days for a, b in zip(days, days[1:], strict=False)] == [1, 1, 1, 1]
    assert body["checks"] == [check.pk] and body["check_names"] == [{"id": check.pk, "name": "statuses present"}]
    assert body["owner"] == "author" and body["can_edit"] is True and body["missed_slot_policy"] == "run_latest_once"


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"cron": "0 2 * *"}, "cron", "five fields"),
        ({"cron": "0 99 * * *"}, "cron", "hour"),
        ({"timezone": "Asia/Atlantis"}, "timezone", "IANA"),
        ({"checks": []}, "checks", "at least one check"),
        ({"checks": [999999]}, "checks", "does not exist"),
        ({"biz_date_offset_days": 400}, "biz_date_offset_days", "366"),
        ({"name": " "}, "name", ""),
    ],
)
def test_a_bad_schedule_answers_400_naming_the_field(cast, api_as, make_check, changes, field, words):
    check = make_check("statuses present")
    response = api_as(cast.author).post(URL, _body([check.pk], **changes), format="json")
    assert response.status_code == 400
    body = response.json()
    assert field in body["fields"] and words in " ".join(body["fields"][field]), body


def test_a_soft_deleted_check_leaves_the_schedule(cast, api_as, make_check):
    client = api_as(cast.author)
    kept, gone = make_check("kept"), make_check("gone")
    schedule = client.post(URL, _body([kept.pk, gone.pk]), format="json").json()
    assert client.delete(f"/api/v1/checks/{gone.pk}/").status_code == 204
    assert client.get(f"{URL}{schedule['id']}/").json()["checks"] == [kept.pk]


def test_pausing_and_editing_is_for_the_owner_and_admins(cast, api_as, make_check, analysts_member):
    check = make_check("statuses present")
    schedule = api_as(cast.author).post(URL, _body([check.pk]), format="json").json()
    other = api_as(analysts_member)
    assert other.get(f"{URL}{schedule['id']}/").json()["can_edit"] is False
    assert other.patch(f"{URL}{schedule['id']}/", {"enabled": False}, format="json").status_code == 403
    paused = api_as(cast.admin).patch(f"{URL}{schedule['id']}/", {"enabled": False}, format="json")
    assert paused.status_code == 200 and paused.json()["enabled"] is False
    assert api_as(cast.author).delete(f"{URL}{schedule['id']}/").status_code == 204
    assert not Schedule.objects.exists()


def test_an_outsider_sees_no_schedule_of_checks_on_a_datasource_closed_to_them(cast, api_as, make_check, lake):
    lake.allowed_groups.set([cast.analysts])
    check = make_check("statuses present")
    schedule = api_as(cast.author).post(URL, _body([check.pk]), format="json").json()
    outsider = api_as(cast.outsider)
    assert outsider.get(URL).json()["count"] == 0
    assert outsider.get(f"{URL}{schedule['id']}/").status_code == 404
    refused = outsider.post(URL, _body([check.pk]), format="json")
    assert refused.status_code == 400 and "checks" in refused.json()["fields"]


def test_the_list_pages_on_the_server_and_filters_by_check(cast, api_as, make_check):
    client = api_as(cast.author)
    first, second = make_check("first"), make_check("second")
    for i in range(3):
        client.post(URL, _body([first.pk], name=f"s{i}"), format="json")
    client.post(URL, _body([second.pk], name="other"), format="json")
    page = client.get(URL, {"page_size": 2}).json()
    assert page["count"] == 4 and len(page["results"]) == 2 and page["next"] and page["previous"] is None
    assert [s["name"] for s in client.get(URL, {"check": second.pk}).json()["results"]] == ["other"]
    assert client.get(URL, {"check": "x"}).status_code == 400


def test_the_preview_says_the_cron_in_words_or_which_field_is_wrong(cast, api_as):
    client = api_as(cast.author)
    body = client.get(f"{URL}preview/", {"cron": "*/30 * * * *", "timezone": "UTC"}).json()
    assert body["description"] == "every 30 minutes (UTC)" and len(body["next_runs"]) == 5
    bad = client.get(f"{URL}preview/", {"cron": "nope", "timezone": "Nowhere"})
    assert bad.status_code == 400 and set(bad.json()["fields"]) == {"cron", "timezone"}
