"""Checks a team manages: what each person may do with a check (reported in `permissions` and
enforced by the same rule), clone, tags, owner, enable/disable, and bulk actions on a selection."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from executions.models import Run
from executions.tests.conftest import create_check
from rules.models import Check
from watching.firing import fire
from watching.models import Schedule

pytestmark = pytest.mark.django_db
URL = "/api/v1/checks/"
NULLS_AT_MOST_ZERO = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "fix_value",
    "comparison_value": 0,
}

# Who may do what with a check the author owns, on a datasource everyone may read: written by
# hand from the rules (owner and administrators change and delete; whoever sees it runs and clones).
CHECK_RIGHTS = {
    "admin": ["change", "delete", "run", "clone"],
    "author": ["change", "delete", "run", "clone"],
    "outsider": ["run", "clone"],
}


@pytest.fixture
def lake(make_datasource, parquet_dir):
    return make_datasource(name="lake", type="file", format="parquet", path=str(parquet_dir))


@pytest.fixture
def on_orders(lake):
    return {"src_datasource_id": lake.pk, "src_table": "orders", "src_field": "status", **NULLS_AT_MOST_ZERO}


@pytest.fixture
def authors_check(cast, api_as, on_orders) -> int:
    return create_check(api_as(cast.author), "status present", "null_check", **on_orders)


@pytest.mark.parametrize("who", ["admin", "author", "outsider"])
def test_each_person_is_told_what_they_may_do_with_a_check_in_the_list_and_on_its_page(
    cast, api_as, authors_check, who
):
    client = api_as(getattr(cast, who))
    (row,) = client.get(URL).json()["results"]
    assert row["permissions"] == CHECK_RIGHTS[who]
    assert client.get(f"{URL}{authors_check}/").json()["permissions"] == CHECK_RIGHTS[who]


@pytest.mark.parametrize("who", ["admin", "author", "outsider"])
def test_what_a_person_is_told_they_may_do_is_what_the_api_lets_them_do(cast, api_as, authors_check, who):
    client = api_as(getattr(cast, who))
    may = CHECK_RIGHTS[who]
    changed = client.patch(f"{URL}{authors_check}/", {"tags": ["nightly"]}, format="json")
    assert changed.status_code == (200 if "change" in may else 403)
    cloned = client.post(f"{URL}{authors_check}/clone/")
    assert cloned.status_code == (201 if "clone" in may else 403)
    ran = client.post("/api/v1/runs/", {"checks": [authors_check]}, format="json")
    assert ran.status_code == (202 if "run" in may else 400)
    deleted = client.delete(f"{URL}{authors_check}/")
    assert deleted.status_code == (204 if "delete" in may else 403)
    assert Check.objects.alive().filter(pk=authors_check).exists() == ("delete" not in may)


def test_runs_schedules_datasources_and_channels_say_who_may_change_them(cast, api_as, authors_check, lake):
    author, outsider, admin = api_as(cast.author), api_as(cast.outsider), api_as(cast.admin)
    run = author.post("/api/v1/runs/", {"checks": [authors_check]}, format="json").json()
    assert run["permissions"] == ["cancel", "retry"]
    for client, expected in ((author, ["cancel", "retry"]), (admin, ["cancel", "retry"]), (outsider, [])):
        assert client.get(f"/api/v1/runs/{run['id']}/").json()["permissions"] == expected
        assert [r["permissions"] for r in client.get("/api/v1/runs/").json()["results"]] == [expected]
    schedule = {"name": "nightly", "cron": "0 2 * * *", "checks": [authors_check]}
    assert author.post("/api/v1/schedules/", schedule, format="json").status_code == 201
    assert author.get("/api/v1/schedules/").json()["results"][0]["permissions"] == ["change", "delete"]
    assert outsider.get("/api/v1/schedules/").json()["results"][0]["permissions"] == []
    assert admin.get(f"/api/v1/datasources/{lake.pk}/").json()["permissions"] == ["change", "delete", "test"]
    assert outsider.get(f"/api/v1/datasources/{lake.pk}/").json()["permissions"] == ["test"]
    channel = {"name": "team mail", "kind": "email", "target": "dq@example.com", "notify_on": ["fail"]}
    assert admin.post("/api/v1/alert-channels/", channel, format="json").status_code == 201
    assert admin.get("/api/v1/alert-channels/").json()["results"][0]["permissions"] == ["change", "delete", "test"]
    assert outsider.get("/api/v1/alert-channels/").json()["results"][0]["permissions"] == []


def test_a_clone_is_a_first_version_owned_by_whoever_cloned_it_with_a_name_of_its_own(cast, api_as, authors_check):
    api_as(cast.author).patch(f"{URL}{authors_check}/", {"tags": ["orders"]}, format="json")
    outsider = api_as(cast.outsider)
    first = outsider.post(f"{URL}{authors_check}/clone/").json()
    second = outsider.post(f"{URL}{authors_check}/clone/").json()
    original = outsider.get(f"{URL}{authors_check}/").json()

    assert (first["name"], second["name"]) == ("status present (copy)", "status present (copy 2)")
    for clone in (first, second):
        assert clone["owner"] == "outsider" and clone["current_version"] == 1 and clone["enabled"] is True
        assert clone["params"] == original["params"] and clone["template"] == original["template"]
        assert clone["tags"] == ["orders"] and clone["permissions"] == CHECK_RIGHTS["author"]
    assert original["owner"] == "author" and Check.objects.alive().count() == 3


def test_the_list_filters_by_tag_owner_and_enabled(cast, api_as, on_orders):
    author, admin = api_as(cast.author), api_as(cast.admin)
    finance = create_check(author, "finance totals", "null_check", **on_orders)
    nightly = create_check(admin, "nightly status", "null_check", **on_orders)
    create_check(author, "untagged", "null_check", **on_orders)
    author.patch(f"{URL}{finance}/", {"tags": ["finance", "nightly"]}, format="json")
    admin.patch(f"{URL}{nightly}/", {"tags": ["nightly"], "enabled": False}, format="json")

    def names(**query):
        return [c["name"] for c in author.get(URL, query).json()["results"]]

    assert names(tag="nightly") == ["finance totals", "nightly status"]
    assert names(tag="finance") == ["finance totals"]
    assert names(tag="nobody uses this") == []
    assert names(owner="admin") == ["nightly status"]
    assert names(enabled="false") == ["nightly status"]
    assert names(enabled="true", tag="nightly") == ["finance totals"]
    assert author.get(URL, {"enabled": "maybe"}).status_code == 400


def test_tags_are_labels_that_write_no_version_and_bad_tags_are_refused_by_field(cast, api_as, authors_check):
    client = api_as(cast.author)
    body = client.patch(f"{URL}{authors_check}/", {"tags": ["b", "a", "a"]}, format="json").json()
    assert body["tags"] == ["a", "b"] and body["current_version"] == 1
    refused = client.patch(f"{URL}{authors_check}/", {"tags": ["ok", " ", "x" * 51]}, format="json")
    assert refused.status_code == 400
    assert set(refused.json()["fields"]["tags"]) == {"1", "2"}


def test_the_owner_gives_a_check_away_and_then_may_no_longer_change_it(cast, api_as, authors_check, lake):
    author = api_as(cast.author)
    given = author.patch(f"{URL}{authors_check}/", {"owner": "outsider"}, format="json")
    assert given.status_code == 200 and given.json()["owner"] == "outsider"
    assert given.json()["permissions"] == ["run", "clone"]
    assert author.patch(f"{URL}{authors_check}/", {"owner": "author"}, format="json").status_code == 403
    assert api_as(cast.outsider).get(URL, {"owner": "outsider"}).json()["results"][0]["id"] == authors_check
    unknown = api_as(cast.admin).patch(f"{URL}{authors_check}/", {"owner": "nobody"}, format="json")
    assert unknown.status_code == 400 and "nobody" in unknown.json()["fields"]["owner"][0]


def test_a_check_cannot_be_given_to_someone_who_may_not_read_its_data(cast, api_as, authors_check, lake):
    lake.allowed_groups.set([cast.analysts])
    refused = api_as(cast.author).patch(f"{URL}{authors_check}/", {"owner": "outsider"}, format="json")
    assert refused.status_code == 400
    assert refused.json()["fields"]["owner"] == ["outsider may not read this check's data, so cannot own it."]
    assert Check.objects.get(pk=authors_check).owner == cast.author


def test_a_disabled_check_is_skipped_by_its_schedule_and_stays_listed(cast, api_as, authors_check, on_orders):
    author = api_as(cast.author)
    running = create_check(author, "amount present", "null_check", **{**on_orders, "src_field": "amount"})
    author.patch(f"{URL}{authors_check}/", {"enabled": False}, format="json")
    slot = datetime(2026, 11, 29, 2, 0, tzinfo=UTC)
    schedule = Schedule.objects.create(
        name="nightly", cron="0 2 * * *", owner=cast.author, armed_at=slot - timedelta(days=1)
    )
    schedule.checks.set([authors_check, running])

    run = fire(schedule, slot)

    assert sorted(v.parent_check_id for v in run.check_versions.all()) == [running]
    listed = {c["id"]: c["enabled"] for c in author.get(URL).json()["results"]}
    assert listed == {authors_check: False, running: True}


def test_a_schedule_of_disabled_checks_only_starts_no_run_and_says_so(cast, api_as, authors_check):
    api_as(cast.author).patch(f"{URL}{authors_check}/", {"enabled": False}, format="json")
    slot = datetime(2026, 11, 29, 2, 0, tzinfo=UTC)
    schedule = Schedule.objects.create(
        name="nightly", cron="0 2 * * *", owner=cast.author, armed_at=slot - timedelta(days=1)
    )
    schedule.checks.set([authors_check])
    assert fire(schedule, slot) is None
    schedule.refresh_from_db()
    assert "disabled" in schedule.last_message and Run.objects.count() == 0


def test_a_batch_run_skips_a_disabled_check_bound_to_its_table(cast, api_as, authors_check, on_orders, lake):
    author, admin = api_as(cast.author), api_as(cast.admin)
    running = create_check(author, "amount present", "null_check", **{**on_orders, "src_field": "amount"})
    author.patch(f"{URL}{authors_check}/", {"enabled": False}, format="json")

    batch = admin.post("/api/v1/batches/", {"datasource": lake.pk, "table": "orders"}, format="json")

    assert batch.status_code == 201, batch.json()
    run = Run.objects.get(parameters__batch_id=str(batch.json()["id"]))
    assert [v.parent_check_id for v in run.check_versions.all()] == [running]
    table = admin.get("/api/v1/gated-table/", {"datasource": lake.pk, "table": "orders"}).json()
    assert {c["id"]: c["enabled"] for c in table["checks"]} == {authors_check: False, running: True}


def test_a_bulk_action_applies_to_each_check_the_user_may_change_and_says_why_others_were_refused(
    cast, api_as, on_orders
):
    author, admin = api_as(cast.author), api_as(cast.admin)
    mine = create_check(author, "mine", "null_check", **on_orders)
    also_mine = create_check(author, "also mine", "null_check", **on_orders)
    theirs = create_check(admin, "theirs", "null_check", **on_orders)
    missing = 10**9

    for action in ({"action": "disable"}, {"action": "add_tag", "tag": "finance"}):
        answer = author.post(
            f"{URL}bulk/", {**action, "checks": [mine, theirs, also_mine, missing]}, format="json"
        ).json()
        assert (answer["done"], answer["refused"]) == (2, 2)
        assert [(r["id"], r["ok"]) for r in answer["results"]] == [
            (mine, True),
            (theirs, False),
            (also_mine, True),
            (missing, False),
        ]
        assert answer["results"][1]["detail"] == "Only the check's owner or an administrator may change it."
        assert answer["results"][3]["detail"] == "No such check, or one you may not see."

    state = {c.name: (c.enabled, sorted(t.name for t in c.tags.all())) for c in Check.objects.all()}
    assert state == {"mine": (False, ["finance"]), "also mine": (False, ["finance"]), "theirs": (True, [])}


def test_a_bulk_run_starts_the_enabled_checks_and_refuses_the_disabled_one(cast, api_as, on_orders):
    author = api_as(cast.author)
    on = create_check(author, "on", "null_check", **on_orders)
    off = create_check(author, "off", "null_check", **on_orders)
    author.patch(f"{URL}{off}/", {"enabled": False}, format="json")

    answer = author.post(f"{URL}bulk/", {"action": "run", "checks": [on, off]}, format="json").json()

    run = Run.objects.get()
    assert [(r["id"], r["ok"], r["detail"]) for r in answer["results"]] == [
        (on, True, f"Started in run {run.pk}."),
        (off, False, "Disabled: enable it to run it."),
    ]
    assert [v.parent_check_id for v in run.check_versions.all()] == [on]


def test_a_bulk_owner_change_and_delete_follow_the_same_rights(cast, api_as, on_orders):
    author, admin = api_as(cast.author), api_as(cast.admin)
    mine = create_check(author, "mine", "null_check", **on_orders)
    theirs = create_check(admin, "theirs", "null_check", **on_orders)
    given = author.post(
        f"{URL}bulk/", {"action": "set_owner", "owner": "outsider", "checks": [mine, theirs]}, format="json"
    )
    assert [r["ok"] for r in given.json()["results"]] == [True, False]
    refused = author.post(f"{URL}bulk/", {"action": "delete", "checks": [theirs]}, format="json").json()
    assert refused["results"][0]["detail"] == "Only the check's owner or an administrator may delete it."
    deleted = admin.post(f"{URL}bulk/", {"action": "delete", "checks": [mine, theirs]}, format="json")
    assert deleted.json()["done"] == 2 and not Check.objects.alive().exists()


def test_a_bad_bulk_request_names_every_field_at_once(cast, api_as):
    answer = api_as(cast.author).post(f"{URL}bulk/", {"action": "explode", "checks": []}, format="json")
    assert answer.status_code == 400
    assert set(answer.json()["fields"]) == {"action", "checks"}
    no_owner = api_as(cast.author).post(f"{URL}bulk/", {"action": "set_owner", "checks": [1, 1]}, format="json")
    assert no_owner.status_code == 400 and set(no_owner.json()["fields"]) == {"owner", "checks"}


def test_a_batch_whose_bound_checks_are_all_disabled_runs_nothing_and_says_so(cast, api_as, authors_check, lake):
    api_as(cast.author).patch(f"{URL}{authors_check}/", {"enabled": False}, format="json")
    admin = api_as(cast.admin)
    batch = admin.post("/api/v1/batches/", {"datasource": lake.pk, "table": "orders"}, format="json").json()
    assert Run.objects.count() == 0
    reason = admin.get(f"/api/v1/batches/{batch['id']}/").json()["reason"]
    assert "The 1 check(s) bound to lake.orders are disabled; enable one, then re-validate." in reason
