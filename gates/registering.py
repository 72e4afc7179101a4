"""Registering a batch, validating it (one run of every check bound to its table), re-validating
and releasing it. Crosses apps (datasources' catalog, rules' checks, executions' runs), so it
lives here rather than on a model. Never runs SQL: the run's engine reads the batch."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from datasources.connectors import connector_for
from datasources.connectors.base import ConnectorError, TableNotFound
from datasources.models import Datasource
from executions.models import Run
from executions.starting import RunRequestInvalid, start_run
from rules.models import Check

from . import lifecycle
from .models import Batch, BatchAttempt, Release, partition_key


class BatchInvalid(Exception):
    def __init__(self, fields: dict[str, list[str]]):
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in fields.items()))
        self.fields = fields


class BatchConflict(Exception):
    """The batch's state does not allow the action (the API answers 409)."""


def catalog_notes(datasource: Datasource, table: str, partition: dict[str, Any]) -> list[str]:
    """Check the table and the partition's columns against the live catalog. Raises BatchInvalid
    for an unknown table or column; a source that cannot be reached now is noted instead (the
    batch is still registered: its run will end `error`, and the fail mode decides)."""
    try:
        columns = {c.name.lower(): c.name for c in connector_for(datasource).columns(table)}
    except TableNotFound:
        raise BatchInvalid({"table": [f"Datasource {datasource.name!r} has no table {table!r}."]}) from None
    except ConnectorError as exc:
        return [f"The partition columns were not checked: {datasource.name!r} could not be reached ({exc})."]
    unknown = [name for name in partition if name.lower() not in columns]
    if unknown:
        raise BatchInvalid(
            {
                "partition": [
                    f"Table {table!r} has no column {name!r}; its columns are {', '.join(sorted(columns.values()))}."
                    for name in unknown
                ]
            }
        )
    return []


def bound_checks(batch: Batch) -> list[Check]:
    """Every alive check whose source is the batch's datasource and table."""
    return bound_checks_of(batch.datasource_id, batch.table)


def bound_checks_of(datasource_id: int, table: str) -> list[Check]:
    return list(
        Check.objects.alive()
        .filter(params__src_datasource_id=datasource_id, params__src_table=table)
        .select_related("template")
        .order_by("pk")
    )


def register(fields: dict[str, Any], user) -> Batch:
    """Store the batch and start its first attempt, in one transaction (the run is sent after commit)."""
    datasource, partition = fields["datasource"], fields.get("partition") or {}
    notes = catalog_notes(datasource, fields["table"], partition)
    with transaction.atomic():
        batch = Batch.objects.create(
            datasource=datasource,
            table=fields["table"],
            partition=partition,
            partition_key=partition_key(partition),
            biz_date=fields.get("biz_date") or timezone.localdate(),
            data_version=fields.get("data_version") or "",
            producer=fields.get("producer") or {},
            schedule_type=fields.get("schedule_type") or Batch.ScheduleType.NORMAL,
            notes=notes,
            reason="Registered; validation queued.",
            created_by=user,
        )
        start_attempt(batch, user)
    return batch


def start_attempt(batch: Batch, user) -> BatchAttempt | None:
    """One run of every check bound to the table, on exactly this partition; None when no check
    is bound (the batch is then `unknown` and follows its fail mode)."""
    checks = bound_checks(batch)
    if not checks:
        lifecycle.conclude(
            batch,
            None,
            f"No check reads {batch.datasource.name}.{batch.table}; bind checks to the table, then re-validate.",
        )
        return None
    previous = batch.latest_attempt()
    trigger = Run.Trigger.BACKFILL if batch.schedule_type == Batch.ScheduleType.BACKFILL else Run.Trigger.API
    number = previous.number + 1 if previous else 1
    try:
        run, _ = start_run(
            checks,
            user,
            biz_date=batch.biz_date,
            trigger=trigger,
            partitions={(batch.datasource_id, batch.table): batch.partition},
            context={"batch_id": str(batch.pk), "batch_attempt": str(number), "schedule_type": batch.schedule_type},
        )
    except RunRequestInvalid as exc:
        raise BatchInvalid(exc.fields) from None
    return BatchAttempt.objects.create(
        batch=batch,
        number=number,
        run=run,
        rule_set_hash=run.rule_set_hash,
        rules_changed=bool(previous and previous.rule_set_hash != run.rule_set_hash),
        requested_by=user,
    )


def revalidate(batch: Batch, user) -> BatchAttempt | None:
    """A new attempt with the checks bound now; the earlier attempts and their results stay."""
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=batch.pk)
        if batch.state in Batch.IN_PROGRESS or batch.state in Batch.VERDICTS:
            raise BatchConflict(f"Batch {batch.pk} is still {batch.state}; re-validate it once it has an outcome.")
        release = batch.active_release()
        if release is not None:
            release.end("superseded by a re-validation")
        batch.move(Batch.State.PENDING, f"Re-validation requested by {user.get_username()}.", user=user)
        return start_attempt(batch, user)


def release(batch: Batch, user, reason: str, expires_at: datetime, scope: str) -> Release:
    """Publish a held batch until `expires_at`, recording who, why and for what scope."""
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=batch.pk)
        if batch.state not in (Batch.State.QUARANTINED, Batch.State.AWAITING_APPROVAL):
            raise BatchConflict(
                f"Batch {batch.pk} is {batch.state}; only a quarantined batch or one awaiting approval can be released."
            )
        granted = Release.objects.create(
            batch=batch, released_by=user, reason=reason, scope=scope, expires_at=expires_at
        )
        batch.move(
            Batch.State.PUBLISHED,
            f"Released by {user.get_username()} until {expires_at:%Y-%m-%d %H:%M} UTC: {reason}",
            user=user,
        )
    return granted
