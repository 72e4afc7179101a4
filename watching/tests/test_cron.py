"""Cron expressions: what is refused (and why), the slots they fire at in a timezone, in words."""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from watching import cron

SHANGHAI = ZoneInfo("Asia/Shanghai")


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("", "required"),
        ("0 2 * *", "five fields"),
        ("61 2 * * *", "minute (0-59) field `61`"),
        ("0 25 * * *", "hour (0-23) field `25`"),
        ("0 2 * * 7", "day of the week"),
        ("0 2 32 * *", "day of the month"),
        ("0 2 * foo *", "month"),
        ("0 2 1 * mon", "either the day of the month or the day of the week"),
        ("0 0 31 2 *", "never fires"),
        ("0 0 30 feb *", "never fires"),
    ],
)
def test_it_refuses_a_bad_cron_and_says_which_field(expression, words):
    with pytest.raises(cron.CronInvalid, match=None) as caught:
        cron.parse(expression)
    assert words in str(caught.value)


def test_it_refuses_an_unknown_timezone_with_an_example():
    with pytest.raises(cron.CronInvalid, match="Asia/Shanghai"):
        cron.zone("Mars/Olympus")


def test_the_next_slots_are_on_the_wall_clock_of_the_schedules_timezone():
    slots = cron.parse("0 2 * * *").next_slots(datetime(2026, 11, 29, 17, 30, tzinfo=UTC), SHANGHAI, 3)
    # 17:30 UTC is 01:30 in Shanghai on the 30th: the next 02:00 there is half an hour away.
    assert [s.isoformat() for s in slots] == [
        "2026-11-30T02:00:00+08:00",
        "2026-12-01T02:00:00+08:00",
        "2026-12-02T02:00:00+08:00",
    ]


def test_weekday_names_and_steps_fire_when_expected():
    weekdays = cron.parse("30 6 * * mon-fri").next_slots(datetime(2026, 11, 27, 12, tzinfo=UTC), ZoneInfo("UTC"), 3)
    assert [s.strftime("%a %H:%M") for s in weekdays] == ["Mon 06:30", "Tue 06:30", "Wed 06:30"]
    quarter = cron.parse("*/15 * * * *").next_slots(datetime(2026, 11, 27, 12, 1, tzinfo=UTC), ZoneInfo("UTC"), 2)
    assert [s.strftime("%H:%M") for s in quarter] == ["12:15", "12:30"]


def test_the_latest_slot_is_bounded_by_the_time_it_may_not_precede():
    daily = cron.parse("0 2 * * *")
    at = datetime(2026, 11, 30, 3, 0, tzinfo=SHANGHAI)
    assert daily.latest_slot(at, SHANGHAI, datetime(2026, 11, 1, tzinfo=UTC)) == datetime(
        2026, 11, 30, 2, 0, tzinfo=SHANGHAI
    )
    assert daily.latest_slot(at, SHANGHAI, datetime(2026, 11, 30, 2, 30, tzinfo=SHANGHAI)) is None


def test_a_wall_clock_time_skipped_by_daylight_saving_fires_right_after_the_gap():
    berlin = ZoneInfo("Europe/Berlin")
    (slot,) = cron.parse("30 2 29 3 *").next_slots(datetime(2026, 3, 28, tzinfo=UTC), berlin, 1)
    assert slot.astimezone(UTC) == datetime(2026, 3, 29, 1, 30, tzinfo=UTC)  # 03:30 CEST


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("0 2 * * *", "every day at 02:00 Asia/Shanghai"),
        ("30 6 * * 1-5", "every weekday (Monday to Friday) at 06:30 Asia/Shanghai"),
        ("0 9 * * mon", "every Monday at 09:00 Asia/Shanghai"),
        ("0 3 1 * *", "on day 1 of every month at 03:00 Asia/Shanghai"),
        ("* * * * *", "every minute (Asia/Shanghai)"),
        ("*/15 * * * *", "every 15 minutes (Asia/Shanghai)"),
        ("@hourly", "every hour at minute 0 (Asia/Shanghai)"),
        ("0 */2 * * *", "every 2 hours (Asia/Shanghai)"),
    ],
)
def test_a_cron_reads_in_words_with_its_timezone(expression, words):
    assert cron.describe(cron.parse(expression), "Asia/Shanghai") == words
