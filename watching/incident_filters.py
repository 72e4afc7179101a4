"""The incidents list's search, filters and order, read from the query string and applied in the
database (the list pages on the server). Every malformed parameter is named in one 400.

- `search`: part of the check's name, its table, the name of a datasource it reads, or the
  assignee's username (case-insensitive);
- `status` (comma-separated: open, acknowledged, resolved), `severity` (comma-separated:
  critical, high, medium, low), `assignee` (a user id, `me` or `none`), `datasource` (an id: the
  check reads it), `check` (an id);
- `ordering`: one of ORDERINGS, `-` first for the other way. Every order ends with the opened
  time and the id, so an incident keeps its place when it is acknowledged, assigned or resolved.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils.translation import gettext as _
from rest_framework.exceptions import ValidationError

from dq_platform.ids import as_id
from dq_platform.search import search_text
from rules.models import Check

from .models import Incident, Severity

# The orders a client may ask for, and the columns each sorts on first.
ORDERINGS = {
    "opened_at": ("opened_at",),
    "last_seen_at": ("last_seen_at",),
    "severity": ("severity_rank",),  # most severe first
    "status": ("status_rank",),  # open, acknowledged, resolved
    "check": ("rule_check__name",),
    "occurrences": ("occurrences",),
    "id": (),
}
DEFAULT_ORDERING = "-opened_at"


def _choices(params, name: str, allowed: list[str], problems: dict) -> list[str]:
    picked = [v.strip() for v in params.get(name, "").split(",") if v.strip()]
    unknown = [v for v in picked if v not in allowed]
    if unknown:
        problems[name] = [
            _("Unknown %(name)s %(items)s; use %(allowed)s.")
            % {"name": name, "items": ", ".join(unknown), "allowed": ", ".join(allowed)}
        ]
    return picked


def _id(params, name: str, problems: dict, words: tuple[str, ...] = ()) -> int | str | None:
    raw = params.get(name, "").strip()
    if not raw:
        return None
    if raw in words:
        return raw
    found = as_id(raw)
    if found is None:
        also = f" (or {' or '.join(words)})" if words else ""
        problems[name] = [
            _("`%(name)s` is an id%(also)s: a whole number from 1; got %(raw)s.")
            % {"name": name, "also": also, "raw": repr(raw)}
        ]
    return found


def order_of(params, problems: dict) -> list[str]:
    raw = params.get("ordering", "").strip() or DEFAULT_ORDERING
    descending = raw.startswith("-")
    key = raw.lstrip("-")
    if key not in ORDERINGS:
        allowed = ", ".join(ORDERINGS)
        problems["ordering"] = [
            _("Order by one of %(allowed)s (with - first for the other way); got %(raw)s.")
            % {"allowed": allowed, "raw": repr(raw)}
        ]
        return ["-opened_at", "-id"]
    first = [f"-{column}" if descending else column for column in ORDERINGS[key]]
    if key in ("opened_at", "id"):
        return [*first, "-id" if descending else "id"]
    return [*first, "-opened_at", "-id"]


def filter_incidents(incidents: QuerySet, params, user) -> QuerySet:
    """`incidents` (already the caller's visible ones) searched, filtered and ordered."""
    problems: dict[str, list[str]] = {}
    statuses = _choices(params, "status", Incident.Status.values, problems)
    severities = _choices(params, "severity", Severity.values, problems)
    assignee = _id(params, "assignee", problems, words=("me", "none"))
    datasource = _id(params, "datasource", problems)
    check = _id(params, "check", problems)
    try:
        search = search_text(params)
    except ValidationError as exc:
        problems.update(exc.detail)
        search = ""
    ordering = order_of(params, problems)
    if problems:
        raise ValidationError(problems)

    if statuses:
        incidents = incidents.filter(status__in=statuses)
    if severities:
        incidents = incidents.filter(severity__in=severities)
    if assignee == "me":
        incidents = incidents.filter(assignee_id=user.pk)
    elif assignee == "none":
        incidents = incidents.filter(assignee__isnull=True)
    elif assignee is not None:
        incidents = incidents.filter(assignee_id=assignee)
    if datasource is not None:
        reads = Check.datasources.through.objects.filter(check_id=OuterRef("rule_check_id"), datasource_id=datasource)
        incidents = incidents.filter(Exists(reads))
    if check is not None:
        incidents = incidents.filter(rule_check_id=check)
    if search:
        incidents = incidents.filter(_matching(search))
    return incidents.order_by(*ordering)


def _matching(search: str) -> Q:
    datasource_named = Check.datasources.through.objects.filter(
        check_id=OuterRef("rule_check_id"), datasource__name__icontains=search
    )
    return (
        Q(rule_check__name__icontains=search)
        | Q(rule_check__params__src_table__icontains=search)
        | Q(rule_check__params__target_table__icontains=search)
        | Q(assignee__username__icontains=search)
        | Exists(datasource_named)
    )
