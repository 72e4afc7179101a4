"""Runs (a frozen batch of checks), their append-only results, and the statistic history."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import OuterRef, Subquery
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from datasources.models import reading_only_readable

from .stored_words import CANCELLED_BY


class RunQuerySet(models.QuerySet):
    def visible_to(self, user) -> RunQuerySet:
        """Runs the user may read: admins all; others only runs all of whose frozen datasources
        (`Run.datasources`, what the run actually read) they may read, deleted ones included
        (`Datasource.objects.readable_by`). Every view, export, dashboard and command that shows
        runs, results or error rows asks this (or `Result.objects.visible_to`)."""
        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.all()
        return self.filter(reading_only_readable(user, RunDatasource.objects.all(), "run"))


class ResultQuerySet(models.QuerySet):
    def visible_to(self, user, visible_runs: RunQuerySet | None = None) -> ResultQuerySet:
        """Results (and their error rows) of runs the user may read: a result is as readable as
        the run that produced it. `visible_runs`: `Run.objects.visible_to(user)`, as is, when the
        caller asked it already (it costs a query)."""
        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.all()
        return self.filter(run__in=Run.objects.visible_to(user) if visible_runs is None else visible_runs)

    def newest_of_each_check(self) -> ResultQuerySet:
        """The newest result (ids grow with time) of each check among these results.

        Asked check by check, newest first along the (rule_check, id) index: a step or two per
        check, where grouping the results by check reads every one of them, and a check's
        history keeps growing while the number of checks does not. Only live checks: a deleted
        check fails no more, so its last result is no open failure (and its incidents were
        closed with it). A fresh queryset of those rows: these results' filters (visibility
        among them) already chose them."""
        checks = self.model._meta.get_field("rule_check").related_model.objects.filter(deleted_at__isnull=True)
        checks = checks.order_by()
        newest = self.order_by("-id").filter(rule_check_id=OuterRef("pk")).values("id")[:1]
        # DISTINCT: PostgreSQL would otherwise evaluate each check's walk three times over.
        newest_ids = checks.annotate(newest=Subquery(newest)).values("newest").distinct()
        return self.model.objects.filter(id__in=newest_ids)


def datasource_ids_read(batches: dict) -> set[int]:
    """The datasources a run's frozen batch definitions read (`Run.batches["definitions"]`)."""
    return {d["datasource_id"] for d in (batches.get("definitions") or {}).values() if "datasource_id" in d}


