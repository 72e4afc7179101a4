"""Reporting a finished run to every enabled integration, and delivering each report: one attempt
per call, each recorded; the Celery task (`integrations.tasks.deliver`) retries transient
failures with the alerts' backoff (DQ_NOTIFY_ATTEMPTS, DQ_NOTIFY_BACKOFF). Nothing here runs in
the run's worker or can change the run: its results are committed before any of this starts."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from datasources.crypto import SecretDecryptionError
from executions.models import Result, Run
from watching.channels import TransportError

# The alerts' outcomes and backoff, so that alerts and reports retry alike (tasks.py uses backoff_seconds).
from watching.delivery import FAILED, RETRY, SENT, SKIPPED, backoff_seconds  # noqa: F401

from . import dagster, openlineage
from .models import Delivery, Integration
from .sending import post_json
from .sources import sources_of

log = logging.getLogger(__name__)
REPORTED_RUNS = (Run.Status.PASSED, Run.Status.FAILED, Run.Status.ERROR, Run.Status.UNKNOWN)


def report_run(run_id: int) -> list[int]:
    """Queue the reports of a finished run: per Dagster integration one per result it covers, per
    OpenLineage integration one event. Keyed, so a second call queues nothing new; returns the
    ids of the deliveries still to send."""
    run = Run.objects.filter(pk=run_id).first()
    if run is None or run.status not in REPORTED_RUNS:
        return []  # cancelled runs say nothing about the data
    results = list(run.results.select_related("check_version", "run").order_by("id"))
    if not results:
        return []
    sources = sources_of(results)
    queued = []
    for integration in Integration.objects.filter(enabled=True).prefetch_related("datasources"):
        scope = {d.pk for d in integration.datasources.all()}
        mine = [r for r in results if integration.covers(sources[r.pk].datasource_id, scope)]
        if not mine:
            continue
        for key, result, path, body in _reports(integration, run, mine, sources):
            delivery = _queue(integration, key, run, result, path, body)
            if delivery is not None:
                queued.append(delivery.pk)
    return queued


def _reports(integration: Integration, run: Run, results: list[Result], sources):
    if integration.kind == Integration.Kind.DAGSTER:
        if run.trigger == Run.Trigger.BACKFILL:
            # Dagster keeps the latest report as the asset check's state: a past business date
            # checked today must not stand for the data as it is now.
            return
        for result in results:
            if result.status in dagster.REPORTED:
                key = dagster.asset_key_of(integration.asset_keys, result, sources[result.pk])
                path, body = dagster.report_of(result, key)
                yield f"{integration.pk}:result:{result.pk}", result, path, body
    else:
        event = openlineage.run_event(run, results, sources, integration.namespace)
        yield f"{integration.pk}:run:{run.pk}", None, "", event


def _queue(integration, key, run, result, path, body) -> Delivery | None:
    try:
        with transaction.atomic():
            return Delivery.objects.create(
                integration=integration,
                integration_name=integration.name,
                kind=integration.kind,
                event=Delivery.Event.RESULT if result else Delivery.Event.RUN,
                run=run,
                result=result,
                key=key,
                path=path,
                payload=body,
            )
    except IntegrityError:
        return None  # queued by an earlier delivery of the run's task


def deliver(delivery_id: int, attempt: int) -> str:
    """Make attempt number `attempt`. A stale or repeated task (the row has moved on) does nothing."""
    claimed = Delivery.objects.filter(
        pk=delivery_id, attempt=attempt - 1, status__in=[Delivery.Status.QUEUED, Delivery.Status.RETRYING]
    ).update(status=Delivery.Status.SENDING, attempt=attempt)
    if not claimed:
        return SKIPPED
    delivery = Delivery.objects.select_related("integration").get(pk=delivery_id)
    error, permanent, detail = attempt_once(delivery)
    return record(delivery, attempt, error, permanent, detail)


def attempt_once(delivery: Delivery) -> tuple[str, bool, str]:
    """("", False, "") on success, else (the error without secrets, whether retrying cannot help,
    what the target answered: for administrators and the log only)."""
    integration = delivery.integration
    if integration is None:
        return _("The integration was deleted before the report could be sent."), True, ""
    try:
        secret = integration.secret
        post_json(integration.url + delivery.path, delivery.payload, _headers(integration.kind, secret), secret)
    except TransportError as exc:
        return str(exc) or _("The report was not delivered."), exc.permanent, exc.detail
    except SecretDecryptionError as exc:
        return str(exc), True, ""
    return "", False, ""


def _headers(kind: str, secret: str) -> dict[str, str]:
    if not secret:
        return {}
    if kind == Integration.Kind.DAGSTER:
        return {dagster.TOKEN_HEADER: secret}
    return {"Authorization": f"Bearer {secret}"}


def record(delivery: Delivery, attempt: int, error: str, permanent: bool, detail: str = "") -> str:
    now = timezone.now()
    attempts = [*delivery.attempts, {"number": attempt, "at": now.isoformat(), "ok": not error, "error": error}]
    if not error:
        Delivery.objects.filter(pk=delivery.pk).update(
            status=Delivery.Status.SENT, sent_at=now, error="", attempts=attempts
        )
        return SENT
    last = permanent or attempt >= settings.DQ_NOTIFY_ATTEMPTS
    status = Delivery.Status.FAILED if last else Delivery.Status.RETRYING
    Delivery.objects.filter(pk=delivery.pk).update(status=status, error=error, attempts=attempts)
    log.warning(
        "Report %s to integration %r failed (attempt %s of %s%s): %s%s",
        delivery.pk,
        delivery.integration_name,
        attempt,
        settings.DQ_NOTIFY_ATTEMPTS,
        ", not retried" if permanent else "",
        error,
        f" [{detail}]" if detail else "",
    )
    return FAILED if last else RETRY


def send_test(integration: Integration, show_detail: bool = False) -> tuple[bool, str]:
    """Send a test report now (the integration's "Send test" button), recorded like any other and
    not retried: the person is waiting. `show_detail` (administrators): what the target answered."""
    if integration.kind == Integration.Kind.DAGSTER:
        path, body = dagster.test_report()
    else:
        path, body = "", openlineage.test_event()
    delivery = Delivery.objects.create(
        integration=integration,
        integration_name=integration.name,
        kind=integration.kind,
        event=Delivery.Event.TEST,
        path=path,
        payload=body,
        status=Delivery.Status.SENDING,
        attempt=1,
    )
    error, _permanent, detail = attempt_once(delivery)
    record(delivery, 1, error, permanent=True, detail=detail)
    if error:
        if detail and show_detail:
            return False, _("%(error)s The target answered: %(detail)s") % {"error": error, "detail": detail}
        return False, error
    return True, _("Test report sent to %(name)s.") % {"name": integration.name}
