"""Table profiles: one row per profile asked for (a datasource's table, maybe a filter), its state,
and once done the engine's document (dq_engine/profiling: PROFILE_CONTRACT)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from datasources.models import Datasource
from datasources.readable import readable_ids


class ProfileQuerySet(models.QuerySet):
    def visible_to(self, user) -> ProfileQuerySet:
        """Profiles the user may read: those of datasources whose data they may read
        (`Datasource.objects.readable_by`: deleted ones included, decided by their groups); admins
        all. Every view of profiles asks this; the others are 404."""
        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.all()
        readable = readable_ids(user, lambda: list(Datasource.objects.readable_by(user).values_list("pk", flat=True)))
        return self.filter(datasource_id__in=readable)

    def of_table(self, datasource_id: int, table: str, filter_text: str = "") -> ProfileQuerySet:
        return self.filter(datasource_id=datasource_id, table=table, filter=filter_text)


class Profile(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        ERROR = "error", _("Error")

    IN_FLIGHT = (Status.QUEUED, Status.RUNNING)

    datasource = models.ForeignKey(Datasource, on_delete=models.PROTECT, related_name="profiles")
    table = models.CharField(max_length=500)
    filter = models.TextField(blank=True, default="", help_text="A batch's filter (Spark SQL), or empty: the table.")
    engine = models.CharField(max_length=20, blank=True, help_text="The engine asked for (auto or one engine).")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    message = models.TextField(blank=True, help_text="Why the profile ended `error`.")
    document = models.JSONField(null=True, blank=True, help_text="The engine's profile document, once done.")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = ProfileQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["datasource", "table", "-id"], name="profile_of_table")]

    def __str__(self) -> str:
        return f"Profile {self.pk} of {self.table} ({self.status})"

    def previous_done(self) -> Profile | None:
        """The newest done profile of the same table and filter before this one."""
        return (
            Profile.objects.of_table(self.datasource_id, self.table, self.filter)
            .filter(status=Profile.Status.DONE, pk__lt=self.pk)
            .order_by("-pk")
            .first()
        )
