"""Integrations: where every run's verdicts go besides alert channels — a Dagster deployment (one
asset-check report per result) or an OpenLineage endpoint (one RunEvent per run) — and the record
of every report sent or tried."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Exists, OuterRef
from django.utils.translation import gettext_lazy as _

from datasources import crypto
from datasources.models import Datasource


class IntegrationQuerySet(models.QuerySet):
    def visible_to(self, user) -> IntegrationQuerySet:
        """Administrators see every integration. Others see one only when it is limited to
        datasources (an integration of every datasource reports on data they may not read) and
        they may read every one of them; a reader without rights sees nothing."""
        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.all()
        links = Integration.datasources.through.objects.filter(integration=OuterRef("pk"))
        readable = Datasource.objects.readable_by(user).values("pk")
        return self.filter(Exists(links)).exclude(Exists(links.exclude(datasource__in=readable)))


class Integration(models.Model):
    """One receiver of run results. `url` is shown (a deployment's address is no secret); the
    token or API key is stored encrypted like datasource passwords and never shown again."""

    class Kind(models.TextChoices):
        DAGSTER = "dagster", _("Dagster (asset checks)")
        OPENLINEAGE = "openlineage", _("OpenLineage (run events)")

    name = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    url = models.CharField(
        max_length=2000,
        help_text=_(
            "Dagster: the deployment's base URL (reports go to <url>/report_asset_check/<asset key>). "
            "OpenLineage: the endpoint receiving run events, e.g. http://marquez:5000/api/v1/lineage."
        ),
    )
    # Fernet ciphertext; read and write through `.secret`.
    secret_ciphertext = models.TextField(blank=True, default="", editable=False)
    asset_keys = models.JSONField(
        default=dict,
        blank=True,
        help_text=_(
            'Dagster: {"<check id>": "a/b/c"}, the asset key of a check\'s reports; '
            "unlisted checks use <datasource name>/<table's parts>."
        ),
    )
    namespace = models.CharField(
        max_length=200,
        blank=True,
        default="",
        help_text=_("OpenLineage: the job namespace of the events (default dq-platform)."),
    )
    datasources = models.ManyToManyField(
        "datasources.Datasource",
        blank=True,
        related_name="integrations",
        help_text=_("Only results of checks reading these datasources; none: every result."),
    )
    enabled = models.BooleanField(default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = IntegrationQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    @property
    def secret(self) -> str:
        return crypto.decrypt(self.secret_ciphertext) if self.secret_ciphertext else ""

    @secret.setter
    def secret(self, plaintext: str) -> None:
        self.secret_ciphertext = crypto.encrypt(plaintext) if plaintext else ""

    @property
    def has_secret(self) -> bool:
        return bool(self.secret_ciphertext)

    def covers(self, datasource_id: int | None, scope: set[int] | None = None) -> bool:
        """Whether a result of a check reading `datasource_id` goes here (`scope`: the listed
        datasources' ids, when the caller fetched them already)."""
        scope = {d.pk for d in self.datasources.all()} if scope is None else scope
        return not scope or datasource_id in scope


class DeliveryQuerySet(models.QuerySet):
    def visible_to(self, user) -> DeliveryQuerySet:
        """A report is as readable as the run it speaks of and the integration it went to; test
        reports (no run) are for administrators."""
        from executions.models import Run

        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.all()
        return self.filter(run__in=Run.objects.visible_to(user), integration__in=Integration.objects.visible_to(user))


class Delivery(models.Model):
    """One request to one integration: a Dagster report of one result, an OpenLineage event of one
    run, or a test. `key` makes a second report of the same thing impossible, however often the
    run's task is delivered. Each attempt is listed in `attempts`."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        SENDING = "sending", _("Sending")
        RETRYING = "retrying", _("Failed, will retry")
        SENT = "sent", _("Sent")
        FAILED = "failed", _("Failed")

    class Event(models.TextChoices):
        RESULT = "result", _("A result")
        RUN = "run", _("A run")
        TEST = "test", _("Test")

    integration = models.ForeignKey(Integration, null=True, on_delete=models.SET_NULL, related_name="deliveries")
    integration_name = models.CharField(max_length=100)
    kind = models.CharField(max_length=20, choices=Integration.Kind.choices)
    event = models.CharField(max_length=10, choices=Event.choices)
    run = models.ForeignKey(
        "executions.Run", null=True, blank=True, on_delete=models.CASCADE, related_name="integration_deliveries"
    )
    result = models.ForeignKey(
        "executions.Result", null=True, blank=True, on_delete=models.CASCADE, related_name="integration_deliveries"
    )
    key = models.CharField(max_length=100, null=True, blank=True, unique=True)
    path = models.CharField(max_length=1000, blank=True, help_text=_("Appended to the integration's URL."))
    payload = models.JSONField(default=dict, help_text=_("The JSON body sent."))
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    attempt = models.PositiveIntegerField(default=0, help_text=_("Attempts made so far."))
    attempts = models.JSONField(default=list, help_text=_('[{"number", "at", "ok", "error"}], oldest first.'))
    error = models.TextField(blank=True, help_text=_("The latest attempt's error (secrets removed)."))
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    objects = DeliveryQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "deliveries"

    def __str__(self) -> str:
        return f"Delivery {self.pk} to {self.integration_name} ({self.status})"
