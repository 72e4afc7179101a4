"""History comparison types aggregate earlier, non-backfill statistics of the same check
identity in a window on business time, as their fields say, and record the runs they used."""

from datetime import UTC, date, datetime

import pytest

from executions.history import baseline
from executions.models import Result, Run, StatisticValue
from rules.comparison_types import ComparisonSpec, Window, window_bounds
from rules.models import ComparisonType

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 11, 26, 15, 0, tzinfo=UTC)  # a Thursday


def _type(key: str) -> ComparisonSpec:
    return ComparisonSpec.of(ComparisonType.objects.get(key=key))


@pytest.mark.parametrize(
    ("key", "start", "end"),
    [
        ("daily_avg", datetime(2026, 11, 26, tzinfo=UTC), datetime(2026, 11, 27, tzinfo=UTC)),
        ("weekly_avg", datetime(2026, 11, 23, tzinfo=UTC), datetime(2026, 11, 26, tzinfo=UTC)),
        ("monthly_avg", datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 26, tzinfo=UTC)),
        ("last_7_day_avg", datetime(2026, 11, 19, tzinfo=UTC), datetime(2026, 11, 26, tzinfo=UTC)),
        ("last_30_day_avg", datetime(2026, 10, 27, tzinfo=UTC), datetime(2026, 11, 26, tzinfo=UTC)),
    ],
)
def test_each_builtin_window_is_anchored_on_the_business_day(key, start, end):
    assert _type(key).window_on(NOW) == Window(start, end)


def test_counted_windows_take_any_number_of_days_or_runs():
    assert window_bounds("last_14_days", NOW) == Window(
        datetime(2026, 11, 12, tzinfo=UTC), datetime(2026, 11, 26, tzinfo=UTC)
    )
    assert window_bounds("last_3_runs", NOW) == Window(None, datetime(2026, 11, 26, tzinfo=UTC), latest=3)


def _statistic(identity, value, when, backfill=False, name="null_count.nulls", partition_key=""):
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
        partition_key=partition_key,
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
    value, source = baseline(_type("last_7_day_avg"), "id-1", "null_count.nulls", NOW)
    assert value == 15
    assert source["baseline_runs"] == sorted(r.pk for r in inside) and source["values"] == 2


def test_daily_average_uses_earlier_runs_of_the_same_day_but_never_the_run_itself():
    earlier = _statistic("id-1", 4, datetime(2026, 11, 26, 8, tzinfo=UTC))
    itself = _statistic("id-1", 100, NOW)
    value, source = baseline(_type("daily_avg"), "id-1", "null_count.nulls", NOW, exclude_run_id=itself.pk)
    assert value == 4 and source["baseline_runs"] == [earlier.pk]


def test_no_history_gives_no_value():
    value, source = baseline(_type("monthly_avg"), "id-1", "null_count.nulls", NOW)
    assert value is None and source["baseline_runs"] == []
    assert date.fromisoformat(source["window"]["start"][:10]) == date(2026, 11, 1)


def _history(values_by_day: dict[int, float]) -> dict[int, Run]:
    return {
        day: _statistic("id-1", value, datetime(2026, 11, day, 9, tzinfo=UTC)) for day, value in values_by_day.items()
    }


@pytest.mark.parametrize(
    ("aggregation", "expected"),
    [("avg", 19 / 3), ("median", 7), ("min", 2), ("max", 10), ("last", 10)],
)
def test_the_aggregation_field_decides_how_the_window_becomes_one_value(aggregation, expected):
    _history({13: 7, 20: 2, 25: 10, 11: 1000})  # the 11th lies outside the 14 days before the 26th
    spec = ComparisonSpec(key="mine", source="history", window="last_14_days", aggregation=aggregation)
    value, source = baseline(spec, "id-1", "null_count.nulls", NOW)
    assert value == pytest.approx(expected)
    assert source["values"] == 3 and source["aggregation"] == aggregation


def test_a_runs_window_takes_the_newest_values_before_the_business_day():
    runs = _history({3: 100, 20: 4, 24: 6, 25: 8, 26: 1000})  # the 26th is the business day itself
    spec = ComparisonSpec(key="mine", source="history", window="last_3_runs", aggregation="avg")
    value, source = baseline(spec, "id-1", "null_count.nulls", NOW)
    assert value == 6
    assert source["baseline_runs"] == sorted(runs[d].pk for d in (20, 24, 25))
    assert source["window"] == {"start": None, "end": "2026-11-26T00:00:00+00:00", "latest": 3}


def test_a_whole_table_count_is_averaged_over_whole_table_counts_and_a_partitions_over_its_own():
    # Daily row counts of the table, and two registered batches of one partition in between.
    whole = [_statistic("id-1", v, datetime(2026, 11, d, 9, tzinfo=UTC)) for v, d in ((1000, 20), (1100, 22))]
    region = '{"region":"eu"}'
    eu = [
        _statistic("id-1", v, datetime(2026, 11, d, 10, tzinfo=UTC), partition_key=region)
        for v, d in ((113, 21), (109, 23))
    ]

    value, source = baseline(_type("last_7_day_avg"), "id-1", "null_count.nulls", NOW)
    assert value == 1050 and source["baseline_runs"] == sorted(r.pk for r in whole) and source["scope"] == ""

    value, source = baseline(_type("last_7_day_avg"), "id-1", "null_count.nulls", NOW, scope=region)
    assert value == 111 and source["baseline_runs"] == sorted(r.pk for r in eu)
