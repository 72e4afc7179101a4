"""The watching API: schedules, alert channels, incidents, notifications and check mutes.
Every list pages on the server (dq_platform.pagination, the default); every queryset is the caller's
`visible_to(user)`."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view, inline_serializer
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.response import Response

from accounts.rights import alert_channel_permissions, schedule_permissions
from dq_platform.ids import as_id
from dq_platform.kept_pages import kept
from dq_platform.pagination import CountedApart
from dq_platform.search import search_text
from executions.models import Run
from rules.models import Check

from . import cron, incident_rows
from .delivery import send_test
from .handling import REFUSED, may_handle
from .incident_filters import filter_incidents
from .models import AlertChannel, CheckMute, Incident, IncidentComment, Notification, Schedule
from .serializers import (
    AlertChannelSerializer,
    ChannelTestSerializer,
    CronPreviewSerializer,
    IncidentCommentSerializer,
    IncidentDetailSerializer,
    IncidentSerializer,
    IncidentUpdateSerializer,
    MuteSerializer,
    NotificationSerializer,
    ResolveSerializer,
    ScheduleSerializer,
)

NAME_PART = "Part of the name"
# Who an incident may be given to: the first users by name who may see it.
ASSIGNEES_LISTED, ASSIGNEES_SCANNED = 20, 200
AssigneeSerializer = inline_serializer(
    "IncidentAssignee", {"id": serializers.IntegerField(), "username": serializers.CharField()}, many=True
)
MutedCheckSerializer = inline_serializer(
    "MutedCheck",
    {
        "check": serializers.IntegerField(),
        "check_name": serializers.CharField(),
        "until": serializers.DateTimeField(),
        "reason": serializers.CharField(),
        "muted_by": serializers.CharField(allow_null=True),
        "created_at": serializers.DateTimeField(),
    },
    many=True,
)


def _id_param(request, name: str) -> int | None:
    raw = request.query_params.get(name, "").strip()
    if not raw:
        return None
    found = as_id(raw)
    if found is None:
        raise ValidationError({name: [_("`%(name)s` is an id: a whole number.") % {"name": name}]})
    return found


class OwnerOrAdminWrites(permissions.BasePermission):
    message = "Only the schedule's owner or an administrator may change or delete it."

    def has_object_permission(self, request, view, obj):
        right = "delete" if getattr(view, "action", None) == "destroy" else "change"
        return request.method in permissions.SAFE_METHODS or right in schedule_permissions(request.user, obj.owner_id)


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
        right = {"test": "test", "destroy": "delete"}.get(getattr(view, "action", None), "change")
        return bool(request.user and request.user.is_authenticated) and right in alert_channel_permissions(request.user)


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


INCIDENT_FILTERS = [
    OpenApiParameter(
        "search", str, description="Part of the check's name, its table, a datasource's name or the assignee"
    ),
    OpenApiParameter("status", str, description="open, acknowledged, resolved (comma-separated)"),
    OpenApiParameter("severity", str, description="critical, high, medium, low (comma-separated)"),
    OpenApiParameter("assignee", str, description="A user id, `me` or `none`"),
    OpenApiParameter("datasource", int, description="Incidents of checks that read this datasource"),
    OpenApiParameter("check", int),
    OpenApiParameter(
        "ordering",
        str,
        description="opened_at (newest first by default: -opened_at), last_seen_at, severity, status, check, occurrences, id",
    ),
]


@extend_schema_view(list=extend_schema(parameters=INCIDENT_FILTERS))
class IncidentViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Incidents of the checks the caller may see (`Incident.objects.visible_to`), newest opened
    first: acknowledging or resolving one leaves it in its place. Searched, filtered and ordered
    on the server (watching/incident_filters.py). Acknowledged, assigned, given a severity and
    resolved (with a note) by the owners of the check's datasource, the check's owner and
    administrators (watching/handling.py); commented on by whoever sees it."""

    serializer_class = IncidentSerializer
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_queryset(self):
        incidents = Incident.objects.visible_to(self.request.user)
        if self.action == "list":  # the list reads the columns it shows (incident_rows)
            return filter_incidents(incidents, self.request.query_params, self.request.user)
        related = [
            "rule_check__mute__muted_by",
            "first_result",
            "last_result",
            "acknowledged_by",
            "resolved_by",
            "assignee",
        ]
        incidents = incidents.select_related(*related)
        if self.action == "retrieve":
            incidents = incidents.prefetch_related("comments__author", "changes__actor")
        return incidents

    def get_serializer_class(self):
        return IncidentDetailSerializer if self.action == "retrieve" else IncidentSerializer

    def list(self, request, *args, **kwargs):
        """The page's rows come from column values (watching/incident_rows.py): the same JSON
        as IncidentSerializer, without models and a serializer per row; kept while nothing changes."""
        return kept(request, self._page)

    def _page(self):
        incidents = self.get_queryset()
        user = self.request.user
        page = self.paginate_queryset(CountedApart(incident_rows.listed(incidents), incidents))
        if page is None:
            return Response(incident_rows.rows(incident_rows.listed(incidents), user))
        return self.get_paginated_response(incident_rows.rows(page, user))

    @extend_schema(request=IncidentUpdateSerializer, responses=IncidentDetailSerializer)
    def partial_update(self, request, pk=None):
        """Assign it (`assignee`: a username, or null for nobody) and/or set its `severity`; an
        optional `note` goes into the history."""
        incident = self._incident_the_user_may_handle(request, "assign its incidents or set their severity")
        body = IncidentUpdateSerializer(data=request.data, context={"incident": incident})
        body.is_valid(raise_exception=True)
        note = body.validated_data["note"]
        if "assignee" in body.validated_data:
            incident.assign(request.user, body.validated_data["assignee"], note)
        if "severity" in body.validated_data:
            incident.set_severity(request.user, body.validated_data["severity"], note)
        return self._detail(incident)

    @extend_schema(request=IncidentCommentSerializer, responses={201: IncidentCommentSerializer})
    @action(detail=True, methods=["post"])
    def comments(self, request, pk=None):
        """Say something about it: whoever may see the incident may comment."""
        incident = self.get_object()
        body = IncidentCommentSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        comment = IncidentComment.objects.create(
            incident=incident, author=request.user, text=body.validated_data["text"]
        )
        return Response(IncidentCommentSerializer(comment).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[OpenApiParameter("search", str, description="Part of a username")],
        responses=AssigneeSerializer,
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def assignees(self, request, pk=None):
        """Who it may be given to: active users who may see it (at most ASSIGNEES_LISTED), by
        username; `?search=` narrows them."""
        incident = self.get_object()
        users = get_user_model().objects.filter(is_active=True).order_by("username")
        search = request.query_params.get("search", "").strip()[:150]
        if search:
            users = users.filter(username__icontains=search)
        seeing = [
            {"id": u.pk, "username": u.get_username()}
            for u in users[:ASSIGNEES_SCANNED]
            if Incident.objects.visible_to(u).filter(pk=incident.pk).exists()
        ]
        return Response(seeing[:ASSIGNEES_LISTED])

    @extend_schema(request=None, responses=IncidentDetailSerializer)
    @action(detail=True, methods=["post"])
    def acknowledge(self, request, pk=None):
        incident = self._incident_the_user_may_handle(request, "acknowledge its incidents")
        if not incident.acknowledge(request.user):
            raise ValidationError(
                {
                    "status": [
                        _("Only an open incident can be acknowledged; this one is %(status)s.")
                        % {"status": incident.status}
                    ]
                }
            )
        return self._detail(incident)

    @extend_schema(request=ResolveSerializer, responses=IncidentDetailSerializer)
    @action(detail=True, methods=["post"])
    def resolve(self, request, pk=None):
        """Close it by hand, saying what was done (`note`, required)."""
        incident = self._incident_the_user_may_handle(request, "resolve its incidents")
        body = ResolveSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if not incident.resolve(request.user, note=body.validated_data["note"]):
            raise ValidationError({"status": [_("This incident is resolved already.")]})
        return self._detail(incident)

    def _detail(self, incident: Incident) -> Response:
        fresh = self.get_queryset().prefetch_related("comments__author", "changes__actor").get(pk=incident.pk)
        return Response(IncidentDetailSerializer(fresh, context=self.get_serializer_context()).data)

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
                raise ValidationError(
                    {"status": [_("Use one of %(items)s.") % {"items": ", ".join(Notification.Status.values)}]}
                )
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


@extend_schema(parameters=[OpenApiParameter("run", int, required=True)], responses=MutedCheckSerializer)
@api_view(["GET"])
def muted_checks_of_run(request):
    """`?run=`: the checks that failed or errored in the run and whose messages are muted now:
    by whom, until when and why (the run's page says so beside its failures)."""
    run_id = _id_param(request, "run")
    if run_id is None:
        raise ValidationError({"run": [_("Which run: `?run=` and its id.")]})
    run = get_object_or_404(Run.objects.visible_to(request.user), pk=run_id)
    failing = run.results.filter(status__in=["fail", "error"]).values("rule_check_id")
    mutes = (
        CheckMute.objects.filter(rule_check_id__in=failing, until__gt=timezone.now())
        .select_related("rule_check", "muted_by")
        .order_by("rule_check__name")
    )
    return Response(
        [
            {
                "check": m.rule_check_id,
                "check_name": m.rule_check.name,
                "until": m.until.isoformat(),
                "reason": m.reason,
                "muted_by": m.muted_by.get_username() if m.muted_by_id else None,
                "created_at": m.created_at.isoformat(),
            }
            for m in mutes
        ]
    )
