"""The anomaly detector on hand-made series: what it flags, what it learns from, and why."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from dq_engine.anomaly import ALGORITHM_VERSION, Point, Settings, judge

MONDAY = datetime(2026, 1, 5)
# Noise of ±1.5 % that repeats every 5 points: never in step with a week, so never seasonal.
WOBBLE = (0.0, 0.012, -0.008, 0.005, -0.015)
WEEK = {0: 1000, 1: 1000, 2: 1000, 3: 1000, 4: 1000, 5: 700, 6: 400}  # Saturday 700, Sunday 400


def daily(days: int, level=lambda day: 1000.0, start: datetime = MONDAY) -> list[Point]:
    return [
        Point(start + timedelta(days=i), level(start + timedelta(days=i)) * (1 + WOBBLE[i % 5]), id=i)
        for i in range(days)
    ]


def weekly(day: datetime) -> float:
    return WEEK[day.weekday()]


def test_a_sunday_dip_is_normal_and_a_tuesday_drop_of_the_same_size_is_an_anomaly():
    history = daily(35, weekly)  # five weeks, Monday 5 January to Sunday 8 February
    sunday, tuesday = MONDAY + timedelta(days=41), MONDAY + timedelta(days=36)
    assert (sunday.weekday(), tuesday.weekday()) == (6, 1)
    on_sunday = judge(history, sunday, 400)
    assert on_sunday.verdict == "pass" and on_sunday.seasonality == "day_of_week"
    on_tuesday = judge(history, tuesday, 400)  # 60 % below every Tuesday: far past the fail band
    assert on_tuesday.verdict == "fail" and on_tuesday.seasonality == "day_of_week"
    assert on_tuesday.fail[0] > 400 and on_tuesday.warn[0] > on_tuesday.fail[0]
    assert on_tuesday.version == ALGORITHM_VERSION == "anomaly-v1"


def test_without_seasonality_the_weekly_cycle_counts_as_noise_and_the_range_widens():
    history = daily(35, weekly)
    tuesday = MONDAY + timedelta(days=36)
    seasonal, plain = judge(history, tuesday, 1000), judge(history, tuesday, 1000, Settings(seasonality="none"))
    assert plain.seasonality == "none"
    width = lambda j: j.warn[1] - j.warn[0]  # noqa: E731
    assert width(plain) > 3 * width(seasonal)


def test_a_short_series_has_no_seasonality():
    history = daily(15, weekly)  # two weeks and a day: too short for a weekly cycle
    judged = judge(history, MONDAY + timedelta(days=15), 1000)
    assert judged.seasonality == "none" and judged.verdict == "pass"


def test_an_anomaly_is_left_out_of_training_unless_a_person_marked_it_expected():
    history = daily(28)
    spike = Point(MONDAY + timedelta(days=28), 1500, id="spike", anomaly="above")
    at = MONDAY + timedelta(days=29)
    left_out = judge([*history, spike], at, 1000)
    assert "spike" not in [p.id for p in left_out.used]
    assert ("spike", "anomaly") in [(p.id, why) for p, why in left_out.excluded]

    expected = Point(spike.time, spike.value, id="spike", anomaly="above", feedback="expected")
    learned = judge([*history, expected], at, 1000)
    assert "spike" in [p.id for p in learned.used] and len(learned.used) == 29
    assert learned.as_dict()["training"][-1] == {
        "id": "spike",
        "time": spike.time.isoformat(),
        "value": 1500,
        "feedback": "expected",
    }


def test_a_point_marked_incident_and_a_point_the_caller_excluded_stay_out_with_their_reason():
    history = daily(28)
    marked = Point(MONDAY + timedelta(days=28), 1001, id="marked", feedback="incident")
    backfill = Point(MONDAY + timedelta(days=29), 1002, id="backfill", excluded="backfill")
    judged = judge([*history, marked, backfill], MONDAY + timedelta(days=30), 1000)
    reasons = {p.id: why for p, why in judged.excluded}
    assert reasons == {"marked": "marked incident", "backfill": "backfill"}
    assert len(judged.used) == 28


def test_the_judged_point_and_later_ones_never_teach_it():
    history = daily(28)
    at = MONDAY + timedelta(days=20)
    judged = judge(history, at, 1000)
    assert [p.id for p in judged.used] == list(range(20))
    assert {why for _, why in judged.excluded} == {"not earlier than the judged point"}
    assert len(judged.excluded) == 8


def test_too_little_history_is_unknown_with_a_message():
    judged = judge(daily(3), MONDAY + timedelta(days=3), 5000)
    assert judged.verdict == "unknown" and judged.warn is None
    assert judged.message == "Too little history to judge: 3 of the 14 earlier normal points needed."
    assert judge(daily(3), MONDAY + timedelta(days=3), 5000, Settings(min_history=3)).verdict == "fail"


def test_no_statistic_is_unknown():
    assert judge(daily(28), MONDAY + timedelta(days=28), None).verdict == "unknown"


def test_a_near_constant_series_does_not_alarm_on_a_tiny_move():
    history = [Point(MONDAY + timedelta(days=i), 1_000_000 + (i % 2), id=i) for i in range(30)]
    at = MONDAY + timedelta(days=30)
    assert judge(history, at, 1_000_050).verdict == "pass"  # 0.005 %: noise on any scale that matters
    assert judge(history, at, 1_015_000).verdict == "pass"  # 1.5 %: under the 2 % smallest change
    assert judge(history, at, 1_100_000).verdict == "fail"  # 10 %


def test_a_change_below_the_smallest_change_is_never_an_anomaly():
    history = daily(28)
    at = MONDAY + timedelta(days=28)
    assert judge(history, at, 1150).verdict == "fail"
    assert judge(history, at, 1150, Settings(min_change_pct=20)).verdict == "pass"


@pytest.mark.parametrize(
    ("direction", "spike", "drop"),
    [("both", "fail", "fail"), ("up", "fail", "pass"), ("down", "pass", "fail")],
)
def test_the_direction_decides_which_side_is_an_anomaly(direction, spike, drop):
    history = daily(28)
    at = MONDAY + timedelta(days=28)
    settings = Settings(direction=direction)
    assert judge(history, at, 1500, settings).verdict == spike
    assert judge(history, at, 500, settings).verdict == drop
    bounds = judge(history, at, 1000, settings)
    assert (bounds.warn[0] is None) == (direction == "up") and (bounds.warn[1] is None) == (direction == "down")


def test_between_the_warn_and_the_fail_bounds_it_warns():
    history = daily(28)
    at = MONDAY + timedelta(days=28)
    bands = judge(history, at, 1000)
    (warn_low, warn_high), (fail_low, fail_high) = bands.warn, bands.fail
    assert fail_low < warn_low < 1000 < warn_high < fail_high
    assert judge(history, at, (warn_high + fail_high) / 2).verdict == "warn"
    assert judge(history, at, (warn_low + fail_low) / 2).verdict == "warn"
    assert judge(history, at, fail_high * 1.01).verdict == "fail"
    assert judge(history, at, warn_high).verdict == "pass"  # bounds included


def test_an_hourly_series_learns_the_hour_of_day():
    start = datetime(2026, 1, 5)
    level = {h: 100.0 if h < 6 else 1000.0 for h in range(24)}  # quiet nights
    history = [
        Point(start + timedelta(hours=i), level[(start + timedelta(hours=i)).hour] * (1 + WOBBLE[i % 5]), id=i)
        for i in range(24 * 5)
    ]
    night, day = start + timedelta(days=5, hours=3), start + timedelta(days=5, hours=14)
    assert judge(history, night, 100).verdict == "pass"
    quiet_afternoon = judge(history, day, 100)
    assert quiet_afternoon.verdict == "fail" and quiet_afternoon.seasonality == "hour_of_day"


def test_after_a_level_shift_the_detector_adapts_and_says_when_it_began():
    history = daily(28)
    moved = [
        Point(MONDAY + timedelta(days=28 + i), 1500 * (1 + WOBBLE[i % 5]), id=f"new{i}", anomaly="above")
        for i in range(3)
    ]
    at = MONDAY + timedelta(days=31)
    judged = judge([*history, *moved], at, 1500)
    assert judged.verdict == "pass" and judged.level_shift_at == moved[0].time
    assert {"new0", "new1", "new2"} <= {p.id for p in judged.used}
    # Two anomalies in a row are not yet a new level: they stay out, and 1500 is still one.
    still = judge([*history, *moved[:2]], MONDAY + timedelta(days=30), 1500)
    assert still.verdict == "fail" and still.level_shift_at is None


def test_a_person_can_keep_a_new_level_from_being_learned_by_marking_it_incident():
    history = daily(28)
    moved = [
        Point(MONDAY + timedelta(days=28 + i), 1500, id=f"new{i}", anomaly="above", feedback="incident")
        for i in range(3)
    ]
    judged = judge([*history, *moved], MONDAY + timedelta(days=31), 1500)
    assert judged.verdict == "fail" and judged.level_shift_at is None


def test_settings_that_cannot_work_are_named():
    assert Settings(k_warn=4, k_fail=3).problems() == {"k_fail": "At least the warn band's k, at most 100."}
    assert set(Settings(direction="sideways", seasonality="yearly", min_history=1).problems()) == {
        "direction",
        "seasonality",
        "min_history",
    }
