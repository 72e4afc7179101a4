"""Cron expressions of schedules: parsing, the slots they fire at, and the words for them.

Fields are read by Celery's own crontab parser (the five standard fields, names such as `mon` or
`jan`, ranges, lists and steps), so a schedule accepts what a Celery user expects. Slots are
computed here, on the wall clock of the schedule's timezone, because `watching.tasks.fire_due_schedules`
needs the exact slot a firing belongs to (the run's business date and idempotency key come from it),
which beat does not tell a task.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from celery.schedules import crontab
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

FIELDS = ("minute", "hour", "day_of_month", "month_of_year", "day_of_week")
FIELD_WORDS = {
    "minute": gettext_lazy("minute (0-59)"),
    "hour": gettext_lazy("hour (0-23)"),
    "day_of_month": gettext_lazy("day of the month (1-31)"),
    "month_of_year": gettext_lazy("month (1-12 or jan-dec)"),
    "day_of_week": gettext_lazy("day of the week (0-6, Sunday is 0, or sun-sat)"),
}
MACROS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
# How far ahead a cron must fire at least once (29 February needs up to eight years).
HORIZON_DAYS = 366 * 8
WEEKDAY_NAMES = (
    gettext_noop("Sunday"),
    gettext_noop("Monday"),
    gettext_noop("Tuesday"),
    gettext_noop("Wednesday"),
    gettext_noop("Thursday"),
    gettext_noop("Friday"),
    gettext_noop("Saturday"),
)


class CronInvalid(ValueError):
    """The expression cannot be used; the message says which field and how to fix it."""


@dataclass(frozen=True)
class Cron:
    expression: str
    fields: tuple[str, ...]
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    days_of_month: frozenset[int]
    months: frozenset[int]
    days_of_week: frozenset[int]  # 0 = Sunday, as in cron and Celery

    def matches_day(self, day: date) -> bool:
        return (
            day.month in self.months and day.day in self.days_of_month and (day.isoweekday() % 7) in self.days_of_week
        )

    def next_slots(self, after: datetime, tz: ZoneInfo, count: int = 5) -> list[datetime]:
        """The next `count` firing times strictly after `after`, aware, in `tz`."""
        local = after.astimezone(tz)
        found: list[datetime] = []
        for offset in range(HORIZON_DAYS):
            day = local.date() + timedelta(days=offset)
            for slot in self._slots_of(day, tz):
                if slot > after and slot not in found:
                    found.append(slot)
                    if len(found) == count:
                        return found
        return found

    def latest_slot(self, at: datetime, tz: ZoneInfo, not_before: datetime) -> datetime | None:
        """The last firing time in [not_before, at], or None. Bounded by `not_before` so a tick
        that runs every few seconds looks at a few minutes, not years."""
        local_day = at.astimezone(tz).date()
        first_day = not_before.astimezone(tz).date() - timedelta(days=1)
        day = local_day
        while day >= first_day:
            for slot in reversed(self._slots_of(day, tz)):
                if not_before <= slot <= at:
                    return slot
            day -= timedelta(days=1)
        return None

    def _slots_of(self, day: date, tz: ZoneInfo) -> list[datetime]:
        if not self.matches_day(day):
            return []
        slots = []
        for hour in self.hours:
            for minute in self.minutes:
                # A wall-clock time skipped by a DST change maps to the instant after the gap;
                # the round trip through UTC gives it the offset it really has.
                wall = datetime.combine(day, time(hour, minute), tzinfo=tz)
                slots.append(wall.astimezone(ZoneInfo("UTC")).astimezone(tz))
        return sorted(set(slots))


def parse(expression: str) -> Cron:
    """A validated Cron, or CronInvalid naming the field that is wrong."""
    text = " ".join(str(expression or "").split())
    if not text:
        raise CronInvalid(_("A cron expression is required, e.g. `0 2 * * *` for every day at 02:00."))
    text = MACROS.get(text.lower(), text)
    parts = tuple(text.split(" "))
    if len(parts) != 5:
        raise CronInvalid(
            _(
                "A cron expression has five fields (minute hour day-of-month month day-of-week), got %(count)s: "
                "e.g. `0 2 * * *` for every day at 02:00."
            )
            % {"count": len(parts)}
        )
    values = dict(zip(FIELDS, parts, strict=True))
    try:
        parsed = crontab(**values)
    except (ValueError, TypeError) as exc:
        raise CronInvalid(_which_field(values, exc)) from None
    if values["day_of_month"] != "*" and values["day_of_week"] != "*":
        raise CronInvalid(
            _(
                "Restrict either the day of the month or the day of the week, not both: classic cron "
                "fires when either matches, Celery when both do, so the meaning would be unclear."
            )
        )
    cron = Cron(
        expression=text,
        fields=parts,
        minutes=tuple(sorted(parsed.minute)),
        hours=tuple(sorted(parsed.hour)),
        days_of_month=frozenset(parsed.day_of_month),
        months=frozenset(parsed.month_of_year),
        days_of_week=frozenset(parsed.day_of_week),
    )
    if not cron.next_slots(datetime(2000, 1, 1, tzinfo=ZoneInfo("UTC")), ZoneInfo("UTC"), count=1):
        raise CronInvalid(
            _("`%(cron)s` never fires (no such day in any year): check the day and the month.") % {"cron": text}
        )
    return cron


def _which_field(values: dict[str, str], exc: Exception) -> str:
    for name, raw in values.items():
        try:
            crontab(**{name: raw})
        except (ValueError, TypeError) as field_exc:
            return _("The %(field)s field `%(value)s` is not valid: %(problem)s") % {
                "field": FIELD_WORDS[name],
                "value": raw,
                "problem": field_exc,
            }
    return _("The cron expression never fires or is not valid (%(problem)s): check the day and the month.") % {
        "problem": exc
    }


def zone(name: str) -> ZoneInfo:
    """The IANA timezone `name`, or CronInvalid with a hint."""
    if not name or name not in available_timezones():
        raise CronInvalid(
            _("Unknown timezone %(name)s: use an IANA name such as `Asia/Shanghai`, `Europe/Berlin` or `UTC`.")
            % {"name": repr(name)}
        )
    try:
        return ZoneInfo(name)
    except ZoneInfoNotFoundError:  # listed but not loadable: a broken tzdata install
        raise CronInvalid(_("The timezone %(name)s cannot be loaded on this server.") % {"name": repr(name)}) from None


def describe(cron: Cron, timezone_name: str) -> str:
    """The schedule in words: "every day at 02:00 Asia/Shanghai". Common shapes are said plainly;
    anything else is cron-descriptor's reading, with the timezone added."""
    minute, hour, dom, month, dow = cron.fields
    times = _times_words(cron)
    zone_name = {"zone": timezone_name}
    if times is not None and month == "*":
        if dom == "*" and dow == "*":
            return _("every day at %(times)s %(zone)s") % {"times": times, **zone_name}
        if dom == "*":
            return _("every %(days)s at %(times)s %(zone)s") % {
                "days": _weekdays_words(cron),
                "times": times,
                **zone_name,
            }
        if dow == "*" and len(cron.days_of_month) == 1:
            day = next(iter(cron.days_of_month))
            return _("on day %(day)s of every month at %(times)s %(zone)s") % {"day": day, "times": times, **zone_name}
    if (hour, dom, month, dow) == ("*", "*", "*", "*"):
        if minute == "*":
            return _("every minute (%(zone)s)") % zone_name
        if minute.startswith("*/"):
            return _("every %(count)s minutes (%(zone)s)") % {"count": minute[2:], **zone_name}
        if len(cron.minutes) == 1:
            return _("every hour at minute %(minute)s (%(zone)s)") % {"minute": cron.minutes[0], **zone_name}
    return _("%(description)s (%(zone)s)") % {"description": _cron_descriptor(cron.expression), **zone_name}


def _and(items: list[str]) -> str:
    """ "a, b and c" in the active language."""
    if len(items) == 1:
        return items[0]
    return _("%(items)s and %(last)s") % {"items": _(", ").join(items[:-1]), "last": items[-1]}


def _times_words(cron: Cron) -> str | None:
    if len(cron.hours) * len(cron.minutes) > 4:
        return None
    return _and([f"{h:02d}:{m:02d}" for h in cron.hours for m in cron.minutes])


def _weekdays_words(cron: Cron) -> str:
    days = sorted(cron.days_of_week)
    if days == [1, 2, 3, 4, 5]:
        return _("weekday (Monday to Friday)")
    if days == [0, 6]:
        return _("Saturday and Sunday")
    return _and([_(WEEKDAY_NAMES[d]) for d in days])


def _cron_descriptor(expression: str) -> str:
    from cron_descriptor import ExpressionDescriptor, Options

    options = Options()
    options.use_24hour_time_format = True
    if translation.get_language() == "zh-hans":
        options.locale_code = "zh_CN"
    text = ExpressionDescriptor(expression, options).get_description()
    return text[:1].lower() + text[1:]
