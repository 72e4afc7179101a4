"""Registering a batch, validating it (one run of every check bound to its table), re-validating
and releasing it. Crosses apps (datasources' catalog, rules' checks, executions' runs), so it
lives here rather than on a model. Never runs SQL: the run's engine reads the batch."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from datasources.connectors import connector_for
from datasources.connectors.base import ConnectorError, TableNotFound
from datasources.models import Datasource
from executions.models import Run
from executions.starting import RunRequestInvalid, start_run
from executions.stored_words import register
from rules.models import Check

from . import lifecycle, partitions
from .models import Batch, BatchAttempt, Release

# Reasons stored on a batch in English; read in the reader's language (executions/stored_words.py).
REGISTERED = gettext_noop("Registered; validation queued.")
ALL_DISABLED = gettext_noop("The %(count)s check(s) bound to %(table)s are disabled; enable one, then re-validate.")
NONE_BOUND = gettext_noop("No check reads %(table)s; bind checks to the table, then re-validate.")
NONE_READABLE = gettext_noop(
    "None of the %(count)s check(s) bound to %(table)s was run: they read data that %(user)s may not read. "
    "An owner of the datasource re-validates the batch to run them."
)
REVALIDATION = gettext_noop("Re-validation requested by %(user)s.")
REVALIDATION_ENDED_RELEASE = gettext_noop(
    "Re-validation requested by %(user)s. It ended the release by %(released_by)s."
)
RELEASED = gettext_noop("Released by %(user)s until %(until)s UTC: %(reason)s")
register(REGISTERED, ALL_DISABLED, NONE_BOUND, NONE_READABLE, REVALIDATION, REVALIDATION_ENDED_RELEASE, RELEASED)


class BatchInvalid(Exception):
    def __init__(self, fields: dict[str, list[str]]):
        super().__init__("; ".join(f"{k}: {' '.join(v)}" for k, v in fields.items()))
        self.fields = fields


class BatchConflict(Exception):
    """The batch's state does not allow the action (the API answers 409)."""


