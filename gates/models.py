"""Registered batches and their validation state machine, releases with expiry, fail-mode policies
and the calendar of non-business days.

A batch is one committed unit of a producer's data (a table's partition). Every check bound to the
table runs on exactly that batch (gates/registering.py); the run's outcome moves the batch
through `pending_validation → validating → passed | failed | unknown`, and the policy
(gates/policy.py) then decides `published | quarantined | awaiting_approval`. Every move is a
`Transition` row. Only `Batch.move` assigns `state`, by a conditional update on the state it
leaves, so a late signal, the beat task and a lazy read cannot move a batch twice.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from datasources.models import Datasource

from .partitions import describe, partition_key


class FailMode(models.TextChoices):
    FAIL_CLOSED = "fail_closed", _("Fail closed: hold the batch for approval")
    FAIL_OPEN = "fail_open", _("Fail open: publish with a warning")


class TablePolicy(models.Model):
    """What an `unknown` or `error` validation means for downstream: set per datasource (`table`
    empty) and overridable per table. Without a row the platform fails closed. Admin-managed."""

    datasource = models.ForeignKey(Datasource, on_delete=models.CASCADE, related_name="gate_policies")
    table = models.CharField(max_length=300, blank=True, help_text="Leave empty for every table of the datasource.")
    fail_mode = models.CharField(max_length=12, choices=FailMode.choices, default=FailMode.FAIL_CLOSED)

    class Meta:
        verbose_name_plural = "table policies"
        constraints = [models.UniqueConstraint(fields=["datasource", "table"], name="one_policy_per_table")]

    def __str__(self) -> str:
        return f"{self.datasource} {self.table or '(every table)'}: {self.fail_mode}"

    @classmethod
    def fail_mode_for(cls, datasource_id: int, table: str) -> tuple[str, str]:
        """(fail mode, where it was set): the table's row, else the datasource's, else fail closed."""
        rows = dict(
            cls.objects.filter(datasource_id=datasource_id, table__in=[table, ""]).values_list("table", "fail_mode")
        )
        if table in rows:
            return rows[table], f"the policy of table {table}"
        if "" in rows:
            return rows[""], "the datasource's policy"
        return FailMode.FAIL_CLOSED, "the default policy"  # words of gates/policy.py, stored in English


class NonBusinessDay(models.Model):
    """A date whose data is not normal business (a holiday, a shutdown): dynamic thresholds keep
    its statistics out of their baseline (executions/history.py). Admin-managed."""

    date = models.DateField(unique=True)
    name = models.CharField(max_length=200, help_text="Why the day is not a business day (e.g. National Day).")

    class Meta:
        ordering = ["date"]

    def __str__(self) -> str:
        return f"{self.date} {self.name}"


class BatchQuerySet(models.QuerySet):
    def visible_to(self, user) -> BatchQuerySet:
        """Batches whose datasource's data the user may read (deleted datasources keep their
        groups' say, as for runs). Every batch view, the gate and the CLI ask this."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(datasource__in=Datasource.objects.readable_by(user))


