"""The incidents of the checks in scope (`Incident.objects.visible_to`): how many are unresolved
now, and how fast people answered those opened in the window — the median time from opening to
acknowledgement, and from opening to resolution. The median, so one incident left open over a
holiday does not stand for all of them."""

from __future__ import annotations

from datetime import timedelta
from statistics import median

from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from watching.models import Incident

DEFINITION = gettext_noop(
    "median time from an incident's opening to its acknowledgement, and to its resolution, "
    "over the incidents opened in the window"
)
LISTED = 10


def _median_seconds(spans: list[timedelta]) -> float | None:
    return round(median(span.total_seconds() for span in spans), 1) if spans else None


def incidents_of(user, check_ids: list[int], names: dict[int, str], days: int) -> dict:
    incidents = Incident.objects.visible_to(user).filter(rule_check_id__in=check_ids)
    unresolved = list(
        incidents.unresolved()
        .order_by("status_rank", "-opened_at", "-id")
        .values("id", "rule_check_id", "status", "outcome", "blocking", "opened_at", "partition_key")
    )
    since = timezone.now() - timedelta(days=days)
    opened = list(incidents.filter(opened_at__gte=since).values_list("opened_at", "acknowledged_at", "resolved_at"))
    to_acknowledge = [ack - at for at, ack, _ in opened if ack is not None]
    to_resolve = [done - at for at, _, done in opened if done is not None]
    return {
        "definition": gettext(DEFINITION),
        "statistic": "median",
        "window_days": days,
        "open": sum(1 for i in unresolved if i["status"] == Incident.Status.OPEN),
        "acknowledged": sum(1 for i in unresolved if i["status"] == Incident.Status.ACKNOWLEDGED),
        "opened_in_window": len(opened),
        "acknowledged_in_window": len(to_acknowledge),
        "resolved_in_window": len(to_resolve),
        "median_seconds_to_acknowledge": _median_seconds(to_acknowledge),
        "median_seconds_to_resolve": _median_seconds(to_resolve),
        "unresolved": [{**i, "check_name": names.get(i["rule_check_id"], "")} for i in unresolved[:LISTED]],
    }
