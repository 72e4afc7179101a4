"""Runs compute what each check version says, on the real engine (in-process Spark): the template
version it was saved with, the comparison type's own fields, a datasource saved without a port.

Each run goes the worker's way minus the broker: claim, build the job, launch the engine, record."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from conftest import PG, PROBE_PASSWORD, PROBE_USER
from datasources.models import Datasource
from executions.jobs import build_job
from executions.launcher import launch
from executions.models import Result, Run, StatisticValue
from executions.recording import identity_of, record_results
from executions.starting import start_run
from rules.models import Check, CheckVersion, ComparisonType, RuleTemplate

pytestmark = pytest.mark.django_db
CHECKS = "/api/v1/checks/"
VERDICT = {
    "check_type": "statistics_minus_comparison",
    "operator": "le",
    "threshold": 0,
    "failure_strategy": "alert",
    "comparison_type": "fix_value",
    "comparison_value": 0,
}


@pytest.fixture(autouse=True)
def _error_rows_in_tmp(settings, tmp_path):
    settings.DQ_ERROR_DATA_ROOT = tmp_path / "error-data"


@pytest.fixture
def lake(parquet_dir):
    """orders: order_id 1..3, status paid / NULL / void, amount 1.5 / 2.0 / NULL."""
    return Datasource.objects.create(name="lake", type="file", format="parquet", path=str(parquet_dir))


def run_now(check_ids: list[int], user, biz_date: date | None = None) -> Run:
    run, _ = start_run(list(Check.objects.filter(pk__in=check_ids)), user, biz_date=biz_date)
    assert Run.claim(run.pk, run.attempt)
    record_results(run, launch(build_job(run)))
    run.refresh_from_db()
    return run


def create_check(client, name: str, template: str, **params) -> int:
    response = client.post(CHECKS, {"name": name, "template": template, "params": params}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def test_a_template_edited_after_a_check_was_saved_leaves_the_old_versions_statistic_unchanged(cast, api_as, lake):
    client = api_as(cast.author)
    check = create_check(
        client,
        "statuses present",
        "null_check",
        src_datasource_id=lake.pk,
        src_table="orders",
        src_field="status",
        **VERDICT,
    )
    template = RuleTemplate.objects.get(key="null_check")
    template.rule_json = {  # an admin turns the template into a row count
        **template.rule_json,
        "statistic_name": "rows.total",
        "metric": {"kind": "row_count"},
        "comparison_types": ["fix_value", "daily_avg"],
    }
    template.save()

    before = run_now([check], cast.author).results.get()
    assert (before.statistic_name, before.statistics_value, before.status) == ("null_count.nulls", 1, "fail")

    plan = client.get(f"{CHECKS}{check}/upgrade/").json()
    assert (plan["from"], plan["to"]) == (1, 2)
    assert {"path": "rule_json.metric.kind", "before": "conditional_count", "after": "row_count"}.items() <= next(
        c for c in plan["changes"] if c["path"] == "rule_json.metric.kind"
    ).items()
    assert client.post(f"{CHECKS}{check}/upgrade/").status_code == 200

    after = run_now([check], cast.author).results.get()
    assert (after.statistic_name, after.statistics_value) == ("rows.total", 3)
    assert after.check_version.number == 2 and before.check_version.number == 1


def _earlier_statistic(version: CheckVersion, statistic_name: str, value: float, when: datetime, backfill=False):
    """A statistic an earlier run of the same check recorded (the history a comparison reads)."""
    run = Run.objects.create(biz_date=when.date(), data_time=when, rule_set_hash="earlier", status="passed")
    result = Result.objects.create(
        run=run,
        check_version=version,
        rule_check_id=version.parent_check_id,
        batch="b1",
        status="pass",
        statistic_name=statistic_name,
        statistics_value=value,
        check_type="statistics_minus_comparison",
        operator="le",
        threshold=0,
        failure_strategy="alert",
        identity=identity_of(version),
        data_time=when,
    )
    StatisticValue.objects.create(
        identity=identity_of(version),
        statistic_name=statistic_name,
        value=value,
        data_time=when,
        backfill=backfill,
        run=run,
        result=result,
    )
    return run


def test_an_admin_added_comparison_type_computes_its_baseline_in_a_run_without_code(cast, api_as, lake):
    ComparisonType.objects.create(
        key="last_14_day_median",
        name="Last 14 days median",
        source="history",
        window="last_14_days",
        aggregation="median",
    )
    template = RuleTemplate.objects.get(key="table_count_check")
    template.rule_json = {
        **template.rule_json,
        "comparison_types": [*template.allowed_comparison_types(), "last_14_day_median"],
    }
    template.save()
    client = api_as(cast.author)
    params = {**VERDICT, "comparison_type": "last_14_day_median", "operator": "ge"}
    params.pop("comparison_value")
    check = create_check(
        client, "enough orders", "table_count_check", src_datasource_id=lake.pk, src_table="orders", **params
    )
    version = CheckVersion.objects.get(parent_check_id=check)
    biz_date = date(2026, 11, 20)
    day = lambda n: datetime.combine(biz_date - timedelta(days=n), datetime.min.time(), tzinfo=UTC)  # noqa: E731
    used = [_earlier_statistic(version, "table_count.total", v, day(n)) for v, n in ((10, 1), (2, 3), (7, 13))]
    _earlier_statistic(version, "table_count.total", 1000, day(15))  # before the window
    _earlier_statistic(version, "table_count.total", 999, day(2), backfill=True)  # backfills never count

    result = run_now([check], cast.author, biz_date=biz_date).results.get()
    assert result.statistics_value == 3 and result.comparison_value == 7  # the median, not the average (6.33)
    assert result.comparison_source["baseline_runs"] == sorted(r.pk for r in used)
    assert result.comparison_source["aggregation"] == "median" and result.comparison_source["source"] == "history"
    assert result.status == "fail"  # 3 − 7 = −4, and it must be ≥ 0


def test_a_run_reads_a_postgresql_datasource_saved_without_a_port(cast, api_as, pg_server):
    if PG["port"] != 5432:
        pytest.skip("The PostgreSQL test server does not listen on 5432, the default port this test relies on.")
    datasource = Datasource(
        name="no-port", type="postgresql", host=PG["host"], database=PG["dbname"], username=PROBE_USER
    )
    datasource.password = PROBE_PASSWORD
    datasource.save()
    assert Datasource.objects.get(pk=datasource.pk).port == 5432
    client = api_as(cast.author)
    check = create_check(
        client,
        "emails present",
        "null_check",
        src_datasource_id=datasource.pk,
        src_table="dq_test.orders",
        src_field="customer_email",
        **VERDICT,
    )
    run = run_now([check], cast.author)
    result = run.results.get()
    assert (result.status, result.statistics_value, result.message) == ("fail", 2, "")
    assert run.status == "failed"
