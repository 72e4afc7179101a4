"""What a dynamic range learns from: earlier, passing results of normal runs of the same scope
(the whole table, or the same partition for a per-partition baseline) — never the point it
judges, failures, errors, other partitions, released batches or a second result of one slot —
and the trend draws the range each point was judged against."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, time, timedelta

import pytest
from django.utils import timezone

from executions import history
from executions.models import Result, Run
from executions.recording import identity_of, record_results
from gates.models import Batch, Release
from rules.comparison_types import ComparisonSpec
from rules.models import Check

from .conftest import SCHEMA, create_check

pytestmark = pytest.mark.django_db

ORDERS = f"{SCHEMA}.orders"
RANGE_CHECK = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "last_7_runs_3_sigma",
}
START = date(2026, 11, 1)


@pytest.fixture
def daily_count(cast, api_as, shop) -> Check:
    check_id = create_check(
        api_as(cast.author), "orders per day", "table_count_check", src_datasource_id=shop.pk, src_table=ORDERS,
        **RANGE_CHECK,
    )  # fmt: skip
    return Check.objects.get(pk=check_id)


def judged(check: Check, day: int, value, partition=None, batch: Batch | None = None, rows: int = 100) -> Result:
    """A finished run of `check` for business day START + `day` that measured `value` ("error": the
    engine could not), on `partition` (None: the whole table), recorded as a worker records it."""
    version = check.current()
    biz_date = START + timedelta(days=day)
    definition = {"datasource_id": check.params["src_datasource_id"], "table": ORDERS, "filter": None}
    if partition:
        definition["partition"] = partition
    parameters = {"biz_date": biz_date.isoformat(), "schedule_type": "normal"}
    if batch is not None:
        parameters.update(batch_id=str(batch.pk), batch_attempt="1")
    run = Run.objects.create(
        status=Run.Status.RUNNING,
        biz_date=biz_date,
        data_time=datetime.combine(biz_date, time.min, tzinfo=UTC),
        parameters=parameters,
        batches={
            "definitions": {"b1": definition},
            "assignments": {str(version.pk): {"batch": "b1", "target_batch": None}},
        },
        rule_set_hash=version.content_hash,
    )
    run.check_versions.set([version])
    run.datasources.set([check.params["src_datasource_id"]])
    outcome = {"status": "error", "message": "The table could not be read."} if value == "error" else {
        "status": "ok", "statistic": value
    }  # fmt: skip
    record_results(run, {"checks": {str(version.pk): outcome}, "batches": {"b1": {"rows": rows}}})
    return run.results.get()


def released_batch(shop, day: int, user) -> Batch:
    batch = Batch.objects.create(
        datasource=shop, table=ORDERS, biz_date=START + timedelta(days=day), state=Batch.State.PUBLISHED
    )
    Release.objects.create(
        batch=batch,
        released_by=user,
        reason="needed for the board report",
        expires_at=timezone.now() + timedelta(days=1),
    )
    return batch


def test_a_range_learns_only_from_earlier_passing_whole_table_results_of_normal_runs(cast, api_as, shop, daily_count):
    series = {}
    for day, value in enumerate([100, 102, 98, 101], start=1):  # the range is still learning: unknown
        series[day] = judged(daily_count, day, value)
    assert {r.status for r in series.values()} == {"unknown"}
    series[5] = judged(daily_count, 5, 99)
    series[6] = judged(daily_count, 6, 250)  # an outlier
    series[7] = judged(daily_count, 7, "error")
    series[8] = judged(daily_count, 8, 103)
    norway = judged(daily_count, 8, 5, partition={"country": "NO"})
    released = judged(daily_count, 9, 97, batch=released_batch(shop, 9, cast.author))
    first_of_day_10 = judged(daily_count, 10, 100)
    series[10] = judged(daily_count, 10, 104)  # a second manual run of the same business day
    assert [series[d].status for d in (5, 6, 7, 8, 10)] == ["pass", "fail", "error", "pass", "pass"]

    today = judged(daily_count, 11, 0)

    # By hand: the 7 newest included values are days 10, 8, 5, 4, 3, 2, 1.
    included = [100, 102, 98, 101, 99, 103, 104]
    mean = 707 / 7  # 101
    sigma = math.sqrt(sum((v - 101) ** 2 for v in included) / 6)  # squares 1+1+9+0+4+4+9 = 28
    assert sigma == pytest.approx(2.1602, abs=1e-4)
    source = today.comparison_source
    assert source["expected_range"] == pytest.approx([mean - 3 * sigma, mean + 3 * sigma])
    assert [b["value"] for b in source["baseline"]] == included
    assert {(e["run"], e["category"]) for e in source["excluded"]} == {
        (first_of_day_10.run_id, "repeat of its slot"),
        (released.run_id, "released"),
        (series[7].run_id, "errored"),
        (series[6].run_id, "failed"),
        (norway.run_id, "partition-scoped"),
    }
    summary = (
        "learned from 7 of 12 earlier results: 1 repeat of its slot, 1 released, 1 errored, 1 failed, "
        "1 partition-scoped excluded"
    )
    assert today.details["baseline"] == {
        "used": 7,
        "considered": 12,
        "excluded": {"repeat of its slot": 1, "released": 1, "errored": 1, "failed": 1, "partition-scoped": 1},
        "sentence": summary,
    }
    assert today.status == "fail"
    assert today.verdict == (
        f"0 is below the expected range [{mean - 3 * sigma:,.2f}, {mean + 3 * sigma:,.2f}] from 7 normal runs "
        f"({summary}) → fail"
    )
    # The result view reads the verdict and the details from the results API.
    body = api_as(cast.author).get(f"/api/v1/runs/{today.run_id}/").json()
    (shown,) = body["results"]
    assert shown["verdict"] == today.verdict and shown["details"]["baseline"]["sentence"] == summary


def test_failed_partition_batches_never_widen_the_whole_tables_range_so_an_empty_day_still_fails(daily_count):
    """The reproduced case: a daily count, two partition batches that fail (113 and 109 rows),
    then a day with 0 rows. Before, the failures entered the baseline, the range widened to
    [−322.71, 1,371.28] and 0 passed."""
    values = [20, 21, 19, 20, 22, 18, 20]
    for day, value in enumerate(values, start=1):
        judged(daily_count, day, value)
    north = judged(daily_count, 8, 113, partition={"country": "NO"})
    denmark = judged(daily_count, 8, 109, partition={"country": "DK"})
    assert (north.status, denmark.status) == ("fail", "fail")  # far outside 20 ± 3σ

    empty_day = judged(daily_count, 9, 0, rows=0)
    mean = 140 / 7  # 20
    sigma = math.sqrt((0 + 1 + 1 + 0 + 4 + 4 + 0) / 6)  # deviations 0, 1, −1, 0, 2, −2, 0
    assert empty_day.comparison_source["expected_range"] == pytest.approx([mean - 3 * sigma, mean + 3 * sigma])
    assert empty_day.status == "fail"
    assert {e["category"] for e in empty_day.comparison_source["excluded"]} == {"partition-scoped"}


def test_the_trend_draws_the_range_each_point_was_judged_against(cast, api_as, daily_count):
    for day, value in enumerate([100, 102, 98, 101, 99, 250, 103, 0], start=1):
        judged(daily_count, day, value)
    points = api_as(cast.author).get(f"/api/v1/checks/{daily_count.pk}/history/").json()
    stored = {r.pk: r.comparison_source["expected_range"] for r in Result.objects.filter(rule_check=daily_count)}
    assert [p["status"] for p in points] == ["unknown"] * 4 + ["pass", "fail", "pass", "fail"]
    for point in points:
        band = point["passing_band"]
        if point["status"] == "unknown":
            assert band is None  # nothing was learned yet: no band
            continue
        assert [band["low"], band["high"]] == pytest.approx(stored[point["result"]]) and band["passes"] == "inside"
        inside = band["low"] <= point["statistics_value"] <= band["high"]
        assert inside == (point["status"] == "pass"), point
    # Day 6 (250) was judged against days 1–5 only: 100 ± 3 × 1.5811.
    sixth = points[5]
    assert [sixth["passing_band"]["low"], sixth["passing_band"]["high"]] == pytest.approx(
        [100 - 3 * math.sqrt(2.5), 100 + 3 * math.sqrt(2.5)]
    )


def test_a_per_partition_baseline_learns_only_from_its_own_partition(daily_count):
    spec = ComparisonSpec(
        key="per_country", source="range", window="last_3_runs", aggregation="sigma_2", batch="partition"
    )
    for day, (norway, denmark) in enumerate([(10, 500), (12, 510), (11, 490), (13, 505)], start=1):
        judged(daily_count, day, norway, partition={"country": "NO"})
        judged(daily_count, day, denmark, partition={"country": "DK"})
        judged(daily_count, day, 1000)  # the whole table
    version = daily_count.current()
    found, source = history.expected_range(
        spec, identity_of(version), "table_count.total", datetime(2026, 11, 6, tzinfo=UTC), scope='{"country":"NO"}'
    )
    # Days 4, 3, 2 of Norway: 13, 11, 12 → mean 12, σ = 1.
    assert found == pytest.approx((10.0, 14.0, 12.0))
    assert [b["value"] for b in source["baseline"]] == [12, 11, 13]
    assert {e["category"] for e in source["excluded"]} == {"other-partition"}


def test_a_daily_partition_is_one_slot_from_day_to_day():
    from executions.scopes import scope_key

    assert scope_key({"dt": "2026-11-29"}, "2026-11-29") == scope_key({"dt": "2026-11-30"}, "2026-11-30")
    assert scope_key({"dt": "2026-11-29", "country": "NO"}, "2026-11-29") == '{"country":"NO","dt":"${biz_date}"}'
    assert scope_key({}, "2026-11-29") == ""
