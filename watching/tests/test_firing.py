"""Firing schedules (watching.firing, what the beat task calls): one run per slot with trigger
`schedule` and the slot's business date; the missed-slot policy; pausing."""

from datetime import UTC, date, datetime, timedelta

import pytest

from executions.models import Run
from watching.firing import fire, fire_due_schedules
from watching.models import Schedule

pytestmark = pytest.mark.django_db

# 2026-11-29 18:00 UTC is 02:00 on the 30th in Shanghai.
SLOT = datetime(2026, 11, 29, 18, 0, tzinfo=UTC)


@pytest.fixture
def nightly(cast, make_check):
    check = make_check("statuses present")
    schedule = Schedule.objects.create(
        name="nightly",
        cron="0 2 * * *",
        timezone="Asia/Shanghai",
        owner=cast.author,
        biz_date_offset_days=-1,
        armed_at=SLOT - timedelta(days=10),
    )
    schedule.checks.set([check])
    return schedule


def test_a_due_slot_starts_one_run_with_trigger_schedule_and_the_slots_business_date(nightly):
    (run,) = fire_due_schedules(now=SLOT + timedelta(seconds=5))
    assert run.trigger == Run.Trigger.SCHEDULE and run.status == Run.Status.QUEUED
    assert run.biz_date == date(2026, 11, 29)  # the slot's date in Shanghai (30th) minus one day
    assert run.idempotency_key == f"schedule:{nightly.pk}:2026-11-30T02:00:00+08:00"
    assert run.created_by.username == "author"
    nightly.refresh_from_db()
    assert nightly.last_slot == SLOT and nightly.last_run == run
    assert fire_due_schedules(now=SLOT + timedelta(seconds=20)) == []  # the next tick: nothing new


def test_two_beats_firing_the_same_slot_start_one_run(nightly):
    first, second = fire(nightly, SLOT), fire(Schedule.objects.get(pk=nightly.pk), SLOT)
    assert first.pk == second.pk and Run.objects.count() == 1


def test_only_the_latest_slot_missed_while_beat_was_down_runs_once(nightly):
    nightly.last_slot = SLOT - timedelta(days=3)
    nightly.save()
    runs = fire_due_schedules(now=SLOT + timedelta(hours=5))  # beat was down for three nights
    assert [r.biz_date for r in runs] == [date(2026, 11, 29)]
    assert fire_due_schedules(now=SLOT + timedelta(hours=6)) == []
    assert Run.objects.count() == 1


def test_a_paused_schedule_fires_nothing_and_does_not_catch_up_when_resumed(nightly):
    nightly.enabled = False
    nightly.save()
    assert fire_due_schedules(now=SLOT + timedelta(seconds=5)) == []
    nightly.enabled = True
    nightly.save()  # resumed now (real time), long after SLOT
    assert fire_due_schedules(now=SLOT + timedelta(seconds=10)) == []
    assert Run.objects.count() == 0


def test_a_schedule_whose_checks_are_all_deleted_starts_no_run_and_says_why(nightly):
    for check in nightly.checks.all():
        check.soft_delete()
    assert fire_due_schedules(now=SLOT + timedelta(seconds=5)) == []
    nightly.refresh_from_db()
    assert nightly.last_slot == SLOT and "none of the schedule's checks exists" in nightly.last_message
