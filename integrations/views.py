"""The integrations API: integrations (administrators write; others read those `visible_to` them)
and the record of every report sent or tried."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, permissions, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from accounts.rights import is_admin
from dq_platform.ids import as_id
from dq_platform.search import search_text

from .delivery import send_test
from .models import Delivery, Integration
from .serializers import DeliverySerializer, IntegrationSerializer, IntegrationTestSerializer


class AdminWritesOnly(permissions.BasePermission):
    message = gettext_lazy("Only administrators may create, change, test or delete integrations.")

    def has_permission(self, request, view):
        return request.method in permissions.SAFE_METHODS or is_admin(request.user)


@extend_schema_view(list=extend_schema(parameters=[OpenApiParameter("search", str, description="Part of the name")]))
class IntegrationViewSet(viewsets.ModelViewSet):
    """Dagster and OpenLineage integrations. The token or API key is write-only: responses carry
    `has_secret` only."""

    serializer_class = IntegrationSerializer
    permission_classes = [permissions.IsAuthenticated, AdminWritesOnly]
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self):
        integrations = Integration.objects.visible_to(self.request.user).prefetch_related("datasources")
        text = search_text(self.request.query_params) if self.action == "list" else ""
        return integrations.filter(name__icontains=text) if text else integrations

    @extend_schema(request=None, responses=IntegrationTestSerializer)
    @action(detail=True, methods=["post"])
    def test(self, request, pk=None):
        """Send a test report now; `{"ok", "message"}` says what happened (recorded as a delivery)."""
        ok, message = send_test(self.get_object(), show_detail=is_admin(request.user))
        return Response({"ok": ok, "message": message})


def _id_param(request, name: str) -> int | None:
    raw = request.query_params.get(name, "").strip()
    if not raw:
        return None
    found = as_id(raw)
    if found is None:
        raise ValidationError({name: [_("`%(name)s` is an id: a whole number.") % {"name": name}]})
    return found


@extend_schema_view(
    list=extend_schema(
        parameters=[
            OpenApiParameter("integration", int),
            OpenApiParameter("run", int),
            OpenApiParameter("status", str, description="queued, sending, retrying, sent, failed"),
        ]
    )
)
class DeliveryViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Every report sent or tried, newest first, with each attempt; seen by whoever may read both
    the run and the integration (test reports: administrators)."""

    serializer_class = DeliverySerializer

    def get_queryset(self):
        deliveries = Delivery.objects.visible_to(self.request.user)
        for name, field in (("integration", "integration_id"), ("run", "run_id")):
            value = _id_param(self.request, name)
            if value is not None:
                deliveries = deliveries.filter(**{field: value})
        wanted = self.request.query_params.get("status")
        if wanted:
            if wanted not in Delivery.Status.values:
                raise ValidationError(
                    {"status": [_("Use one of %(values)s.") % {"values": ", ".join(Delivery.Status.values)}]}
                )
            deliveries = deliveries.filter(status=wanted)
        return deliveries
