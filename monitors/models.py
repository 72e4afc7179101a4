"""Table monitors: volume, freshness and schema changes switched on for a table, or for every
table of a datasource, with a schedule. A monitor is made of ordinary checks (rules.Check) and
one schedule (watching.Schedule), so its results, trends, incidents, alerts and the gate are
those of any check; the monitor row remembers what was switched on and which checks it made."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from datasources.models import Datasource
from rules.models import Check

VOLUME, FRESHNESS, SCHEMA = "volume", "freshness", "schema"
KINDS = (VOLUME, FRESHNESS, SCHEMA)

# The volume monitor's comparison when none is asked for: the dynamic range of the last 7 normal
# runs (rules/catalog/comparison_types.yaml). The anomaly comparison replaces it once it exists.
DEFAULT_VOLUME_COMPARISON = "anomaly"
DEFAULT_CRON = "0 * * * *"  # hourly: freshness is worth knowing within the hour
DEFAULT_FRESHNESS_MAX_AGE = 24.0
DEFAULT_FRESHNESS_UNIT = "hours"


class MonitorQuerySet(models.QuerySet):
    def alive(self) -> MonitorQuerySet:
        return self.filter(deleted_at__isnull=True)

    def visible_to(self, user) -> MonitorQuerySet:
        """Monitors of the datasources whose data the user may read (open to all or to one of
        their groups; admins: every one): a monitor follows its datasource, and a deleted
        datasource keeps its groups' say, as for its checks (Datasource.objects.readable_by)."""
        return self.alive().filter(datasource__in=Datasource.objects.readable_by(user).values("pk"))

    def changeable_by(self, user) -> MonitorQuerySet:
        """Monitors the user may switch on, off or delete: those of datasources they own (their
        owners and owner groups) and, for admins, every one (Datasource.objects.owned_by)."""
        return self.visible_to(user).filter(datasource__in=Datasource.objects.owned_by(user).values("pk"))


class Monitor(models.Model):
    datasource = models.ForeignKey(Datasource, on_delete=models.PROTECT, related_name="monitors")
    table = models.CharField(max_length=512, blank=True, help_text="Empty: every table of the datasource.")
    kinds = models.JSONField(help_text='Any of "volume", "freshness", "schema".')
    time_column = models.CharField(max_length=256, blank=True)
    volume_by_date = models.BooleanField(default=False, help_text="Count the rows of the business date only.")
    volume_comparison = models.CharField(max_length=40, default=DEFAULT_VOLUME_COMPARISON)
    freshness_max_age = models.FloatField(default=DEFAULT_FRESHNESS_MAX_AGE)
    freshness_unit = models.CharField(max_length=10, default=DEFAULT_FRESHNESS_UNIT)
    failure_strategy = models.CharField(max_length=10, default="alert")
    schedule = models.ForeignKey(
        "watching.Schedule", null=True, blank=True, on_delete=models.SET_NULL, related_name="monitors"
    )
    checks = models.ManyToManyField(Check, through="MonitorCheck", related_name="monitors")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = MonitorQuerySet.as_manager()

    class Meta:
        ordering = ["datasource_id", "table", "id"]

    def __str__(self) -> str:
        return f"{self.datasource_id}/{self.table or '*'}"

    @property
    def enabled(self) -> bool:
        return bool(self.schedule and self.schedule.enabled)


class MonitorCheck(models.Model):
    """A check a monitor made: which kind it answers for, on which table."""

    monitor = models.ForeignKey(Monitor, on_delete=models.CASCADE, related_name="monitor_checks")
    rule_check = models.ForeignKey(Check, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=10)
    table = models.CharField(max_length=512)

    class Meta:
        ordering = ["table", "kind", "id"]
        constraints = [models.UniqueConstraint(fields=["monitor", "rule_check"], name="one_link_per_monitor_check")]

    def __str__(self) -> str:
        return f"{self.monitor_id}: {self.kind} of {self.table}"
