"""The monitors API. Every queryset is the caller's `Monitor.objects.visible_to(user)` (a monitor
follows its datasource: others get 404); switching on, off and deleting is for the datasource's
owners and administrators (`changeable_by`: others who may read it get 403)."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.response import Response

from datasources.connectors import ConnectorError
from datasources.models import Datasource
from datasources.views import SourceUnavailable
from dq_platform.ids import as_id

from .models import DEFAULT_CRON, Monitor
from .serializers import (
    MonitorChangeSerializer,
    MonitorCreatedSerializer,
    MonitorRequestSerializer,
    MonitorSerializer,
)
from .switching import MonitorInvalid, ensure_schedule, set_enabled, switch_off_for_good, switch_on

REFUSED = gettext_lazy("Only the owners of the datasource and administrators may switch its monitors on or off.")

FILTERS = [
    OpenApiParameter("datasource", int, description="Monitors of this datasource"),
    OpenApiParameter("table", str, description="Monitors covering this table (its own, or its datasource's whole)"),
]


@extend_schema_view(
    list=extend_schema(parameters=FILTERS),
    create=extend_schema(request=MonitorRequestSerializer, responses={201: MonitorCreatedSerializer}),
    partial_update=extend_schema(request=MonitorChangeSerializer, responses={200: MonitorSerializer}),
)
class MonitorViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Table monitors: volume, freshness and schema changes of a table (or of every table of a
    datasource), each an ordinary check, on one schedule."""

    serializer_class = MonitorSerializer
    permission_classes = [permissions.IsAuthenticated]
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self):
        monitors = (
            Monitor.objects.visible_to(self.request.user)
            .select_related("datasource", "schedule", "owner")
            .prefetch_related("monitor_checks__rule_check__template")
        )
        if self.action != "list":
            return monitors
        params = self.request.query_params
        raw = params.get("datasource", "").strip()
        if raw:
            found = as_id(raw)
            if found is None:
                raise ValidationError(
                    {"datasource": [_("An id (a whole number from 1); got %(raw)s.") % {"raw": repr(raw)}]}
                )
            monitors = monitors.filter(datasource_id=found)
        table = params.get("table", "").strip()
        if table:
            monitors = monitors.filter(monitor_checks__table=table).distinct()
        return monitors

    def get_serializer_context(self):
        context = super().get_serializer_context()
        user = self.request.user
        context["changeable"] = set(Datasource.objects.owned_by(user).values_list("pk", flat=True))
        return context

    def _may_change(self, datasource_id: int) -> None:
        if not Datasource.objects.owned_by(self.request.user).filter(pk=datasource_id).exists():
            raise PermissionDenied(REFUSED)

    def create(self, request, *args, **kwargs):
        request_serializer = MonitorRequestSerializer(data=request.data, context={"request": request})
        request_serializer.is_valid(raise_exception=True)
        settings = dict(request_serializer.validated_data)
        datasource = settings.pop("datasource")
        self._may_change(datasource.pk)
        try:
            monitor, skipped = switch_on(datasource, settings, request.user)
        except MonitorInvalid as exc:
            raise ValidationError(exc.fields) from None
        except ConnectorError as exc:
            raise SourceUnavailable(f"Datasource {datasource.name!r} did not answer: {exc}") from None
        body = self.get_serializer(self.get_queryset().get(pk=monitor.pk)).data
        return Response({**body, "skipped": skipped}, status=status.HTTP_201_CREATED)

    def partial_update(self, request, *args, **kwargs):
        monitor = self.get_object()
        self._may_change(monitor.datasource_id)
        change = MonitorChangeSerializer(data=request.data)
        change.is_valid(raise_exception=True)
        values = change.validated_data
        with transaction.atomic():
            if monitor.schedule is None and (values.get("enabled") or "schedule" in values):
                ensure_schedule(
                    monitor, values.get("schedule", DEFAULT_CRON), values.get("timezone", "UTC"), request.user
                )
            schedule = monitor.schedule
            if schedule is not None and ("schedule" in values or "timezone" in values):
                schedule.cron = values.get("schedule", schedule.cron)
                schedule.timezone = values.get("timezone", schedule.timezone)
                schedule.save()
            if "enabled" in values:
                set_enabled(monitor, values["enabled"])
        return Response(self.get_serializer(self.get_queryset().get(pk=monitor.pk)).data)

    def update(self, request, *args, **kwargs):
        return self.partial_update(request, *args, **kwargs)

    def destroy(self, request, *args, **kwargs):
        monitor = self.get_object()
        self._may_change(monitor.datasource_id)
        switch_off_for_good(monitor)
        return Response(status=status.HTTP_204_NO_CONTENT)
