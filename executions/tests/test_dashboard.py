"""The browser dashboard's read-only endpoints: the 24-hour summary, the newest result per check,
and the results list's datasource and date filters (executions/dashboard.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from executions.models import Result, Run
from rules.models import Check, CheckVersion, RuleTemplate

pytestmark = pytest.mark.django_db


@pytest.fixture
def sources(make_datasource, cast):
    """`open` is usable by everyone; `restricted` only by the analysts group (not the outsider)."""
    common = {"type": "postgresql", "host": "127.0.0.1", "port": 5432, "database": "x", "username": "u"}
    restricted = make_datasource(name="restricted", allowed_groups=[cast.analysts], **common)
    return {"open": make_datasource(name="open", **common), "restricted": restricted}


def _check(name: str, datasource) -> Check:
    template = RuleTemplate.objects.get(key="null_check")
    check = Check.objects.create(name=name, template=template, params={"src_datasource_id": datasource.pk})
    check.datasources.add(datasource)
    return check


def _result(check: Check, status: str, *, hours_ago: float = 1, strategy: str = "alert", statistic=2.0) -> Result:
    """A finished run of one check with one result, made `hours_ago` hours ago."""
    datasource = check.datasources.get()
    made = timezone.now() - timedelta(hours=hours_ago)
    version, _ = CheckVersion.objects.get_or_create(
        parent_check=check,
        number=1,
        defaults={
            "name": check.name,
            "template_key": "null_check",
            "template_version": 1,
            "params": {},
            "content_hash": "h",
        },
    )
    definitions = {"b1": {"datasource_id": datasource.pk, "datasource": datasource.name, "table": "shop.orders"}}
    run = Run.objects.create(
        biz_date=made.date(), data_time=made, rule_set_hash="x", status="failed", batches={"definitions": definitions}
    )
    run.check_versions.add(version)
    run.datasources.add(datasource)  # what the run read decides who may see it
    result = Result.objects.create(
        run=run,
        check_version=version,
        rule_check=check,
        batch="b1",
        status=status,
        statistic_name="null_count.nulls",
        statistics_value=statistic,
        comparison_value=0,
        check_type="statistics_minus_comparison",
        operator="le",
        threshold=0,
        failure_strategy=strategy,
        identity=f"id-{check.pk}",
        data_time=made,
    )
    Run.objects.filter(pk=run.pk).update(created_at=made)
    Result.objects.filter(pk=result.pk).update(created_at=made)
    result.refresh_from_db()
    return result


def test_the_summary_counts_checks_pass_rate_and_open_failures_of_the_last_24_hours(cast, api_as, sources):
    emails, ids, amounts, idle = (_check(n, sources["open"]) for n in ("emails", "ids", "amounts", "idle"))
    _result(emails, "fail", hours_ago=3, strategy="block")  # still open: its newest result failed
    _result(ids, "fail", hours_ago=5)
    _result(ids, "pass", hours_ago=2)  # a later pass closes the failure
    _result(amounts, "error", hours_ago=1)
    _result(amounts, "unknown", hours_ago=0.5)  # newest is unknown: not an open failure
    _result(idle, "fail", hours_ago=30)  # outside the window

    body = api_as(cast.author).get("/api/v1/results/summary/").json()

    assert (body["hours"], body["checks"], body["checks_run"], body["results"]) == (24, 4, 3, 5)
    assert (body["passed"], body["failed"], body["errors"], body["unknown"]) == (1, 2, 1, 1)
    assert body["pass_rate"] == 25.0  # 1 pass of 4 evaluated; unknown leaves the rate alone
    assert body["open_failures"] == 1 and body["blocking_failures"] == 1
    assert [(f["check_name"], f["status"], f["blocks"]) for f in body["failing_checks"]] == [("emails", "fail", True)]


def test_ran_in_the_window_counts_each_live_check_once_and_never_a_deleted_one(cast, api_as, sources):
    emails, ids, gone = (_check(n, sources["open"]) for n in ("emails", "ids", "gone"))
    for hours_ago in (1, 2, 3):  # three runs of one check: one check ran
        _result(emails, "pass", hours_ago=hours_ago)
    _result(gone, "fail", hours_ago=1)
    gone.soft_delete()
    # ids never ran. By hand: 2 live checks (emails, ids), of which 1 ran in the window.

    body = api_as(cast.author).get("/api/v1/results/summary/").json()

    assert (body["checks"], body["checks_run"]) == (2, 1)
    assert body["checks_run"] <= body["checks"]


def test_the_summary_window_can_be_widened_and_rejects_a_bad_number(cast, api_as, sources):
    _result(_check("idle", sources["open"]), "fail", hours_ago=30)
    client = api_as(cast.author)
    assert client.get("/api/v1/results/summary/?hours=48").json()["open_failures"] == 1
    response = client.get("/api/v1/results/summary/?hours=0")
    assert response.status_code == 400 and "hours" in response.json()["fields"]


def test_an_empty_installation_has_no_pass_rate(cast, api_as):
    body = api_as(cast.author).get("/api/v1/results/summary/").json()
    assert body["results"] == 0 and body["pass_rate"] is None and body["failing_checks"] == []


def test_latest_gives_the_newest_result_of_every_check(cast, api_as, sources):
    emails, ids = _check("emails", sources["open"]), _check("ids", sources["open"])
    _result(emails, "fail", hours_ago=5)
    newest = _result(emails, "pass", hours_ago=1)
    only = _result(ids, "error", hours_ago=2)
    body = api_as(cast.author).get("/api/v1/results/latest/").json()["results"]
    assert {(r["check"], r["result"], r["status"]) for r in body} == {
        (emails.pk, newest.pk, "pass"),
        (ids.pk, only.pk, "error"),
    }


def test_an_outsider_sees_nothing_of_a_datasource_kept_for_a_group(cast, api_as, sources):
    _result(_check("secret", sources["restricted"]), "fail")
    client = api_as(cast.outsider)
    summary = client.get("/api/v1/results/summary/").json()
    assert (summary["checks"], summary["results"], summary["open_failures"]) == (0, 0, 0)
    assert client.get("/api/v1/results/latest/").json()["results"] == []
    assert client.get("/api/v1/results/").json()["results"] == []
    assert api_as(cast.author).get("/api/v1/results/summary/").json()["open_failures"] == 1


def test_results_filter_by_datasource_and_say_where_they_looked(cast, api_as, sources):
    mine = _result(_check("emails", sources["open"]), "fail", strategy="block")
    _result(_check("secret", sources["restricted"]), "pass")
    body = api_as(cast.author).get(f"/api/v1/results/?datasource={sources['open'].pk}").json()["results"]
    assert [r["id"] for r in body] == [mine.pk]
    assert body[0]["datasource"] == {"id": sources["open"].pk, "name": "open"}
    assert body[0]["table"] == "shop.orders" and body[0]["blocks"] is True and body[0]["run_status"] == "failed"
    assert body[0]["check_name"] == "emails"  # the usual result fields stay
    # A result stored without its sentence gets it worded from its own numbers.
    assert body[0]["verdict"] == "Pass when actual − expected ≤ 0: 2 − 0 = 2 > 0 → fail"


def test_results_filter_by_date_range_and_keep_the_other_filters(cast, api_as, sources):
    check = _check("emails", sources["open"])
    old, recent = _result(check, "fail", hours_ago=24 * 5), _result(check, "pass", hours_ago=0)
    client = api_as(cast.author)
    today = timezone.localdate().isoformat()
    old_day = timezone.localdate(old.created_at).isoformat()
    assert [r["id"] for r in client.get(f"/api/v1/results/?since={today}").json()["results"]] == [recent.pk]
    until_that_day = client.get(f"/api/v1/results/?until={old_day}").json()["results"]  # that whole day
    assert [r["id"] for r in until_that_day] == [old.pk]
    since = (timezone.now() - timedelta(days=6)).isoformat()
    both = client.get("/api/v1/results/", {"since": since, "status": "fail"}).json()["results"]
    assert [r["id"] for r in both] == [old.pk]


@pytest.mark.parametrize(
    ("query", "field"), [("since=yesterday", "since"), ("until=2026-13-01", "until"), ("datasource=x", "datasource")]
)
def test_a_bad_results_filter_answers_400_naming_it(cast, api_as, query, field):
    response = api_as(cast.author).get(f"/api/v1/results/?{query}")
    assert response.status_code == 400 and field in response.json()["fields"]
