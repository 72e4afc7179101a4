"""A score's trend: for each of the last N days (in the platform's time zone, TIME_ZONE), the score
computed from each check's latest result *as of that day's end* — the result a person opening the
page at midnight would have seen. A check without any result by then is left out of that day;
the checks are today's (a deleted check counts on no day, a new one from its first result on)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from django.utils import timezone
from django.utils.translation import gettext_noop

from executions.models import Result

from .scores import Tally

DEFINITION = gettext_noop(
    "each day's score is computed from each check's latest result as of that day's end "
    "(passed ÷ (passed + failed) × 100); a check with no result yet by then is left out"
)


def day_end(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day + timedelta(days=1), time.min))


def daily_scores(user, check_ids: list[int], days: int = 30, today: date | None = None) -> list[dict]:
    today = today or timezone.localdate()
    first = today - timedelta(days=days - 1)
    start = timezone.make_aware(datetime.combine(first, time.min))
    state: dict[int, str] = {}
    points = []
    if check_ids:
        readable = Result.objects.visible_to(user).filter(rule_check_id__in=check_ids)
        # Where each check stood when the window opened: its newest result before it.
        before = readable.filter(created_at__lt=start).newest_of_each_check()
        state.update(before.values_list("rule_check_id", "status"))
        changes = list(
            readable.filter(created_at__gte=start, created_at__lt=day_end(today))
            .order_by("created_at", "id")
            .values_list("rule_check_id", "status", "created_at")
        )
    else:
        changes = []
    position = 0
    for offset in range(days):
        day = first + timedelta(days=offset)
        end = day_end(day)
        while position < len(changes) and changes[position][2] < end:
            check_id, status, _ = changes[position]
            state[check_id] = status
            position += 1
        tally = Tally()
        for status in state.values():
            tally.add(status)
        counts = tally.as_dict()
        del counts["never_run"], counts["checks"]
        points.append({"date": day.isoformat(), **counts})
    return points