class Batch(models.Model):
    class State(models.TextChoices):
        PENDING = "pending_validation", _("Pending validation")
        VALIDATING = "validating", _("Validating")
        PASSED = "passed", _("Passed")
        FAILED = "failed", _("Failed")
        UNKNOWN = "unknown", _("Unknown")
        PUBLISHED = "published", _("Published")
        QUARANTINED = "quarantined", _("Quarantined")
        AWAITING_APPROVAL = "awaiting_approval", _("Awaiting approval")

    class ScheduleType(models.TextChoices):
        NORMAL = "normal", _("Normal")
        BACKFILL = "backfill", _("Backfill")
        RERUN = "rerun", _("Rerun")

    VERDICTS = (State.PASSED, State.FAILED, State.UNKNOWN)
    OUTCOMES = (State.PUBLISHED, State.QUARANTINED, State.AWAITING_APPROVAL)
    IN_PROGRESS = (State.PENDING, State.VALIDATING)
    # The moves the state machine allows; anything else is a bug, refused loudly.
    ALLOWED = {
        State.PENDING: {State.VALIDATING, *VERDICTS},
        State.VALIDATING: set(VERDICTS),
        State.PASSED: set(OUTCOMES),
        State.FAILED: set(OUTCOMES),
        State.UNKNOWN: set(OUTCOMES),
        # Released (→ published), release expired (→ the policy's outcome), or re-validated.
        State.PUBLISHED: {State.QUARANTINED, State.AWAITING_APPROVAL, State.PENDING},
        State.QUARANTINED: {State.PUBLISHED, State.PENDING},
        State.AWAITING_APPROVAL: {State.PUBLISHED, State.PENDING},
    }

    datasource = models.ForeignKey(Datasource, on_delete=models.PROTECT, related_name="batches")
    table = models.CharField(max_length=300)
    partition = models.JSONField(
        default=dict,
        blank=True,
        help_text='Partition columns and values, typed by the catalog: {"dt": "…", "hour": 3}.',
    )
    # Set by save() from `partition` (gates/partitions.py): what the gate matches on, exactly.
    partition_key = models.CharField(max_length=64, editable=False, db_index=True)
    biz_date = models.DateField()
    data_version = models.CharField(max_length=500, blank=True, help_text="The producer's commit marker or snapshot.")
    producer = models.JSONField(default=dict, blank=True, help_text='{"instance_id", "attempt"} of the producing job.')
    schedule_type = models.CharField(max_length=10, choices=ScheduleType.choices, default=ScheduleType.NORMAL)
    state = models.CharField(max_length=20, choices=State.choices, default=State.PENDING, db_index=True)
    reason = models.TextField(blank=True, help_text="Why the batch is in its state, in words.")
    warnings = models.JSONField(default=list, blank=True)
    notes = models.JSONField(default=list, blank=True, help_text="What registration could not verify.")
    # What the policy decided for the latest attempt, without any release: where an expired
    # release returns the batch to.
    policy_state = models.CharField(max_length=20, choices=State.choices, blank=True)
    policy_reason = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = BatchQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "batches"
        indexes = [models.Index(fields=["datasource", "table", "partition_key"], name="batch_gate_lookup")]

    def __str__(self) -> str:
        return f"Batch {self.pk} {self.table} {describe(self.partition)} ({self.state})"

    def save(self, *args, **kwargs) -> None:
        self.partition_key = partition_key(self.partition or {})
        if kwargs.get("update_fields") is not None and "partition" in kwargs["update_fields"]:
            kwargs["update_fields"] = {*kwargs["update_fields"], "partition_key"}
        super().save(*args, **kwargs)

    @property
    def may_consume(self) -> bool:
        return self.state == self.State.PUBLISHED

    def may_be_changed_by(self, user) -> bool:
        """Release and re-validate: the datasource's owners and administrators
        (`Datasource.objects.owned_by`), whoever registered the batch."""
        from accounts.rights import batch_permissions

        owned = Datasource.objects.owned_by(user).filter(pk=self.datasource_id).values_list("pk", flat=True)
        return "release" in batch_permissions(self.datasource_id, set(owned))

    def move(self, to: str, reason: str, user=None, by: str = "", **fields) -> bool:
        """The only way `state` changes: a conditional update on the state it leaves, then its
        Transition row. False (nothing changed) when someone else moved the batch first."""
        if to not in self.ALLOWED[self.state]:
            raise ValueError(_("A batch cannot go from %(state)s to %(to)s.") % {"state": self.state, "to": to})
        with transaction.atomic():
            updated = Batch.objects.filter(pk=self.pk, state=self.state).update(
                state=to, reason=reason, updated_at=timezone.now(), **fields
            )
            if not updated:
                self.refresh_from_db()
                return False
            Transition.objects.create(
                batch=self, from_state=self.state, to_state=to, reason=reason, actor=user, actor_label=by
            )
        self.refresh_from_db()
        return True

    def latest_attempt(self) -> BatchAttempt | None:
        return self.attempts.order_by("-number").select_related("run").first()

    def active_release(self) -> Release | None:
        return self.releases.filter(ended_at__isnull=True).order_by("-created_at").first()


class BatchAttempt(models.Model):
    """One validation of a batch: one run of every check bound to its table. Attempts are
    append-only; a re-validation adds one and never touches the earlier evidence."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveIntegerField()
    run = models.OneToOneField("executions.Run", on_delete=models.PROTECT, related_name="batch_attempt")
    rule_set_hash = models.CharField(max_length=64)
    rules_changed = models.BooleanField(default=False, help_text="The rule set differs from the previous attempt's.")
    skipped_checks = models.JSONField(
        default=list,
        blank=True,
        help_text="Checks bound to the table that were not run: they read data the requester may not read "
        '([{"check", "name", "failure_strategy", "public"}]).',
    )
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["batch", "number"]
        constraints = [models.UniqueConstraint(fields=["batch", "number"], name="one_attempt_number_per_batch")]

    def __str__(self) -> str:
        return f"Batch {self.batch_id} attempt {self.number} (run {self.run_id})"


class Transition(models.Model):
    """One move of a batch's state: from, to, why, who (a user) or what (`actor_label`), when."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="transitions")
    from_state = models.CharField(max_length=20, choices=Batch.State.choices)
    to_state = models.CharField(max_length=20, choices=Batch.State.choices)
    reason = models.TextField()
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    actor_label = models.CharField(max_length=200, blank=True, help_text="What moved it when no user did.")
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["batch", "at", "id"]

    def __str__(self) -> str:
        return f"{self.from_state} → {self.to_state}"

    @property
    def by(self) -> str:
        return self.actor.get_username() if self.actor_id else self.actor_label


class Release(models.Model):
    """A manual release of one batch: who, why, until when (at most DQ_RELEASE_MAX_DAYS ahead).
    It publishes that batch only, to every consumer of the gate; when it expires (or an owner
    re-validates the batch, recorded in `ended_by`) it ends and the batch follows its policy
    again. The next batch of the table never sees it."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="releases")
    released_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    reason = models.TextField()
    expires_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=200, blank=True)
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Who ended it before its expiry (by re-validating the batch).",
    )

    class Meta:
        ordering = ["batch", "created_at", "id"]

    def __str__(self) -> str:
        return f"Release of batch {self.batch_id} until {self.expires_at:%Y-%m-%d %H:%M}"

    def end(self, why: str, by=None) -> bool:
        return bool(
            Release.objects.filter(pk=self.pk, ended_at__isnull=True).update(
                ended_at=timezone.now(), end_reason=why, ended_by=by
            )
        )
