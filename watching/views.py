"""The watching API: schedules, alert channels, incidents, notifications and check mutes.
Every list pages on the server (dq_platform.pagination, the default); every queryset is the caller's
`visible_to(user)`."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.response import Response

from dq_platform.ids import as_id
from dq_platform.kept_pages import kept
from dq_platform.pagination import CountedApart
from dq_platform.search import search_text
from executions.models import Run
from rules.models import Check

from . import cron, incident_rows
from .delivery import send_test
from .handling import REFUSED, may_handle
from .models import AlertChannel, CheckMute, Incident, Notification, Schedule
from .serializers import (
    AlertChannelSerializer,
    ChannelTestSerializer,
    CronPreviewSerializer,
    IncidentSerializer,
    MuteSerializer,
    NotificationSerializer,
    ResolveSerializer,
    ScheduleSerializer,
)

NAME_PART = "Part of the name"


def _id_param(request, name: str) -> int | None:
    raw = request.query_params.get(name, "").strip()
    if not raw:
        return None
    found = as_id(raw)
    if found is None:
        raise ValidationError({name: [f"`{name}` is an id: a whole number."]})
    return found


class OwnerOrAdminWrites(permissions.BasePermission):
    message = "Only the schedule's owner or an administrator may change or delete it."

    def has_object_permission(self, request, view, obj):
        return request.method in permissions.SAFE_METHODS or request.user.is_staff or obj.owner_id == request.user.pk


class ScheduleViewSet(viewsets.ModelViewSet):
    """Cron schedules of checks. Seen by whoever may see all of their checks; changed by the
    owner and administrators. `?check=` lists the schedules that run a check."""

    serializer_class = ScheduleSerializer
    permission_classes = [permissions.IsAuthenticated, OwnerOrAdminWrites]

    def get_queryset(self):
        schedules = Schedule.objects.visible_to(self.request.user).select_related("owner").prefetch_related("checks")
        check = _id_param(self.request, "check")
        if check is not None:
            schedules = schedules.filter(checks=check)
        enabled = self.request.query_params.get("enabled")
        if enabled in ("true", "false"):
            schedules = schedules.filter(enabled=enabled == "true")
        text = search_text(self.request.query_params) if self.action == "list" else ""
        if text:
            schedules = schedules.filter(name__icontains=text)
        return schedules.distinct()

    @extend_schema(parameters=[OpenApiParameter("check", int), OpenApiParameter("search", str, description=NAME_PART)])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(
        parameters=[OpenApiParameter("cron", str, required=True), OpenApiParameter("timezone", str)],
        responses=CronPreviewSerializer,
    )
    @action(detail=False, methods=["get"])
    def preview(self, request):
        """The cron in words and its next five firing times, for the form as it is typed."""
        text, zone_name = request.query_params.get("cron", ""), request.query_params.get("timezone", "UTC")
        problems = {}
        try:
            parsed = cron.parse(text)
        except cron.CronInvalid as exc:
            problems["cron"] = [str(exc)]
        try:
            zone = cron.zone(zone_name)
        except cron.CronInvalid as exc:
            problems["timezone"] = [str(exc)]
        if problems:
            raise ValidationError(problems)
        from django.utils import timezone

        slots = parsed.next_slots(timezone.now(), zone, 5)
        return Response(
            {
                "cron": parsed.expression,
                "timezone": zone_name,
                "description": cron.describe(parsed, zone_name),
                "next_runs": [s.isoformat() for s in slots],
            }
        )


class AdminWritesOnly(permissions.BasePermission):
    message = "Only administrators may create, change, test or delete alert channels."

    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_staff)


class AlertChannelViewSet(viewsets.ModelViewSet):
    """Admin-managed alert channels. Everyone signed in reads them (never their targets: only
    `has_target` and a redacted `target_preview`); `?check=` lists the channels a check's
    messages go to."""

    serializer_class = AlertChannelSerializer
    permission_classes = [permissions.IsAuthenticated, AdminWritesOnly]
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self):
        channels = AlertChannel.objects.prefetch_related("checks", "datasources")
        text = search_text(self.request.query_params) if self.action == "list" else ""
        return channels.filter(name__icontains=text) if text else channels

    @extend_schema(parameters=[OpenApiParameter("check", int), OpenApiParameter("search", str, description=NAME_PART)])
    def list(self, request, *args, **kwargs):
        check_id = _id_param(request, "check")
        if check_id is None:
            return super().list(request, *args, **kwargs)
        check = get_object_or_404(Check.objects.visible_to(request.user), pk=check_id)
        channels = [c for c in self.get_queryset() if c.covers(check)]
        page = self.paginate_queryset(channels)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    @extend_schema(request=None, responses=ChannelTestSerializer)
    @action(detail=True, methods=["post"])
    def test(self, request, pk=None):
        """Send a test message now; `{"ok", "message"}` says what happened (recorded as a notification)."""
        ok, message = send_test(self.get_object(), show_detail=request.user.is_staff)
        return Response({"ok": ok, "message": message})


class IncidentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Incidents of the checks the caller may see, open first. `?status=open|acknowledged|resolved`
    (several with commas), `?check=`. Acknowledged and resolved by the owners of the check's
    datasource, the check's owner and administrators (watching/handling.py)."""

    serializer_class = IncidentSerializer

    def get_queryset(self):
        incidents = Incident.objects.visible_to(self.request.user)
        if self.action != "list":  # the list reads the columns it shows (incident_rows)
            incidents = incidents.select_related(
                "rule_check__mute", "first_result", "last_result", "acknowledged_by", "resolved_by"
            )
        wanted = [s for s in self.request.query_params.get("status", "").split(",") if s.strip()]
        unknown = [s for s in wanted if s not in Incident.Status.values]
        if unknown:
            raise ValidationError(
                {"status": [f"Unknown status {', '.join(unknown)}; use open, acknowledged or resolved."]}
            )
        if wanted:
            incidents = incidents.filter(status__in=wanted)
        check = _id_param(self.request, "check")
        if check is not None:
            incidents = incidents.filter(rule_check_id=check)
        return incidents.order_by("status_rank", "-opened_at", "-id")  # the `incident_list_order` index

    def list(self, request, *args, **kwargs):
        """The page's rows come from column values (watching/incident_rows.py): the same JSON
        as IncidentSerializer, without models and a serializer per row; kept while nothing changes."""
        return kept(request, self._page)

    def _page(self):
        incidents = self.get_queryset()
        page = self.paginate_queryset(CountedApart(incident_rows.listed(incidents), incidents))
        if page is None:
            return Response(incident_rows.rows(incident_rows.listed(incidents)))
        return self.get_paginated_response(incident_rows.rows(page))

    @extend_schema(request=None, responses=IncidentSerializer)
    @action(detail=True, methods=["post"])
    def acknowledge(self, request, pk=None):
        incident = self._incident_the_user_may_handle(request, "acknowledge its incidents")
        if not incident.acknowledge(request.user):
            raise ValidationError(
                {"status": [f"Only an open incident can be acknowledged; this one is {incident.status}."]}
            )
        return Response(self.get_serializer(incident).data)

    @extend_schema(request=ResolveSerializer, responses=IncidentSerializer)
    @action(detail=True, methods=["post"])
    def resolve(self, request, pk=None):
        incident = self._incident_the_user_may_handle(request, "resolve its incidents")
        body = ResolveSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if not incident.resolve(request.user, note=body.validated_data["note"]):
            raise ValidationError({"status": ["This incident is resolved already."]})
        return Response(self.get_serializer(incident).data)

    def _incident_the_user_may_handle(self, request, what: str) -> Incident:
        incident = self.get_object()
        if not may_handle(request.user, incident.rule_check):
            raise PermissionDenied(REFUSED.format(what=what))
        return incident


class NotificationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Every message sent or tried, newest first, with each attempt. `?run=`, `?channel=`,
    `?status=`. Seen by whoever may see the run; test messages by administrators."""

    serializer_class = NotificationSerializer

    def get_queryset(self):
        user = self.request.user
        notifications = Notification.objects.prefetch_related("attempts", "incidents")
        if not user.is_staff:
            notifications = notifications.filter(run__in=Run.objects.visible_to(user))
        for name, field in (("run", "run_id"), ("channel", "channel_id")):
            value = _id_param(self.request, name)
            if value is not None:
                notifications = notifications.filter(**{field: value})
        wanted = self.request.query_params.get("status")
        if wanted:
            if wanted not in Notification.Status.values:
                raise ValidationError({"status": [f"Use one of {', '.join(Notification.Status.values)}."]})
            notifications = notifications.filter(status=wanted)
        return notifications


@extend_schema(methods=["POST"], request=MuteSerializer, responses=MuteSerializer)
@extend_schema(methods=["GET", "DELETE"], request=None, responses=MuteSerializer)
@api_view(["GET", "POST", "DELETE"])
def check_mute(request, pk: int):
    """Hold back a check's messages until a time: `{"until": ISO time, "reason"}`, at most
    DQ_MUTE_MAX_DAYS ahead, with a reason. Incidents still open and join while muted. The owners
    of the check's datasource, the check's owner and administrators mute; DELETE unmutes."""
    check = get_object_or_404(Check.objects.visible_to(request.user), pk=pk)
    mute = CheckMute.objects.filter(rule_check=check).first()
    if request.method == "GET":
        if mute is None:
            return Response({"check": check.pk, "until": None, "reason": "", "muted_by": None, "created_at": None})
        return Response(MuteSerializer(mute).data)
    if not may_handle(request.user, check):
        raise PermissionDenied(REFUSED.format(what="mute or unmute it"))
    if request.method == "DELETE":
        if mute:
            mute.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
    body = MuteSerializer(mute, data=request.data)
    body.is_valid(raise_exception=True)
    saved = body.save(rule_check=check, muted_by=request.user)
    return Response(MuteSerializer(saved).data)
