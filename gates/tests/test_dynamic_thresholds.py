"""Dynamic thresholds: an expected range from a check's last normal runs, backfills, reruns and
the calendar's non-business days left out, with the evidence stored on the result."""

from __future__ import annotations

import statistics
from datetime import UTC, date, datetime, time, timedelta

import pytest

from executions.evaluation import evaluate_range
from executions.models import Result, Run
from executions.recording import record_results
from gates.models import NonBusinessDay
from rules.models import Check

from .conftest import SCHEMA, create_check, register, wait_for_outcome

ORDERS = f"{SCHEMA}.orders"
RANGE_CHECK = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "last_7_runs_3_sigma",
}
# (business date, row count, how it ran): two weeks of history before 2026-11-29.
HISTORY = [
    (date(2026, 11, 19), 40, "normal"),  # older than the 7 normal runs needed: not looked at
    (date(2026, 11, 20), 10, "normal"),
    (date(2026, 11, 21), 12, "normal"),
    (date(2026, 11, 22), 11, "normal"),
    (date(2026, 11, 23), 500, "backfill"),
    (date(2026, 11, 24), 10, "normal"),
    (date(2026, 11, 25), 900, "normal"),  # Thanksgiving, in the calendar
    (date(2026, 11, 26), 12, "normal"),
    (date(2026, 11, 27), 11, "normal"),
    (date(2026, 11, 27), 700, "rerun"),
    (date(2026, 11, 28), 10, "normal"),
]
NORMAL = [value for day, value, how in HISTORY if how == "normal" and day > date(2026, 11, 19) and day.day != 25]


def earlier_run(check: Check, day: date, value: float, how: str) -> Run:
    """A finished run of `check` on `day` that measured `value`, recorded as a worker records the
    engine's result document."""
    version = check.current()
    run = Run.objects.create(
        status=Run.Status.RUNNING,
        trigger=Run.Trigger.BACKFILL if how == "backfill" else Run.Trigger.API,
        biz_date=day,
        data_time=datetime.combine(day, time.min, tzinfo=UTC),
        parameters={"biz_date": day.isoformat(), "schedule_type": how},
        batches={"definitions": {}, "assignments": {str(version.pk): {"batch": "b1", "target_batch": None}}},
        rule_set_hash=version.content_hash,
    )
    run.check_versions.set([version])
    record_results(run, {"checks": {str(version.pk): {"status": "ok", "statistic": value}}, "batches": {}})
    return run


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_range_leaves_out_backfills_reruns_and_holidays_and_stores_its_evidence(
    cast, api_as, shop, celery_worker_process
):
    client = api_as(cast.author)
    check_id = create_check(client, "orders per day", "table_count_check", src_datasource_id=shop.pk,
                            src_table=ORDERS, **RANGE_CHECK)  # fmt: skip
    check = Check.objects.get(pk=check_id)
    NonBusinessDay.objects.create(date=date(2026, 11, 25), name="Thanksgiving")
    runs = {(day, how): earlier_run(check, day, value, how).pk for day, value, how in HISTORY}

    body = register(client, shop, ORDERS, partition={"dt": "2026-11-29"}, biz_date="2026-11-29")
    batch = wait_for_outcome(client, body["id"])
    result = batch["attempts"][0]["results"][0]
    evidence = result["comparison_source"]
    mean, spread = statistics.fmean(NORMAL), 3 * statistics.stdev(NORMAL)
    assert evidence["expected_range"] == pytest.approx([mean - spread, mean + spread])
    assert evidence["algorithm_version"] == "range-v1" and evidence["spread"] == "sigma_3"
    assert [b["biz_date"] for b in evidence["baseline"]] == [
        "2026-11-20", "2026-11-21", "2026-11-22", "2026-11-24", "2026-11-26", "2026-11-27", "2026-11-28",
    ]  # fmt: skip
    assert [b["value"] for b in evidence["baseline"]] == NORMAL
    assert {(e["run"], e["reason"]) for e in evidence["excluded"]} == {
        (runs[(date(2026, 11, 23), "backfill")], "backfill"),
        (runs[(date(2026, 11, 25), "normal")], "non-business day (Thanksgiving)"),
        (runs[(date(2026, 11, 27), "rerun")], "rerun"),
    }
    # The partition holds 3 rows: below the range, an alert check, so published with a warning.
    assert result["statistics_value"] == 3 and result["status"] == "fail"
    assert result["verdict"] == (
        f"3 is below the expected range [{mean - spread:,.2f}, {mean + spread:,.2f}] from 7 normal runs"
        " (learned from 7 of 10 earlier results: 1 rerun, 1 non-business day, 1 backfill excluded) → fail"
    )
    assert batch["state"] == "published" and batch["warnings"] == ["Check 'orders per day' failed (alert only)."]
    stored = Result.objects.get(pk=result["id"])
    assert stored.comparison_value == pytest.approx(mean) and stored.comparison_source == evidence


@pytest.mark.django_db
def test_too_few_normal_runs_make_the_result_unknown(cast, api_as, shop):
    check = Check.objects.get(
        pk=create_check(
            api_as(cast.author),
            "orders per day",
            "table_count_check",
            src_datasource_id=shop.pk,
            src_table=ORDERS,
            **RANGE_CHECK,
        )  # fmt: skip
    )
    for offset, value, how in ((3, 10, "normal"), (2, 11, "backfill"), (1, 12, "normal")):
        earlier_run(check, date(2026, 11, 29) - timedelta(days=offset), value, how)
    run = earlier_run(check, date(2026, 11, 29), 3, "normal")
    result = run.results.get()
    assert result.status == "unknown" and result.comparison_source["expected_range"] is None
    assert result.verdict == (
        "3: too few normal runs for an expected range (2 of the 4 needed)"
        " (learned from 2 of 3 earlier results: 1 backfill excluded) → unknown"
    )
    assert [e["reason"] for e in result.comparison_source["excluded"]] == ["backfill"]


def test_the_verdict_says_where_the_statistic_lies_with_grouped_numbers():
    below = evaluate_range(9_500_000, (9_650_000, 10_450_000), 7, "batches", 4)
    assert (below.status, below.sentence) == (
        "fail",
        "9,500,000 is below the expected range [9,650,000, 10,450,000] from 7 normal batches → fail",
    )
    assert evaluate_range(10_450_000, (9_650_000, 10_450_000), 7, "batches", 4).status == "pass"
    assert "is above" in evaluate_range(10_450_001, (9_650_000, 10_450_000), 7, "batches", 4).sentence