class Run(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        PASSED = "passed", _("Passed")
        FAILED = "failed", _("Failed")
        ERROR = "error", _("Error")
        CANCELLED = "cancelled", _("Cancelled")
        # No check failed or errored, but one could not decide (no expected value yet): not "passed".
        UNKNOWN = "unknown", _("Unknown")

    class Trigger(models.TextChoices):
        MANUAL = "manual", _("Manual")
        SCHEDULE = "schedule", _("Schedule")
        API = "api", _("API")
        BACKFILL = "backfill", _("Backfill")

    class ScanMode(models.TextChoices):
        FULL = "full", _("Full scan")
        PARTITION = "partition", _("Partition (filtered)")
        SAMPLE = "sample", _("Sample")

    FINISHED = (Status.PASSED, Status.FAILED, Status.ERROR, Status.UNKNOWN, Status.CANCELLED)

    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    trigger = models.CharField(max_length=10, choices=Trigger.choices, default=Trigger.API)
    attempt = models.PositiveIntegerField(default=1)
    retry_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="retries")
    biz_date = models.DateField(help_text="The business date the run checks; ${biz_date} in filters.")
    data_time = models.DateTimeField(help_text="Business time; history comparisons window on it.")
    parameters = models.JSONField(default=dict, help_text="Resolved run parameters (biz_date, …).")
    batches = models.JSONField(default=dict, help_text="Frozen batch definitions, by batch name.")
    check_versions = models.ManyToManyField("rules.CheckVersion", related_name="runs")
    # What the run read, frozen at start with its batches: who may read the run follows these.
    datasources = models.ManyToManyField(
        "datasources.Datasource", through="RunDatasource", related_name="runs", blank=True
    )
    rule_set_hash = models.CharField(max_length=64)
    scan_mode = models.CharField(max_length=10, choices=ScanMode.choices, default=ScanMode.FULL)
    blocking = models.BooleanField(default=False)
    message = models.TextField(blank=True)
    spark_application_id = models.CharField(max_length=200, blank=True)
    launcher = models.CharField(max_length=20, blank=True)
    plan = models.JSONField(default=dict, blank=True, help_text="What the engine did: passes per batch.")
    idempotency_key = models.CharField(max_length=200, null=True, blank=True, unique=True)
    worker = models.CharField(
        max_length=200, blank=True, help_text="The worker process holding (or that held) the run, from its claim."
    )
    enqueued_at = models.DateTimeField(default=timezone.now, help_text="When the run's task was last sent.")
    enqueue_count = models.PositiveIntegerField(
        default=1, help_text="How often the run's task was sent (the reaper re-sends lost ones)."
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="runs")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # Retries form a chain (attempt 1, 2, 3 …): a run is retried once, then its retry is.
            models.UniqueConstraint(fields=["retry_of"], name="run_retried_once"),
        ]

    def __str__(self) -> str:
        return f"Run {self.pk} ({self.status})"

    # Every status change below is a conditional update on the status it leaves: whoever loses a
    # race (a re-delivered task, the reaper, a cancel, the worker finishing) changes nothing.

    @classmethod
    def claim(cls, run_id: int, attempt: int, worker: str = "") -> bool:
        """The only way a run starts: one worker wins the conditional update, a re-delivery loses."""
        return bool(
            cls.objects.filter(pk=run_id, attempt=attempt, status=cls.Status.QUEUED).update(
                status=cls.Status.RUNNING, started_at=timezone.now(), worker=worker
            )
        )

    def finish(self, status: str, blocking: bool, message: str = "", **fields) -> bool:
        """Close a running run; a run already ended (cancelled, reaped) stays as it is (False)."""
        updated = Run.objects.filter(pk=self.pk, status=self.Status.RUNNING).update(
            status=status, blocking=blocking, message=message, finished_at=timezone.now(), **fields
        )
        if updated:
            self.refresh_from_db()
        return bool(updated)

    def cancel(self, user) -> bool:
        """Cancel a queued or running run (False when it has ended meanwhile). A running run's
        worker notices within a couple of seconds and stops its Spark jobs (executions/launcher.py);
        a queued run's task finds it no longer queued and does nothing. No results are recorded:
        a cancelled run says nothing about the data, and must not block or count as an error."""
        updated = Run.objects.filter(pk=self.pk, status__in=(self.Status.QUEUED, self.Status.RUNNING)).update(
            status=self.Status.CANCELLED,
            message=CANCELLED_BY % {"user": user.get_username()},
            finished_at=timezone.now(),
        )
        self.refresh_from_db()
        return bool(updated)

    def give_up_unclaimed(self, message: str) -> bool:
        """End a run that no worker ever started (the reaper, after its last re-send)."""
        updated = Run.objects.filter(pk=self.pk, status=self.Status.QUEUED, enqueue_count=self.enqueue_count).update(
            status=self.Status.ERROR, message=message, finished_at=timezone.now()
        )
        self.refresh_from_db()
        return bool(updated)

    def note_resent(self) -> bool:
        """Count one more send of a queued run's task; False when a worker claimed it meanwhile."""
        updated = Run.objects.filter(pk=self.pk, status=self.Status.QUEUED, enqueue_count=self.enqueue_count).update(
            enqueue_count=models.F("enqueue_count") + 1, enqueued_at=timezone.now()
        )
        self.refresh_from_db()
        return bool(updated)

    def may_be_changed_by(self, user) -> bool:
        """Who may cancel or retry a run: whoever started it, and administrators."""
        from accounts.rights import may_change_owned

        return may_change_owned(user, self.created_by_id)

    @property
    def duration_seconds(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None


class Result(models.Model):
    class Status(models.TextChoices):
        PASS = "pass", _("Pass")
        FAIL = "fail", _("Fail")
        ERROR = "error", _("Error")
        UNKNOWN = "unknown", _("Unknown")

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="results")
    check_version = models.ForeignKey("rules.CheckVersion", on_delete=models.PROTECT, related_name="results")
    rule_check = models.ForeignKey("rules.Check", on_delete=models.PROTECT, related_name="results")
    batch = models.CharField(max_length=20)
    partition_key = models.CharField(
        max_length=500,
        blank=True,
        default="",
        help_text="The partition the result speaks for (executions/scopes.py); empty: the whole table.",
    )
    status = models.CharField(max_length=10, choices=Status.choices, db_index=True)
    statistic_name = models.CharField(max_length=120)
    statistics_value = models.FloatField(null=True)
    comparison_value = models.FloatField(null=True)
    comparison_type = models.CharField(max_length=40, blank=True)
    comparison_source = models.JSONField(default=dict, help_text="How the expected value was obtained.")
    check_type = models.CharField(max_length=64)
    operator = models.CharField(max_length=4)
    threshold = models.FloatField()
    failure_strategy = models.CharField(max_length=10)
    formula_value = models.FloatField(null=True)
    verdict = models.TextField(blank=True, help_text="The verdict in words.")
    message = models.TextField(blank=True)
    error_row_count = models.BigIntegerField(null=True)
    error_rows_written = models.BigIntegerField(null=True)
    error_rows_path = models.TextField(blank=True)
    rows_scanned = models.BigIntegerField(null=True)
    details = models.JSONField(
        default=dict,
        blank=True,
        help_text='What the statistic is made of: a row_level_check\'s {"checks": [{"name", "failed_rows", "critical"}]}.',
    )
    identity = models.CharField(
        max_length=64, db_index=True, help_text="Check identity for history (params minus the verdict)."
    )
    data_time = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ResultQuerySet.as_manager()

    class Meta:
        ordering = ["run", "id"]
        indexes = [
            # The dashboard's window (created_at ≥ since) and the results list's order (newest first).
            models.Index(fields=["created_at", "id"], name="result_created"),
            # The newest result of each check, walked newest first check by check
            # (`newest_of_each_check`): latest=true, the summary's open failures, the checks
            # list's last status.
            models.Index(fields=["rule_check", "id"], name="result_check_newest"),
            # The dashboard's counts for a member, whose results are those of the runs they may
            # read: a window of each such run's results, counted by status without the table.
            models.Index(fields=["run", "created_at", "status"], name="result_run_window"),
        ]

    def __str__(self) -> str:
        return f"Result {self.pk} ({self.status})"

    @property
    def blocks(self) -> bool:
        return blocks(self.failure_strategy, self.status)


