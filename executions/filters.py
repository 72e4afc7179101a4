"""The query filters of the runs and results lists, applied in the database.

Every filter reads one query parameter strictly and answers 400 naming it when it is malformed,
so the browser's filtered lists (and the dashboard's links to them) and API clients get the same
rows, page by page (dq_platform/pagination.py pages what these return).

- runs: `status` (one or several, comma-separated), `check`, `since`, `until`, `search` (a run's
  number, a name among its checks, or who started it);
- checks (for rules/views.py): `last_status`, the status of a check's newest result, or `never`;
- results: `status`, `check`, `run`, `datasource`, `since`, `until`, and two the dashboard's
  counts link to: `latest=true` (only the newest result of each check among those in range, the
  way the summary counts open failures) and `blocks=true|false`.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _
from rest_framework.exceptions import ValidationError

from dq_platform.ids import as_id
from dq_platform.search import search_text

from .models import Result, Run

TRUE, FALSE = ("1", "true", "yes"), ("0", "false", "no")


def whole_number(params, name: str) -> int | None:
    raw = params.get(name, "")
    if raw == "":
        return None
    found = as_id(raw)
    if found is None:
        raise ValidationError({name: [_("An id (a whole number from 1); got %(raw)s.") % {"raw": repr(raw)}]})
    return found


def choices(params, name: str, allowed: list[str]) -> list[str]:
    """`status=fail,error` → ["fail", "error"]; an unknown value names the allowed ones."""
    raw = params.get(name, "")
    picked = [value.strip() for value in raw.split(",") if value.strip()]
    unknown = [value for value in picked if value not in allowed]
    if unknown:
        raise ValidationError(
            {
                name: [
                    _("Unknown %(name)s %(items)s; use %(allowed)s.")
                    % {"name": name, "items": ", ".join(map(repr, unknown)), "allowed": ", ".join(allowed)}
                ]
            }
        )
    return picked


def flag(params, name: str) -> bool | None:
    raw = params.get(name, "").strip().lower()
    if raw == "":
        return None
    if raw not in TRUE + FALSE:
        raise ValidationError({name: [_("true or false; got %(raw)s.") % {"raw": repr(raw)}]})
    return raw in TRUE


def moment(params, name: str, end_of_day: bool) -> datetime | None:
    """`2026-11-30` (a whole day in the server's time zone) or an ISO date-time with its offset."""
    raw = params.get(name, "")
    if raw == "":
        return None
    try:
        # parse_datetime alone would read a bare date as its midnight, which loses "that whole day".
        day = parse_date(raw) if len(raw) == 10 else None
        when = (
            datetime.combine(day + timedelta(days=1) if end_of_day else day, time.min) if day else parse_datetime(raw)
        )
    except ValueError:
        when = None
    if when is None:
        raise ValidationError(
            {name: [_("Use YYYY-MM-DD or an ISO date-time (2026-11-30T08:00:00Z); got %(raw)s.") % {"raw": repr(raw)}]}
        )
    return timezone.make_aware(when) if timezone.is_naive(when) else when


def _created_between(rows: QuerySet, params) -> QuerySet:
    since, until = moment(params, "since", end_of_day=False), moment(params, "until", end_of_day=True)
    if since:
        rows = rows.filter(created_at__gte=since)
    if until:
        # A bare date includes that whole day; a date-time is the exclusive end.
        rows = rows.filter(created_at__lt=until)
    return rows


def filter_runs(runs: QuerySet, params) -> QuerySet:
    statuses = choices(params, "status", Run.Status.values)
    if statuses:
        runs = runs.filter(status__in=statuses)
    check = whole_number(params, "check")
    if check is not None:
        # A subquery rather than a join, so no distinct(): that made every page and every count
        # compare whole rows, JSON columns included.
        ran = Run.check_versions.through.objects.filter(checkversion__parent_check_id=check).values("run_id")
        runs = runs.filter(pk__in=ran)
    text = search_text(params)
    if text:
        runs = runs.filter(_run_matches(text))
    return _created_between(runs, params)


def _run_matches(text: str) -> Q:
    """A run whose number is `text` (`123` or `#123`), one of whose checks (by the name the run
    froze) contains it, or whose author's name does. Subqueries, not joins: no duplicate rows."""
    named = Run.check_versions.through.objects.filter(checkversion__name__icontains=text).values("run_id")
    wanted = Q(pk__in=named) | Q(created_by__username__icontains=text)
    number = as_id(text.removeprefix("#"))
    if number is not None:
        wanted |= Q(pk=number)
    return wanted


def filter_results(results: QuerySet, params) -> QuerySet:
    for name, field in (("check", "rule_check_id"), ("run", "run_id"), ("datasource", "run__datasources")):
        value = whole_number(params, name)
        if value is not None:
            results = results.filter(**{field: value})  # datasource: one its run read, whatever the check reads now
    results = _created_between(results, params)
    if flag(params, "latest"):
        # Before the status filter: "the newest result is a failure", not "the newest failure".
        results = results.newest_of_each_check()
    statuses = choices(params, "status", Result.Status.values)
    if statuses:
        results = results.filter(status__in=statuses)
    blocks = flag(params, "blocks")
    if blocks is not None:
        blocking = Q(failure_strategy="block", status__in=[Result.Status.FAIL, Result.Status.ERROR])
        results = results.filter(blocking if blocks else ~blocking)
    return results


def filter_checks_by_last_result(checks: QuerySet, params, visible_runs: QuerySet) -> QuerySet:
    """`last_status=fail,error` or `never`: on the newest result among runs the caller may see."""
    statuses = choices(params, "last_status", [*Result.Status.values, "never"])
    if not statuses:
        return checks
    newest = Result.objects.filter(rule_check=OuterRef("pk"), run__in=visible_runs).order_by("-id").values("status")
    wanted = Q(last_status__in=[s for s in statuses if s != "never"])
    if "never" in statuses:
        wanted |= Q(last_status__isnull=True)
    return checks.annotate(last_status=Subquery(newest[:1])).filter(wanted)
