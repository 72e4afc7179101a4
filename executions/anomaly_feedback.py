"""Feedback on anomaly detection's results, and a check's false-alarm rate.

`expected`: the anomaly was a false alarm. The check's unresolved incident for the result's scope
is resolved (when this result is its latest failure: a later failure that joined it is news of
its own), the point joins the detector's training from the next run on, and it counts as a false
alarm. `incident`: a real problem (or one the detector missed); the point stays out of training.

Who may give it: whoever may acknowledge or resolve the check's incidents (watching/handling.py:
the owners of the check's datasource, the check's owner, administrators).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from . import anomaly_judging
from .models import Result, ResultFeedback, Run
from .stored_words import MARKED_EXPECTED

EXPECTED, INCIDENT = ResultFeedback.Verdict.EXPECTED, ResultFeedback.Verdict.INCIDENT


class FeedbackRefused(Exception):
    """A request the result cannot take: field → messages, for a 400."""

    def __init__(self, fields: dict[str, list[str]]):
        super().__init__("; ".join(m for ms in fields.values() for m in ms))
        self.fields = fields


def may_give(user, result: Result) -> bool:
    from watching.handling import may_handle  # the incidents' rights; watching owns them

    return may_handle(user, result.rule_check)


def give(result: Result, verdict: str, user) -> dict[str, Any]:
    """Record `verdict` on `result` (replacing any earlier one); resolve the incident on `expected`."""
    if verdict not in (EXPECTED, INCIDENT):
        raise FeedbackRefused(
            {
                "verdict": [
                    _("Say %(expected)s (a false alarm) or %(incident)s (a real problem).")
                    % {"expected": repr(EXPECTED), "incident": repr(INCIDENT)}
                ]
            }
        )
    if not anomaly_judging.judged_by_anomaly(result):
        raise FeedbackRefused(
            {"verdict": [_("Feedback is for results judged by anomaly detection; this result was not.")]}
        )
    if result.statistics_value is None or result.comparison_source.get("verdict") == "unknown":
        raise FeedbackRefused({"verdict": ["Anomaly detection did not judge this result (it was still learning)."]})
    if verdict == EXPECTED and not anomaly_judging.anomaly_side(result):
        raise FeedbackRefused(
            {
                "verdict": [
                    _("Only an anomaly can be a false alarm; this result passed. Say 'incident' if it missed one.")
                ]
            }
        )
    from watching.models import Incident

    with transaction.atomic():
        ResultFeedback.objects.update_or_create(
            result=result,
            defaults={
                "rule_check_id": result.rule_check_id,
                "verdict": verdict,
                "given_by": user,
                "given_at": timezone.now(),
            },
        )
        resolved = None
        if verdict == EXPECTED:
            incident = (
                Incident.objects.unresolved()
                .filter(rule_check_id=result.rule_check_id, partition_key=result.partition_key, last_result=result)
                .first()
            )
            if incident and incident.resolve(user, note=MARKED_EXPECTED % {"result": result.pk}):
                resolved = incident.pk
    return {**state(result, user), "incident_resolved": resolved}


def state(result: Result, user) -> dict[str, Any]:
    """The result's feedback, whether `user` may give it, and the check's false-alarm rate."""
    feedback = ResultFeedback.objects.filter(result=result).select_related("given_by").first()
    return {
        "result": result.pk,
        "judged_by_anomaly_detection": anomaly_judging.judged_by_anomaly(result),
        "anomaly": bool(anomaly_judging.anomaly_side(result)),
        "feedback": {
            "verdict": feedback.verdict,
            "given_by": feedback.given_by.get_username() if feedback.given_by else None,
            "given_at": feedback.given_at.isoformat(),
        }
        if feedback
        else None,
        "may_give_feedback": may_give(user, result),
        "check": false_alarms(result.rule_check_id),
    }


def false_alarms(check_id: int) -> dict[str, Any]:
    """Anomalies judged (warn or fail by anomaly detection; backfills raise no alarm and do not
    count), how many of them people marked expected, and that share: the check's false-alarm
    rate (None before its first anomaly)."""
    anomalies = Result.objects.filter(
        rule_check_id=check_id, comparison_source__source=anomaly_judging.SOURCE, status=Result.Status.FAIL
    ).exclude(run__trigger=Run.Trigger.BACKFILL)
    judged = anomalies.count()
    expected = ResultFeedback.objects.filter(rule_check_id=check_id, verdict=EXPECTED, result__in=anomalies).count()
    incidents = ResultFeedback.objects.filter(rule_check_id=check_id, verdict=INCIDENT).count()
    return {
        "check": check_id,
        "anomalies_judged": judged,
        "marked_expected": expected,
        "marked_incident": incidents,
        "false_alarm_rate": round(expected / judged, 4) if judged else None,
    }