def blocks(failure_strategy: str, status: str) -> bool:
    """A `block` check fails closed: a failure or an evaluation error stops the workflow.
    `unknown` (no history yet) does not block."""
    return failure_strategy == "block" and status in (Result.Status.FAIL, Result.Status.ERROR)


class ResultFeedback(models.Model):
    """What a person said of an anomaly detection's result: `expected` (a false alarm: the
    check's incident is resolved, the point joins the detector's training and counts towards
    the check's false-alarm rate) or `incident` (a real problem: the point stays out of
    training). One per result; giving it again replaces it."""

    class Verdict(models.TextChoices):
        EXPECTED = "expected", _("Expected (a false alarm)")
        INCIDENT = "incident", _("A real incident")

    result = models.OneToOneField(Result, on_delete=models.CASCADE, related_name="feedback")
    rule_check = models.ForeignKey("rules.Check", on_delete=models.PROTECT, related_name="+")
    verdict = models.CharField(max_length=10, choices=Verdict.choices)
    given_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    given_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["rule_check", "verdict"], name="feedback_check_verdict")]

    def __str__(self) -> str:
        return f"Result {self.result_id}: {self.verdict}"


class RunDatasource(models.Model):
    """A datasource a run read. PROTECT: such a datasource is soft-deleted, never removed, so its
    groups keep deciding who reads the run (a removed link would widen who may read it)."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE)
    datasource = models.ForeignKey("datasources.Datasource", on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["run", "datasource"], name="one_link_per_run_datasource")]

    def __str__(self) -> str:
        return f"{self.run_id} read {self.datasource_id}"


class StatisticValue(models.Model):
    """One measured statistic of one check identity at one business time; the fluctuation
    comparison types (daily_avg, last_7_day_avg, …) average these."""

    identity = models.CharField(max_length=64)
    statistic_name = models.CharField(max_length=120)
    value = models.FloatField()
    data_time = models.DateTimeField()
    backfill = models.BooleanField(default=False)
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="statistics")
    result = models.OneToOneField(Result, on_delete=models.CASCADE, related_name="statistic")

    class Meta:
        indexes = [models.Index(fields=["identity", "statistic_name", "data_time"], name="statistic_history")]

    def __str__(self) -> str:
        return f"{self.statistic_name}={self.value} @ {self.data_time:%Y-%m-%d %H:%M}"


class WorkerHeartbeat(models.Model):
    """One row per worker process that runs runs, rewritten every DQ_WORKER_HEARTBEAT_INTERVAL
    seconds (executions/heartbeat.py). The reaper (executions/reaper.py) reads it: a running run
    whose worker's heartbeat is stale lost its worker; a queued run nobody took while a worker has
    been idle lost its message."""

    name = models.CharField(max_length=200, unique=True, help_text="Celery node name and process id.")
    queues = models.JSONField(default=list, help_text="The queues the worker consumes.")
    run = models.ForeignKey(
        Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="The run it holds now."
    )
    idle_since = models.DateTimeField(null=True, blank=True, help_text="When it last became idle (null: busy).")
    started_at = models.DateTimeField(default=timezone.now)
    last_seen = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} (last seen {self.last_seen:%H:%M:%S})"


class PreviewJob(models.Model):
    """One row checks' preview (`POST /api/v1/row-checks/preview/`): queued by the web process,
    answered by a worker on the preview queue, polled by the browser (executions/preview_jobs.py).
    A row per job also counts a user's previews in flight, across every web process."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        ERROR = "error", _("Error")

    IN_FLIGHT = (Status.QUEUED, Status.RUNNING)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    answer = models.JSONField(default=dict, blank=True, help_text="The preview's answer, once done.")
    warnings = models.JSONField(default=list, blank=True)
    message = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["owner", "status", "created_at"], name="preview_in_flight")]

    def __str__(self) -> str:
        return f"Preview {self.pk} ({self.status})"