def checked_partition(
    datasource: Datasource, table: str, partition: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The partition checked against the live catalog and typed by it (gates/partitions.py), and
    what could not be checked. Raises BatchInvalid naming `table` for an unknown table, or
    `partition` for a column the table lacks or a value its type cannot hold. A source that
    cannot be reached now is noted instead and the values kept as sent (the batch is still
    registered: its run will end `error`, and the fail mode decides)."""
    try:
        columns = {c.name.lower(): (c.name, c.type) for c in connector_for(datasource).columns(table)}
    except TableNotFound:
        raise BatchInvalid({"table": [f"Datasource {datasource.name!r} has no table {table!r}."]}) from None
    except ConnectorError as exc:
        note = f"The partition columns were not checked: {datasource.name!r} could not be reached ({exc})."
        return partition, [note]
    unknown = [name for name in partition if name.lower() not in columns]
    if unknown:
        names = ", ".join(sorted(name for name, _ in columns.values()))
        raise BatchInvalid(
            {"partition": [f"Table {table!r} has no column {name!r}; its columns are {names}." for name in unknown]}
        )
    values, problems = partitions.typed(partition, columns)
    if problems:
        raise BatchInvalid({"partition": problems})
    return values, []


def bound_checks(batch: Batch) -> list[Check]:
    """Every alive, enabled check whose source is the batch's datasource and table (a disabled
    check stays bound to the table, and is not run until it is enabled again)."""
    return [c for c in bound_checks_of(batch.datasource_id, batch.table) if c.enabled]


def bound_checks_of(datasource_id: int, table: str) -> list[Check]:
    return list(
        Check.objects.alive()
        .filter(params__src_datasource_id=datasource_id, params__src_table=table)
        .select_related("template")
        .order_by("pk")
    )


def register(fields: dict[str, Any], user) -> Batch:
    """Store the batch and start its first attempt, in one transaction (the run is sent after commit)."""
    datasource = fields["datasource"]
    partition, notes = checked_partition(datasource, fields["table"], fields.get("partition") or {})
    with transaction.atomic():
        batch = Batch.objects.create(
            datasource=datasource,
            table=fields["table"],
            partition=partition,
            biz_date=fields.get("biz_date") or timezone.localdate(),
            data_version=fields.get("data_version") or "",
            producer=fields.get("producer") or {},
            schedule_type=fields.get("schedule_type") or Batch.ScheduleType.NORMAL,
            notes=notes,
            reason=REGISTERED,
            created_by=user,
        )
        start_attempt(batch, user)
    return batch


def start_attempt(batch: Batch, user) -> BatchAttempt | None:
    """One run, on exactly this partition, of every check bound to the table that `user` (who
    registers or re-validates) may see: a run never reads, for someone, data they may not read.
    The bound checks left out are recorded on the attempt and count as undecided, so the table's
    fail mode decides (gates/lifecycle.py). None when no check is run (the batch is then
    `unknown` and follows its fail mode)."""
    every_bound = bound_checks_of(batch.datasource_id, batch.table)
    bound = [c for c in every_bound if c.enabled]  # bound_checks(batch)
    allowed = set(Check.objects.visible_to(user).filter(pk__in=[c.pk for c in bound]).values_list("pk", flat=True))
    checks = [c for c in bound if c.pk in allowed]
    skipped = [_skipped(batch, c) for c in bound if c.pk not in allowed]
    if not checks:
        disabled = len(every_bound) - len(bound)
        lifecycle.conclude(batch, None, _nothing_run(batch, user, len(skipped), disabled))
        return None
    previous = batch.latest_attempt()
    trigger = Run.Trigger.BACKFILL if batch.schedule_type == Batch.ScheduleType.BACKFILL else Run.Trigger.API
    number = previous.number + 1 if previous else 1
    try:
        run, _created = start_run(
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
        skipped_checks=skipped,
        requested_by=user,
    )


def _skipped(batch: Batch, check: Check) -> dict[str, Any]:
    """A bound check left out of a run. `public`: it reads nothing but the batch's datasource, so
    whoever sees the batch may see its name (every other one is shown only to those who may)."""
    return {
        "check": check.pk,
        "name": check.name,
        "failure_strategy": check.params.get("failure_strategy", ""),
        "public": check.datasource_ids() <= {batch.datasource_id},
    }


def _nothing_run(batch: Batch, user, skipped: int, disabled: int = 0) -> str:
    where = f"{batch.datasource.name}.{batch.table}"
    if not skipped and disabled:
        return ALL_DISABLED % {"count": disabled, "table": where}
    if not skipped:
        return NONE_BOUND % {"table": where}
    return NONE_READABLE % {"count": skipped, "table": where, "user": user.get_username()}


def revalidate(batch: Batch, user) -> BatchAttempt | None:
    """A new attempt with the checks bound now; the earlier attempts and their results stay."""
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=batch.pk)
        if batch.state in Batch.IN_PROGRESS or batch.state in Batch.VERDICTS:
            raise BatchConflict(
                _("Batch %(batch)s is still %(state)s; re-validate it once it has an outcome.")
                % {"batch": batch.pk, "state": str(Batch.State(batch.state).label).lower()}
            )
        release = batch.active_release()
        why = REVALIDATION % {"user": user.get_username()}
        if release is not None:
            release.end(f"ended by {user.get_username()}'s re-validation", by=user)
            why = REVALIDATION_ENDED_RELEASE % {
                "user": user.get_username(),
                "released_by": lifecycle.released_by(release),
            }
        batch.move(Batch.State.PENDING, why, user=user)
        return start_attempt(batch, user)


def release(batch: Batch, user, reason: str, expires_at: datetime) -> Release:
    """Publish a held batch until `expires_at`, recording who and why. The caller has checked
    that `user` may (Batch.may_be_changed_by) and the expiry's maximum (the request serializer)."""
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=batch.pk)
        if batch.state not in (Batch.State.QUARANTINED, Batch.State.AWAITING_APPROVAL):
            raise BatchConflict(
                _("Batch %(batch)s is %(state)s; only a quarantined batch or one awaiting approval can be released.")
                % {"batch": batch.pk, "state": str(Batch.State(batch.state).label).lower()}
            )
        granted = Release.objects.create(batch=batch, released_by=user, reason=reason, expires_at=expires_at)
        batch.move(
            Batch.State.PUBLISHED,
            RELEASED % {"user": user.get_username(), "until": f"{expires_at:%Y-%m-%d %H:%M}", "reason": reason},
            user=user,
        )
    return granted
