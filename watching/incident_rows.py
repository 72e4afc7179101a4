"""The incidents list's rows, built from column values: the JSON `IncidentSerializer` gives for
each incident, without an incident, its check, mute, two results and two users as model
instances and a walk over the serializer's fields per row, which were most of the list's time."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from dq_platform import api_times
from executions.scopes import scope_words

from .models import Incident

# The order of the values each row is read as (see `rows`).
COLUMNS = (
    "id",
    "rule_check_id",
    "rule_check__name",
    "partition_key",
    "status",
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
)


def listed(incidents: QuerySet) -> QuerySet:
    """`incidents` (already filtered and ordered) as the tuples `rows` reads."""
    return incidents.values_list(*COLUMNS)


def rows(page) -> list[dict]:
    """The page's incidents as IncidentSerializer represents them, key for key and in its order."""
    moment = api_times.formatter()  # DRF's DateTimeField output
    now = timezone.now()
    answer = []
    for (
        pk,
        check,
        check_name,
        partition_key,
        status,
        outcome,
        blocking,
        occurrences,
        opened_at,
        last_seen_at,
        last_notified_at,
        first_result,
        last_result,
        first_run,
        last_run,
        acknowledged_by,
        acknowledged_at,
        resolved_by,
        resolved_at,
        resolved_by_result,
        resolution_note,
        muted_until,
    ) in page:
        answer.append(
            {
                "id": pk,
                "check": check,
                "check_name": check_name,
                "partition_key": partition_key,
                "partition": scope_words(partition_key),
                "status": status,
                "outcome": outcome,
                "blocking": blocking,
                "occurrences": occurrences,
                "opened_at": moment(opened_at),
                "last_seen_at": moment(last_seen_at),
                "last_notified_at": moment(last_notified_at),
                "first_result": first_result,
                "last_result": last_result,
                "first_run": first_run,
                "last_run": last_run,
                "acknowledged_by": acknowledged_by,
                "acknowledged_at": moment(acknowledged_at),
                "resolved_by": resolved_by,
                "resolved_at": moment(resolved_at),
                "resolved_automatically": status == Incident.Status.RESOLVED and resolved_by_result is not None,
                "resolution_note": resolution_note,
                # IncidentSerializer.get_muted_until: the mute's own isoformat, not DRF's.
                "muted_until": muted_until.isoformat() if muted_until is not None and muted_until > now else None,
            }
        )
    return answer
