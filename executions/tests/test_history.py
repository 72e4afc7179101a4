"""History comparison types average earlier, non-backfill statistics of the same check identity,
windowed on business time, and record the runs they used."""

from datetime import UTC, date, datetime

import pytest

from executions.history import baseline, window
from executions.models import Result, Run, StatisticValue

pytestmark = pytest.mark.django_db
UTC = UTC
NOW = datetime(2026, 11, 26, 15, 0, tzinfo=UTC)  # a Thursday


@pytest.mark.parametrize(
    ("kind", "start", "end"),
    [
        ("daily_avg", datetime(2026, 11, 26, tzinfo=UTC), datetime(2026, 11, 27, tzinfo=UTC)),
        ("weekly_avg", datetime(2026, 11, 23, tzinfo=UTC), datetime(2026, 11, 26, tzinfo=UTC)),
        ("monthly_avg", datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 26, tzinfo=UTC)),
        ("last_7_day_avg", datetime(2026, 11, 19, tzinfo=UTC), datetime(2026, 11, 26, tzinfo=UTC)),
        ("last_30_day_avg", datetime(2026, 10, 27, tzinfo=UTC), datetime(2026, 11, 26, tzinfo=UTC)),
    ],
)
def test_each_window_is_anchored_on_the_business_day(kind, start, end):
    assert window(kind, NOW) == (start, end)


def _statistic(identity, value, when, backfill=False, name="null_count.nulls"):
    run = Run.objects.create(biz_date=when.date(), data_time=when, rule_set_hash="x")
    from rules.models import Check, CheckVersion, RuleTemplate

    template = RuleTemplate.objects.get(key="table_count_check")
    check = Check.objects.create(name=f"c{run.pk}", template=template, params={})
    version = CheckVersion.objects.create(
        parent_check=check,
        number=1,
        name="c",
        template_key=template.key,
        template_version=1,
        params={},
        content_hash="h",
    )
    result = Result.objects.create(
        run=run,
        check_version=version,
        rule_check=check,
        batch="b1",
        status="pass",
        statistic_name=name,
        statistics_value=value,
        check_type="statistics_minus_comparison",
        operator="le",
        threshold=0,
        failure_strategy="alert",
        identity=identity,
        data_time=when,
    )
    StatisticValue.objects.create(
        identity=identity, statistic_name=name, value=value, data_time=when, backfill=backfill, run=run, result=result
    )
    return run


def test_last_7_days_averages_only_that_window_and_lists_the_runs():
    inside = [_statistic("id-1", v, datetime(2026, 11, d, 9, tzinfo=UTC)) for v, d in ((10, 19), (20, 25))]
    _statistic("id-1", 1000, datetime(2026, 11, 18, 23, tzinfo=UTC))  # a day too early
    _statistic("id-1", 1000, datetime(2026, 11, 26, 1, tzinfo=UTC))  # the business day itself
    _statistic("id-2", 1000, datetime(2026, 11, 24, tzinfo=UTC))  # another check
    _statistic("id-1", 1000, datetime(2026, 11, 24, tzinfo=UTC), backfill=True)  # backfills don't count
    _statistic("id-1", 1000, datetime(2026, 11, 24, tzinfo=UTC), name="other.stat")
    value, source = baseline("last_7_day_avg", "id-1", "null_count.nulls", NOW)
    assert value == 15
    assert source["baseline_runs"] == sorted(r.pk for r in inside) and source["values"] == 2


def test_daily_average_uses_earlier_runs_of_the_same_day_but_never_the_run_itself():
    earlier = _statistic("id-1", 4, datetime(2026, 11, 26, 8, tzinfo=UTC))
    itself = _statistic("id-1", 100, NOW)
    value, source = baseline("daily_avg", "id-1", "null_count.nulls", NOW, exclude_run_id=itself.pk)
    assert value == 4 and source["baseline_runs"] == [earlier.pk]


def test_no_history_gives_no_value():
    value, source = baseline("monthly_avg", "id-1", "null_count.nulls", NOW)
    assert value is None and source["baseline_runs"] == []
    assert date.fromisoformat(source["window"]["start"][:10]) == date(2026, 11, 1)
