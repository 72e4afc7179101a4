"""The incidents list's rows, built from column values: the JSON `IncidentSerializer` gives for
each incident, without an incident, its check, mute, two results and three users as model
instances and a walk over the serializer's fields per row, which were most of the list's time.
Two queries per page besides the rows: the names of the datasources the page's checks read, and
the datasources the caller owns (who may handle an incident, watching/handling.py)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from datasources.models import Datasource
from dq_platform import api_times
from executions.scopes import scope_words
from executions.stored_words import reworded

from .handling import owned_among
from .models import Incident

# The columns each row is read from, in the order `listed` reads them.
COLUMNS = (
    "id",
    "rule_check_id",
    "rule_check__name",
    "rule_check__owner_id",
    "rule_check__params__src_table",
    "rule_check__params__src_datasource_id",
    "partition_key",
    "status",
    "severity",
    "assignee__username",
    "outcome",
    "blocking",
    "occurrences",
    "opened_at",
    "last_seen_at",
    "last_notified_at",
    "first_result_id",
    "last_result_id",
    "first_result__run_id",
    "last_result__run_id",
    "acknowledged_by__username",
    "acknowledged_at",
    "resolved_by__username",
    "resolved_at",
    "resolved_by_result_id",
    "resolution_note",
    "rule_check__mute__until",
    "rule_check__mute__muted_by__username",
    "rule_check__mute__reason",
)


def listed(incidents: QuerySet) -> QuerySet:
    """`incidents` (already filtered and ordered) as the tuples `rows` reads."""
    return incidents.values_list(*COLUMNS)


def rows(page, user) -> list[dict]:
    """The page's incidents as IncidentSerializer represents them, key for key and in its order."""
    moment = api_times.formatter()  # DRF's DateTimeField output
    now = timezone.now()
    page = [dict(zip(COLUMNS, values, strict=True)) for values in page]
    source_ids = {_id(c["rule_check__params__src_datasource_id"]) for c in page} - {None}
    names = dict(Datasource.objects.filter(pk__in=source_ids).values_list("pk", "name")) if source_ids else {}
    owned = owned_among(user, source_ids)
    answer = []
    for c in page:
        source = _id(c["rule_check__params__src_datasource_id"])
        muted_until = c["rule_check__mute__until"]
        muted = muted_until is not None and muted_until > now
        status = c["status"]
        answer.append(
            {
                "id": c["id"],
                "check": c["rule_check_id"],
                "check_name": c["rule_check__name"],
                "table": str(c["rule_check__params__src_table"] or ""),
                "datasource": names.get(source, ""),
                "partition_key": c["partition_key"],
                "partition": scope_words(c["partition_key"]),
                "status": status,
                "severity": c["severity"],
                "assignee": c["assignee__username"],
                "outcome": c["outcome"],
                "blocking": c["blocking"],
                "occurrences": c["occurrences"],
                "opened_at": moment(c["opened_at"]),
                "last_seen_at": moment(c["last_seen_at"]),
                "last_notified_at": moment(c["last_notified_at"]),
                "first_result": c["first_result_id"],
                "last_result": c["last_result_id"],
                "first_run": c["first_result__run_id"],
                "last_run": c["last_result__run_id"],
                "acknowledged_by": c["acknowledged_by__username"],
                "acknowledged_at": moment(c["acknowledged_at"]),
                "resolved_by": c["resolved_by__username"],
                "resolved_at": moment(c["resolved_at"]),
                "resolved_automatically": status == Incident.Status.RESOLVED and c["resolved_by_result_id"] is not None,
                "resolution_note": reworded(c["resolution_note"]),
                # IncidentSerializer.get_muted_until: the mute's own isoformat, not DRF's.
                "muted_until": muted_until.isoformat() if muted else None,
                "muted_by": c["rule_check__mute__muted_by__username"] if muted else None,
                "mute_reason": c["rule_check__mute__reason"] if muted else "",
                # watching.handling.may_handle, from the columns read here.
                "can_handle": user.is_staff
                or (c["rule_check__owner_id"] is not None and c["rule_check__owner_id"] == user.pk)
                or (source is not None and source in owned),
            }
        )
    return answer


def _id(value) -> int | None:
    """A datasource id as the check's params hold it (a JSON number; read back as text on some
    databases)."""
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None
