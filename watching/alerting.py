"""After a run ends: incidents follow the results, and each channel gets at most one message for
the run. Called by `watching.tasks.alert_on_run` (enqueued when `executions` says a run finished),
so a channel or a bug here can never change the run's results, which are committed already."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone, translation

from executions.models import Result, Run

from .messages import Failure, run_message
from .models import AlertChannel, AlertedRun, CheckMute, Incident, IncidentChange, Notification, severity_of
from .stored_texts import FAILED_IN_RUN, IN_RUN, PASSED_AGAIN

log = logging.getLogger(__name__)

ALERT, RECOVERY = "alert", "recovery"
ALERTING_STATUSES = (Result.Status.FAIL, Result.Status.ERROR)


def alert_on_run(run_id: int) -> list[Notification]:
    """Update incidents from the run's results and queue one message per matching channel.
    A second call for the same run does nothing. Backfills (old business dates) and cancelled
    runs neither open nor close incidents."""
    run = Run.objects.get(pk=run_id)
    if run.status not in (Run.Status.PASSED, Run.Status.FAILED, Run.Status.ERROR, Run.Status.UNKNOWN):
        return []
    if run.trigger == Run.Trigger.BACKFILL:
        return []
    with transaction.atomic():
        try:
            with transaction.atomic():
                AlertedRun.objects.create(run=run)
        except IntegrityError:
            log.info("Run %s was already alerted on; nothing to do.", run_id)
            return []
        now = timezone.now()
        muted = CheckMute.muted_check_ids(now)
        failures: list[Failure] = []
        recoveries: list[Incident] = []
        for result in run.results.select_related("check_version", "rule_check").order_by("id"):
            change = track(result, now)
            if change is None or result.rule_check_id in muted:
                continue
            what, incident = change
            if what == ALERT:
                failures.append(Failure(result, incident))
            else:
                recoveries.append(incident)
        notifications = queue_messages(run, failures, recoveries, now)
    return notifications


def track(result: Result, now: datetime) -> tuple[str, Incident] | None:
    """Move the incident of the check and the result's partition on with this result; say whether
    people should hear of it. Only a pass of the same scope closes an incident: a partition
    passing is no news about the whole table or another partition. A check deleted meanwhile
    (its run was under way) opens nothing: its incidents were closed with it."""
    if result.rule_check.deleted_at is not None:
        return None
    incident = _unresolved_incident_of(result)
    if incident and incident.last_result_id > result.pk:
        return None  # a later result already moved this incident on (tasks ran out of order)
    if result.status in ALERTING_STATUSES:
        if incident is None:
            incident = _open(result, now)
            if incident is not None:
                return ALERT, incident
            incident = _unresolved_incident_of(result)  # another task opened it a moment ago
            if incident is None:
                return None
        return (ALERT, incident) if join(incident, result, now) else None
    if result.status == Result.Status.PASS and incident:
        told = incident.last_notified_at is not None
        incident.resolve(None, note=PASSED_AGAIN % {"run": result.run_id}, result=result)
        return (RECOVERY, incident) if told else None
    return None  # `unknown` (no history yet, an empty partition) neither opens nor closes an incident


def _unresolved_incident_of(result: Result) -> Incident | None:
    return (
        Incident.objects.unresolved()
        .filter(rule_check_id=result.rule_check_id, partition_key=result.partition_key)
        .first()
    )


def _open(result: Result, now: datetime) -> Incident | None:
    """A new incident for the result's check and partition, or None when one is open already: the
    database holds one unresolved incident per check and partition
    (`one_unresolved_incident_per_check_and_partition`), whoever opens it first."""
    try:
        with transaction.atomic():
            incident = Incident.objects.create(
                rule_check_id=result.rule_check_id,
                partition_key=result.partition_key,
                outcome=result.status,
                blocking=result.blocks,
                severity=severity_of(result.failure_strategy, result.status),
                first_result=result,
                last_result=result,
                opened_at=now,
                last_seen_at=now,
            )
    except IntegrityError:
        return None
    incident.record(None, IncidentChange.Field.STATUS, "", Incident.Status.OPEN, FAILED_IN_RUN % {"run": result.run_id})
    return incident


def join(incident: Incident, result: Result, now: datetime) -> bool:
    """A later failure joins the incident. It is said again only when the blocking state changed,
    or (while nobody has acknowledged it) DQ_REALERT_AFTER has passed since it was last said."""
    blocking_changed = incident.blocking != result.blocks
    realert_after = timedelta(seconds=settings.DQ_REALERT_AFTER)
    due = incident.status == Incident.Status.OPEN and (
        incident.last_notified_at is None or now - incident.last_notified_at >= realert_after
    )
    incident.last_result = result
    incident.occurrences += 1
    incident.last_seen_at = now
    incident.outcome = result.status
    incident.blocking = result.blocks
    fields = ["last_result", "occurrences", "last_seen_at", "outcome", "blocking"]
    severity = severity_of(result.failure_strategy, result.status)
    if not incident.severity_chosen and severity != incident.severity:
        # Follows the latest failure until a person sets it.
        incident.record(
            None, IncidentChange.Field.SEVERITY, incident.severity, severity, IN_RUN % {"run": result.run_id}
        )
        incident.severity = severity
        fields.append("severity")
    incident.save(update_fields=fields)
    return blocking_changed or due


def queue_messages(run: Run, failures: list[Failure], recoveries: list[Incident], now: datetime) -> list[Notification]:
    """One Notification per channel that wants any of it (the task enqueues their deliveries)."""
    if not failures and not recoveries:
        return []
    created: list[Notification] = []
    told: set[int] = set()
    for channel in AlertChannel.objects.prefetch_related("checks", "datasources"):
        mine = [f for f in failures if f.result.status in channel.notify_on and channel.covers(f.result.rule_check)]
        back = [i for i in recoveries if "recovery" in channel.notify_on and channel.covers(i.rule_check)]
        if not mine and not back:
            continue
        with translation.override(channel.language):  # the channel's readers' language
            message = run_message(run, mine, back)
        notification = Notification.objects.create(
            channel=channel,
            channel_name=channel.name,
            channel_kind=channel.kind,
            run=run,
            subject=message.subject[:300],
            body=message.text,
            payload=message.payload,
        )
        notification.incidents.set([f.incident for f in mine] + back)
        told.update(f.incident.pk for f in mine)
        created.append(notification)
    Incident.objects.filter(pk__in=told).update(last_notified_at=now)
    return created
