"""What the platform watches by itself: schedules that start runs, alert channels that carry
messages, incidents that keep people from being paged twice for what they already know, and the
record of every message sent."""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import models, transaction
from django.db.models import Case, Exists, OuterRef, Q, Value, When
from django.utils import timezone
from django.utils.timezone import now as utc_now
from django.utils.translation import gettext_lazy as _

from datasources import crypto
from rules.models import Check

from . import cron


# --- schedules ------------------------------------------------------------------------------
class ScheduleQuerySet(models.QuerySet):
    def visible_to(self, user) -> ScheduleQuerySet:
        """A schedule is seen by whoever may see all of its live checks (admins see every one).
        Soft-deleted checks have left the schedule, so they hide nothing."""
        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.all()
        hidden = Check.objects.alive().exclude(pk__in=Check.objects.visible_to(user).values("pk"))
        return self.exclude(checks__in=hidden).distinct()


class Schedule(models.Model):
    """Checks run on a cron in a timezone. `watching.tasks.fire_due_schedules` (a beat task every
    DQ_SCHEDULE_TICK seconds) starts one run per slot; see `due_slot` for the missed-slot policy."""

    name = models.CharField(max_length=200)
    cron = models.CharField(max_length=120, help_text="Five cron fields, e.g. `0 2 * * *`.")
    timezone = models.CharField(max_length=64, default="UTC", help_text="IANA name, e.g. Asia/Shanghai.")
    checks = models.ManyToManyField(Check, related_name="schedules")
    enabled = models.BooleanField(default=True)
    biz_date_offset_days = models.IntegerField(
        default=-1, help_text="The run's business date is the slot's date in the timezone plus this."
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="dq_schedules"
    )
    # Slots before this instant never fire: set at creation, on re-enabling and on a new cron or
    # timezone, so that a paused schedule does not catch up when it is resumed.
    armed_at = models.DateTimeField(default=utc_now)
    last_slot = models.DateTimeField(null=True, blank=True, help_text="The latest slot that started a run.")
    last_run = models.ForeignKey("executions.Run", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    last_message = models.TextField(blank=True, help_text="Why the latest slot started no run, if it did not.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ScheduleQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """A new cron or timezone, or resuming a paused schedule, re-arms it: slots before now
        (missed while paused or under the old cron) are not caught up."""
        if self.pk:
            before = Schedule.objects.filter(pk=self.pk).values("cron", "timezone", "enabled").first()
            if before and (
                before["cron"] != self.cron
                or before["timezone"] != self.timezone
                or (self.enabled and not before["enabled"])
            ):
                self.armed_at = timezone.now()
        super().save(*args, **kwargs)

    @property
    def parsed_cron(self) -> cron.Cron:
        return cron.parse(self.cron)

    @property
    def zone(self) -> ZoneInfo:
        return cron.zone(self.timezone)

    def describe(self) -> str:
        return cron.describe(self.parsed_cron, self.timezone)

    def next_slots(self, count: int = 5, after: datetime | None = None) -> list[datetime]:
        return self.parsed_cron.next_slots(after or timezone.now(), self.zone, count)

    def due_slot(self, now: datetime) -> datetime | None:
        """The slot to fire now, if any. Policy for slots missed while beat was down: only the
        latest missed slot runs, once; earlier ones are skipped. Slots before `armed_at` (made
        while paused, or under an earlier cron) never run."""
        if not self.enabled:
            return None
        not_before = max(self.armed_at, self.last_slot + timedelta(seconds=1)) if self.last_slot else self.armed_at
        return self.parsed_cron.latest_slot(now, self.zone, not_before)

    def biz_date_for(self, slot: datetime):
        return slot.astimezone(self.zone).date() + timedelta(days=self.biz_date_offset_days)

    def idempotency_key(self, slot: datetime) -> str:
        """One run per schedule and slot, however many beats or ticks see the slot."""
        return f"schedule:{self.pk}:{slot.astimezone(self.zone).isoformat()}"

    def live_checks(self):
        return self.checks.alive()


# --- alert channels -------------------------------------------------------------------------
class AlertChannel(models.Model):
    """Where messages go. Admin-managed; the target (an address or a URL that may hold a token)
    is stored encrypted like datasource passwords and never shown again, only `target_preview`."""

    class Kind(models.TextChoices):
        EMAIL = "email", _("E-mail")
        WEBHOOK = "webhook", _("Webhook (JSON POST)")
        SLACK = "slack", _("Slack")
        DINGTALK = "dingtalk", _("DingTalk")
        WECOM = "wecom", _("WeCom (WeChat Work)")
        FEISHU = "feishu", _("Feishu / Lark")
        TELEGRAM = "telegram", _("Telegram")
        APPRISE = "apprise", _("Any Apprise URL")

    class Language(models.TextChoices):
        ENGLISH = "en", _("English")
        CHINESE = "zh-hans", _("Simplified Chinese")

    EVENTS = ("fail", "error", "recovery")

    name = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    # Fernet ciphertext; read and write through `.target`.
    target_ciphertext = models.TextField(editable=False)
    target_preview = models.CharField(max_length=300, editable=False, help_text="A redacted form, safe to show.")
    notify_on = models.JSONField(default=list, help_text='Any of "fail", "error", "recovery".')
    # The language its messages are written in (subject, body, IM text): the people it reaches
    # read them, not whoever's request happened to start the run.
    language = models.CharField(
        max_length=10,
        choices=Language.choices,
        default=Language.ENGLISH,
        help_text="The language of its messages: en or zh-hans.",
    )
    checks = models.ManyToManyField(Check, blank=True, related_name="alert_channels")
    datasources = models.ManyToManyField("datasources.Datasource", blank=True, related_name="alert_channels")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def target(self) -> str:
        return crypto.decrypt(self.target_ciphertext) if self.target_ciphertext else ""

    @target.setter
    def target(self, plaintext: str) -> None:
        from .channels import transport_for

        self.target_ciphertext = crypto.encrypt(plaintext)
        self.target_preview = transport_for(self.kind).preview(plaintext)

    @property
    def has_target(self) -> bool:
        return bool(self.target_ciphertext)

    def covers(self, check: Check) -> bool:
        """Empty check and datasource lists mean every check; otherwise the check is listed or
        reads one of the listed datasources."""
        check_ids = {c.pk for c in self.checks.all()}
        datasource_ids = {d.pk for d in self.datasources.all()}
        if not check_ids and not datasource_ids:
            return True
        return check.pk in check_ids or bool(datasource_ids & check.datasource_ids())


# --- incidents --------------------------------------------------------------------------------
class IncidentQuerySet(models.QuerySet):
    def visible_to(self, user) -> IncidentQuerySet:
        """Incidents of the checks the user may see, whose first and latest failing results the
        user may read: an incident shows those results' numbers, and who may read a result follows
        the datasources its run read (a check moved off a restricted datasource keeps its earlier
        incidents from people outside that datasource's groups)."""
        from executions.models import Result

        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.all()
        # Row by row (Exists) rather than `__in` lists: the list page walks incidents in its
        # order (the `incident_list_order` index) and stops at a page, instead of first listing
        # every readable result; SQLite also drove `first_result__in` from that list.
        readable = Result.objects.visible_to(user)
        return self.filter(
            Exists(Check.objects.visible_to(user).filter(pk=OuterRef("rule_check_id"))),
            Exists(readable.filter(pk=OuterRef("first_result_id"))),
            Exists(readable.filter(pk=OuterRef("last_result_id"))),
        )

    def unresolved(self) -> IncidentQuerySet:
        return self.filter(status__in=Incident.UNRESOLVED)


class Severity(models.TextChoices):
    """How bad an incident is. Opened from its failing result (`severity_of`); a person may set it."""

    CRITICAL = "critical", _("Critical")
    HIGH = "high", _("High")
    MEDIUM = "medium", _("Medium")
    LOW = "low", _("Low")


def severity_of(failure_strategy: str, outcome: str) -> str:
    """The severity an incident opens with: a blocking check stops the workflow, so its failure
    is critical and its evaluation error (the data may be fine, but nothing goes on) high; a
    check that only alerts is medium when it fails and low when it cannot be evaluated."""
    if failure_strategy == "block":
        return Severity.CRITICAL if outcome == "fail" else Severity.HIGH
    return Severity.MEDIUM if outcome == "fail" else Severity.LOW


class Incident(models.Model):
    """A check that fails or errors on one scope: the whole table, or one partition of it
    (`partition_key`, executions/scopes.py). One unresolved incident per check and scope: later
    failures of that scope join it; a pass of that same scope resolves it (by nobody,
    `resolved_by` empty) and sends the recovery message. A partition passing says nothing about
    the whole table or another partition, so it never closes their incidents."""

    class Status(models.TextChoices):
        OPEN = "open", _("Open")
        ACKNOWLEDGED = "acknowledged", _("Acknowledged")
        RESOLVED = "resolved", _("Resolved")

    UNRESOLVED = (Status.OPEN, Status.ACKNOWLEDGED)

    rule_check = models.ForeignKey(Check, on_delete=models.PROTECT, related_name="incidents")
    partition_key = models.CharField(
        max_length=500, blank=True, default="", help_text="The partition it is about; empty: the whole table."
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.OPEN, db_index=True)
    outcome = models.CharField(max_length=10, help_text="fail or error: the latest result's status.")
    blocking = models.BooleanField(default=False, help_text="Whether the latest failure blocks.")
    first_result = models.ForeignKey("executions.Result", on_delete=models.PROTECT, related_name="+")
    last_result = models.ForeignKey("executions.Result", on_delete=models.PROTECT, related_name="+")
    occurrences = models.PositiveIntegerField(default=1, help_text="Failing results that joined it.")
    opened_at = models.DateTimeField(default=timezone.now)
    last_seen_at = models.DateTimeField(default=timezone.now)
    last_notified_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by_result = models.ForeignKey(
        "executions.Result", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolution_note = models.TextField(blank=True)
    severity = models.CharField(max_length=10, choices=Severity.choices, default=Severity.MEDIUM, db_index=True)
    severity_chosen = models.BooleanField(
        default=False, help_text="Set by a person: later failures no longer change it."
    )
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="assigned_incidents"
    )
    # The list's order (open, acknowledged, resolved), kept by the database itself so that an
    # index can serve it: the list reads a page from `incident_list_order` instead of sorting
    # every incident on each request.
    status_rank = models.GeneratedField(
        expression=Case(
            When(status="open", then=Value(0)),
            When(status="acknowledged", then=Value(1)),
            default=Value(2),
        ),
        output_field=models.PositiveSmallIntegerField(),
        db_persist=True,
    )
    # Most severe first when the list is ordered by severity (the names do not sort that way).
    severity_rank = models.GeneratedField(
        expression=Case(
            When(severity="critical", then=Value(0)),
            When(severity="high", then=Value(1)),
            When(severity="medium", then=Value(2)),
            default=Value(3),
        ),
        output_field=models.PositiveSmallIntegerField(),
        db_persist=True,
    )

    objects = IncidentQuerySet.as_manager()

    class Meta:
        # Opened time then id: acknowledging, assigning or resolving an incident leaves it where it is.
        ordering = ["-opened_at", "-id"]
        indexes = [
            models.Index(fields=["status_rank", "-opened_at", "-id"], name="incident_list_order"),
            models.Index(fields=["-opened_at", "-id"], name="incident_opened_order"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["rule_check", "partition_key"],
                condition=Q(status__in=["open", "acknowledged"]),
                name="one_unresolved_incident_per_check_and_partition",
            )
        ]

    def __str__(self) -> str:
        return f"Incident {self.pk} ({self.status})"

    def acknowledge(self, user) -> bool:
        """Open → acknowledged (a conditional update, so two clicks record the first)."""
        with transaction.atomic():
            done = Incident.objects.filter(pk=self.pk, status=self.Status.OPEN).update(
                status=self.Status.ACKNOWLEDGED, acknowledged_by=user, acknowledged_at=timezone.now()
            )
            if done:
                self.record(user, IncidentChange.Field.STATUS, self.Status.OPEN, self.Status.ACKNOWLEDGED)
        self.refresh_from_db()
        return bool(done)

    def resolve(self, user, note: str = "", result=None, by=None) -> bool:
        """Unresolved → resolved, by a person (`user`), by a passing result (`result`) or by the
        platform (neither; `by`, if known, is whom the history names, e.g. who deleted the check)."""
        with transaction.atomic():
            before = Incident.objects.filter(pk=self.pk).values_list("status", flat=True).first()
            done = Incident.objects.filter(pk=self.pk, status__in=self.UNRESOLVED).update(
                status=self.Status.RESOLVED,
                resolved_by=user,
                resolved_at=timezone.now(),
                resolution_note=note,
                resolved_by_result=result,
            )
            if done:
                self.record(user or by, IncidentChange.Field.STATUS, before, self.Status.RESOLVED, note)
        self.refresh_from_db()
        return bool(done)

    def assign(self, user, assignee, note: str = "") -> bool:
        """Give the incident to `assignee` (None: to nobody); recorded when it changes."""
        if self.assignee_id == (assignee.pk if assignee else None):
            return False
        before = self.assignee.get_username() if self.assignee_id else ""
        with transaction.atomic():
            Incident.objects.filter(pk=self.pk).update(assignee=assignee)
            self.record(user, IncidentChange.Field.ASSIGNEE, before, assignee.get_username() if assignee else "", note)
        self.refresh_from_db()
        return True

    def set_severity(self, user, severity: str, note: str = "") -> bool:
        """A person's severity, which later failures keep; recorded when it changes."""
        if severity == self.severity:
            Incident.objects.filter(pk=self.pk).update(severity_chosen=True)
            self.refresh_from_db()
            return False
        with transaction.atomic():
            Incident.objects.filter(pk=self.pk).update(severity=severity, severity_chosen=True)
            self.record(user, IncidentChange.Field.SEVERITY, self.severity, severity, note)
        self.refresh_from_db()
        return True

    def record(self, actor, field: str, before: str, after: str, note: str = "") -> IncidentChange:
        return IncidentChange.objects.create(
            incident_id=self.pk, actor=actor, field=field, from_value=before or "", to_value=after or "", note=note
        )


class IncidentChange(models.Model):
    """One change of an incident: its status (opened, acknowledged, resolved), its assignee or its
    severity; who made it (empty: the platform), when, from what to what, and why."""

    class Field(models.TextChoices):
        STATUS = "status", _("Status")
        ASSIGNEE = "assignee", _("Assignee")
        SEVERITY = "severity", _("Severity")

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="changes")
    at = models.DateTimeField(default=timezone.now)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    field = models.CharField(max_length=10, choices=Field.choices)
    from_value = models.CharField(max_length=150, blank=True)
    to_value = models.CharField(max_length=150, blank=True)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.incident_id} {self.field}: {self.from_value or '—'} → {self.to_value or '—'}"


class IncidentComment(models.Model):
    """What someone who may see the incident said about it."""

    incident = models.ForeignKey(Incident, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    text = models.TextField()

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"Comment {self.pk} on incident {self.incident_id}"


class CheckMute(models.Model):
    """A check whose messages are held back until `until` (its incidents still open and join)."""

    rule_check = models.OneToOneField(Check, on_delete=models.CASCADE, related_name="mute")
    until = models.DateTimeField()
    reason = models.CharField(max_length=500, blank=True)
    muted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.rule_check_id} muted until {self.until:%Y-%m-%d %H:%M}"

    @classmethod
    def muted_check_ids(cls, at: datetime) -> set[int]:
        return set(cls.objects.filter(until__gt=at).values_list("rule_check_id", flat=True))


# --- what was sent ------------------------------------------------------------------------------
class Notification(models.Model):
    """One message to one channel (for one run, or a test). Each delivery attempt is a
    DeliveryAttempt row; `attempt`, `error` and `sent_at` summarise the latest."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        SENDING = "sending", _("Sending")
        RETRYING = "retrying", _("Failed, will retry")
        SENT = "sent", _("Sent")
        FAILED = "failed", _("Failed")

    class Event(models.TextChoices):
        RUN = "run", _("Run results")
        TEST = "test", _("Test message")

    channel = models.ForeignKey(AlertChannel, null=True, on_delete=models.SET_NULL, related_name="notifications")
    channel_name = models.CharField(max_length=100)
    channel_kind = models.CharField(max_length=20)
    run = models.ForeignKey(
        "executions.Run", null=True, blank=True, on_delete=models.CASCADE, related_name="notifications"
    )
    incidents = models.ManyToManyField(Incident, blank=True, related_name="notifications")
    event = models.CharField(max_length=10, choices=Event.choices, default=Event.RUN)
    subject = models.CharField(max_length=300)
    body = models.TextField()
    payload = models.JSONField(default=dict, help_text="The structured message (the webhook's JSON body).")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    attempt = models.PositiveIntegerField(default=0, help_text="Attempts made so far.")
    error = models.TextField(blank=True, help_text="The latest attempt's error (secrets removed).")
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Notification {self.pk} to {self.channel_name} ({self.status})"


class DeliveryAttempt(models.Model):
    notification = models.ForeignKey(Notification, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveIntegerField()
    at = models.DateTimeField(default=timezone.now)
    ok = models.BooleanField()
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["notification", "number"]
        constraints = [models.UniqueConstraint(fields=["notification", "number"], name="one_row_per_attempt")]

    def __str__(self) -> str:
        return f"{self.notification_id}#{self.number} {'ok' if self.ok else 'failed'}"


class AlertedRun(models.Model):
    """A finished run whose results have been turned into incidents and messages; the row makes
    a second delivery of the same task do nothing."""

    run = models.OneToOneField("executions.Run", on_delete=models.CASCADE, related_name="+")
    processed_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"run {self.run_id} alerted"
