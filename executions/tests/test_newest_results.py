"""The newest result of each check, as `latest=true` lists it and the dashboard summary counts it
(`ResultQuerySet.newest_of_each_check`): asked check by check along an index, it must answer what
grouping every readable result by check answers. The truth here is worked out in Python from
the results the test made, for each user, window and status filter."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from executions.models import Result, Run
from executions.tests.test_dashboard import _check
from rules.models import CheckVersion

pytestmark = pytest.mark.django_db


@pytest.fixture
def sources(make_datasource, cast):
    """`open` is readable by everyone; `restricted` only by the analysts group (the author)."""
    common = {"type": "postgresql", "host": "127.0.0.1", "port": 5432, "database": "x", "username": "u"}
    restricted = make_datasource(name="restricted", allowed_groups=[cast.analysts], **common)
    return {"open": make_datasource(name="open", **common), "restricted": restricted}


def _recorded(check, datasource, status: str, hours_ago: float, strategy: str = "alert") -> Result:
    """One finished run that read `datasource` (whatever the check reads now), with one result of
    `check`, made `hours_ago` hours ago: ids and times need not grow together."""
    made = timezone.now() - timedelta(hours=hours_ago)
    version, _ = CheckVersion.objects.get_or_create(
        parent_check=check,
        number=1,
        defaults={"name": check.name, "template_key": "null_check", "template_version": 1, "params": {}},
    )
    definitions = {"b1": {"datasource_id": datasource.pk, "datasource": datasource.name, "table": "shop.orders"}}
    run = Run.objects.create(
        biz_date=made.date(), data_time=made, rule_set_hash="x", status="failed", batches={"definitions": definitions}
    )
    run.check_versions.add(version)
    run.datasources.add(datasource)
    result = Result.objects.create(
        run=run,
        check_version=version,
        rule_check=check,
        batch="b1",
        status=status,
        statistic_name="null_count.nulls",
        statistics_value=1.0,
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
    result.read = datasource.name
    return result


def _listed(client, **query) -> list[int]:
    body = client.get("/api/v1/results/", {"latest": "true", "page_size": 500, **query}).json()
    assert "results" in body, body
    return [row["id"] for row in body["results"]]


def _newest(results, readable: set[str], since=None, until=None, statuses=None) -> list[Result]:
    """The truth: per check, the highest id among the results the reader may see in the range;
    then the status filter; newest first as the list orders them."""
    newest: dict[int, Result] = {}
    for r in results:
        if r.read not in readable or (since and r.created_at < since) or (until and r.created_at >= until):
            continue
        if r.rule_check_id not in newest or r.id > newest[r.rule_check_id].id:
            newest[r.rule_check_id] = r
    kept = [r for r in newest.values() if statuses is None or r.status in statuses]
    return sorted(kept, key=lambda r: (r.created_at, r.id), reverse=True)


def test_a_newer_result_the_reader_may_not_see_leaves_them_the_newest_they_may(cast, api_as, sources):
    moved = _check("moved to the restricted datasource", sources["restricted"])
    older = _recorded(moved, sources["open"], "fail", hours_ago=3)
    newer = _recorded(moved, sources["restricted"], "pass", hours_ago=1)

    assert _listed(api_as(cast.outsider)) == [older.pk]
    assert _listed(api_as(cast.author)) == [newer.pk]
    assert api_as(cast.outsider).get("/api/v1/results/summary/").json()["open_failures"] == 1
    assert api_as(cast.author).get("/api/v1/results/summary/").json()["open_failures"] == 0


def test_a_check_deleted_since_keeps_its_newest_result_in_the_list(cast, api_as, sources):
    gone = _check("deleted since", sources["open"])
    _recorded(gone, sources["open"], "pass", hours_ago=5)
    last = _recorded(gone, sources["open"], "fail", hours_ago=2)
    gone.deleted_at = timezone.now()
    gone.save(update_fields=["deleted_at"])

    assert _listed(api_as(cast.outsider)) == [last.pk]
    assert api_as(cast.outsider).get("/api/v1/results/summary/").json()["open_failures"] == 1


def test_a_window_keeps_the_newest_result_inside_it_not_the_newest_of_all(cast, api_as, sources):
    check = _check("emails", sources["open"])
    early = _recorded(check, sources["open"], "fail", hours_ago=30)
    middle = _recorded(check, sources["open"], "pass", hours_ago=20)
    _recorded(check, sources["open"], "error", hours_ago=2)
    client = api_as(cast.outsider)
    until = (timezone.now() - timedelta(hours=10)).isoformat()
    since = (timezone.now() - timedelta(hours=25)).isoformat()

    assert _listed(client, until=until) == [middle.pk]
    assert _listed(client, until=(timezone.now() - timedelta(hours=25)).isoformat()) == [early.pk]
    assert _listed(client, since=since, until=until) == [middle.pk]


def test_the_list_and_the_summary_answer_what_grouping_every_readable_result_would(cast, api_as, sources):
    rng = random.Random(20261204)
    checks = [_check(f"check {n}", sources["open"]) for n in range(6)]
    made = [
        _recorded(
            rng.choice(checks),
            sources[rng.choice(["open", "restricted"])],
            rng.choice(["pass", "fail", "error", "unknown"]),
            hours_ago=rng.uniform(0, 48),  # out of id order: ids and creation times disagree
            strategy=rng.choice(["alert", "block"]),
        )
        for _ in range(80)
    ]
    checks[0].deleted_at = timezone.now()
    checks[0].save(update_fields=["deleted_at"])
    now = timezone.now()
    readers = {cast.admin: {"open", "restricted"}, cast.author: {"open", "restricted"}, cast.outsider: {"open"}}

    for user, readable in readers.items():
        client = api_as(user)
        for hours in (6, 24, 40):
            since, until = now - timedelta(hours=hours), now - timedelta(hours=hours / 3)
            for query, expected in (
                ({}, _newest(made, readable)),
                ({"since": since.isoformat()}, _newest(made, readable, since=since)),
                ({"until": until.isoformat()}, _newest(made, readable, until=until)),
                (
                    {"since": since.isoformat(), "status": "fail,error"},
                    _newest(made, readable, since=since, statuses={"fail", "error"}),
                ),
            ):
                assert _listed(client, **query) == [r.pk for r in expected], (user.username, query)

            summary = client.get("/api/v1/results/summary/", {"hours": hours}).json()
            window = [r for r in made if r.read in readable and r.created_at >= parse_datetime(summary["since"])]
            newest = _newest(made, readable, since=parse_datetime(summary["since"]))
            failing = [r for r in newest if r.status in ("fail", "error")]
            listed = sorted(failing, key=lambda r: (r.failure_strategy != "block", -r.id))[:10]
            assert summary["results"] == len(window)
            assert summary["failed"] == sum(r.status == "fail" for r in window)
            # Checks that ran: each once, and not the deleted one (checks[0]).
            assert summary["checks_run"] == len({r.rule_check_id for r in window} - {checks[0].pk})
            assert summary["open_failures"] == len(failing)
            assert summary["blocking_failures"] == sum(r.failure_strategy == "block" for r in failing)
            assert [item["result"] for item in summary["failing_checks"]] == [r.pk for r in listed]
            assert summary["runs"] == len(window)  # one run per result here
