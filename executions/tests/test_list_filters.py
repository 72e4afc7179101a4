"""The runs, results and checks lists filter in the database, and the dashboard's counts are the
counts of the filtered lists the browser links them to (executions/filters.py)."""

from __future__ import annotations

import pytest

from executions.models import Run
from executions.tests.test_dashboard import _check, _result

pytestmark = pytest.mark.django_db


@pytest.fixture
def open_source(make_datasource):
    return make_datasource(name="open", type="postgresql", host="127.0.0.1", port=5432, database="x", username="u")


def _ids(client, url, **query) -> list[int]:
    body = client.get(url, query).json()
    assert "results" in body, body
    return [row["id"] if "id" in row else row["result"] for row in body["results"]]


def test_results_filter_by_several_statuses_by_check_and_by_run(cast, api_as, open_source):
    emails, ids = _check("emails", open_source), _check("ids", open_source)
    failed, errored, passed = _result(emails, "fail"), _result(ids, "error"), _result(ids, "pass")
    client = api_as(cast.author)
    assert set(_ids(client, "/api/v1/results/", status="fail,error")) == {failed.pk, errored.pk}
    assert set(_ids(client, "/api/v1/results/", check=ids.pk)) == {errored.pk, passed.pk}
    assert _ids(client, "/api/v1/results/", run=passed.run_id) == [passed.pk]


def test_latest_keeps_the_newest_result_of_each_check_before_the_status_filter(cast, api_as, open_source):
    emails, ids = _check("emails", open_source), _check("ids", open_source)
    _result(emails, "fail", hours_ago=5)
    emails_now = _result(emails, "pass", hours_ago=1)  # closes the failure
    ids_now = _result(ids, "fail", hours_ago=2)
    client = api_as(cast.author)
    assert set(_ids(client, "/api/v1/results/", latest="true")) == {emails_now.pk, ids_now.pk}
    assert _ids(client, "/api/v1/results/", latest="true", status="fail,error") == [ids_now.pk]


def test_every_count_of_the_summary_is_the_count_of_the_list_it_links_to(cast, api_as, open_source):
    blocker, alerter, fixed, erring = (_check(n, open_source) for n in ("blocker", "alerter", "fixed", "erring"))
    _result(blocker, "fail", hours_ago=3, strategy="block")
    _result(alerter, "fail", hours_ago=2)
    _result(fixed, "fail", hours_ago=4, strategy="block")
    _result(fixed, "pass", hours_ago=1)
    _result(erring, "error", hours_ago=1, strategy="block")
    _result(erring, "unknown", hours_ago=30)  # outside the window
    client = api_as(cast.author)
    summary = client.get("/api/v1/results/summary/").json()
    since = summary["since"]

    def count(**query):
        return client.get("/api/v1/results/", {"since": since, **query}).json()["count"]

    open_failures = {"latest": "true", "status": "fail,error"}
    assert summary["open_failures"] == count(**open_failures) == 3
    assert summary["blocking_failures"] == count(**open_failures, blocks="true") == 2
    assert summary["results"] == count() == 5
    assert (summary["passed"], summary["failed"], summary["errors"]) == (
        count(status="pass"),
        count(status="fail"),
        count(status="error"),
    )
    runs = client.get("/api/v1/runs/", {"since": since}).json()["count"]
    assert summary["runs"] == runs == 5
    # Blocking failures come first in the header's list.
    assert [f["check_name"] for f in summary["failing_checks"]] == ["erring", "blocker", "alerter"]


def test_blocks_false_keeps_what_does_not_stop_a_workflow(cast, api_as, open_source):
    check = _check("emails", open_source)
    blocking = _result(check, "fail", strategy="block")
    alerting = _result(check, "fail", hours_ago=2)
    unknown = _result(check, "unknown", hours_ago=3, strategy="block")
    client = api_as(cast.author)
    assert _ids(client, "/api/v1/results/", blocks="true") == [blocking.pk]
    assert _ids(client, "/api/v1/results/", blocks="false") == [alerting.pk, unknown.pk]


def test_runs_filter_by_several_statuses_by_check_and_by_time(cast, api_as, open_source):
    emails, ids = _check("emails", open_source), _check("ids", open_source)
    old, recent = _result(emails, "fail", hours_ago=48), _result(ids, "pass", hours_ago=1)
    Run.objects.filter(pk=recent.run_id).update(status="running")
    client = api_as(cast.author)
    assert _ids(client, "/api/v1/runs/", status="queued,running") == [recent.run_id]
    assert _ids(client, "/api/v1/runs/", check=emails.pk) == [old.run_id]
    assert _ids(client, "/api/v1/runs/", since=recent.created_at.date().isoformat()) == [recent.run_id]


@pytest.mark.parametrize(
    ("url", "query", "field"),
    [
        ("/api/v1/runs/", {"status": "done"}, "status"),
        ("/api/v1/runs/", {"check": "abc"}, "check"),
        ("/api/v1/runs/", {"since": "yesterday"}, "since"),
        ("/api/v1/results/", {"status": "fail,oops"}, "status"),
        ("/api/v1/results/", {"check": "abc"}, "check"),
        ("/api/v1/results/", {"run": "1.5"}, "run"),
        ("/api/v1/results/", {"latest": "maybe"}, "latest"),
        ("/api/v1/results/", {"blocks": "2"}, "blocks"),
        ("/api/v1/results/latest/", {"check": "x"}, "check"),
        ("/api/v1/checks/", {"last_status": "red"}, "last_status"),
    ],
)
def test_a_bad_filter_answers_400_naming_it(cast, api_as, url, query, field):
    response = api_as(cast.author).get(url, query)
    assert response.status_code == 400 and list(response.json()["fields"]) == [field]


def test_latest_answers_only_the_checks_asked_for(cast, api_as, open_source):
    emails, ids, amounts = (_check(n, open_source) for n in ("emails", "ids", "amounts"))
    for check in (emails, ids, amounts):
        _result(check, "pass")
    body = api_as(cast.author).get(f"/api/v1/results/latest/?check={emails.pk}&check={amounts.pk}").json()
    assert body["count"] == 2 and {r["check"] for r in body["results"]} == {emails.pk, amounts.pk}


def test_checks_filter_by_the_status_of_their_newest_result_or_never_run(cast, api_as, open_source):
    emails, ids = _check("emails", open_source), _check("ids", open_source)
    _check("idle", open_source)  # never run
    _result(emails, "pass", hours_ago=5)
    _result(emails, "fail", hours_ago=1)
    _result(ids, "fail", hours_ago=5)
    _result(ids, "pass", hours_ago=1)
    client = api_as(cast.author)

    def names(**query):
        return [c["name"] for c in client.get("/api/v1/checks/", query).json()["results"]]

    assert names(last_status="fail") == ["emails"]
    assert names(last_status="never") == ["idle"]
    assert names(last_status="pass,never") == ["idle", "ids"]


def test_a_result_names_its_template_states_its_rule_and_whether_it_blocks(cast, api_as, open_source):
    result = _result(_check("emails", open_source), "fail", strategy="block")
    body = api_as(cast.author).get(f"/api/v1/results/{result.pk}/").json()
    assert body["template"] == "null_check" and body["template_name"] == "Null check"
    assert body["formula"] == "Pass when actual − expected ≤ 0"
    assert body["blocks"] is True
    run = api_as(cast.author).get(f"/api/v1/runs/{result.run_id}/").json()
    assert run["results"][0]["template_name"] == "Null check" and run["results"][0]["formula"] == body["formula"]
