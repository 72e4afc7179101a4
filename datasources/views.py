from __future__ import annotations

import logging

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound, PermissionDenied, ValidationError
from rest_framework.response import Response

from accounts.rights import datasource_permissions
from dq_platform.search import id_list, search_text

from .connectors import ConnectorError, TableNotFound, connector_for
from .models import Datasource
from .serializers import ColumnSerializer, ConnectionTestSerializer, DatasourceSerializer, TableSerializer

log = logging.getLogger(__name__)


class SourceUnavailable(APIException):
    """The datasource itself did not answer: the gateway's upstream failed, not the request."""

    status_code = status.HTTP_502_BAD_GATEWAY
    default_detail = gettext_lazy("The datasource could not be reached.")


class AdminWritesOnly(permissions.BasePermission):
    message = gettext_lazy("Only administrators may create, change or delete datasources.")

    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return True
        right = {"test": "test", "destroy": "delete"}.get(getattr(view, "action", None), "change")
        return bool(request.user and request.user.is_authenticated) and right in datasource_permissions(request.user)


DATASOURCE_FILTERS = [
    OpenApiParameter("search", str, description="Part of the datasource's name"),
    OpenApiParameter("ids", str, description="Only these datasources: ids, comma-separated"),
]


def _searched(datasources, params):
    text = search_text(params)
    if text:
        datasources = datasources.filter(name__icontains=text)
    ids = id_list(params)
    if ids is not None:
        datasources = datasources.filter(pk__in=ids)
    return datasources


class DatasourceViewSet(viewsets.ModelViewSet):
    """Datasources the caller may use. Admins write; everyone else reads without secrets.

    A datasource limited to groups the caller is not in answers 404, as if it did not exist.
    DELETE is a soft delete (`Datasource.soft_delete`): the datasource disappears from here and
    from forms, its name is free again, and what earlier runs read from it stays readable only by
    its groups (`Datasource.objects.readable_by`).
    """

    serializer_class = DatasourceSerializer
    permission_classes = [permissions.IsAuthenticated, AdminWritesOnly]

    def get_queryset(self):
        datasources = Datasource.objects.visible_to(self.request.user).prefetch_related(
            "allowed_groups", "owners", "owner_groups"
        )
        if self.action == "list":
            datasources = _searched(datasources, self.request.query_params)
        return datasources

    @extend_schema(parameters=DATASOURCE_FILTERS)
    def list(self, request, *args, **kwargs):
        """The datasources the caller may use, by name, paged; `?search=` and `?ids=` narrow them."""
        return super().list(request, *args, **kwargs)

    def perform_destroy(self, instance):
        instance.soft_delete()

    @extend_schema(
        request=DatasourceSerializer,
        responses=ConnectionTestSerializer,
        description="Anyone who may use the datasource tests it as stored (no body). An administrator "
        "may send changed fields, validated as a PATCH, to test an edit before saving it; a password "
        "left out is the stored one.",
    )
    @action(detail=True, methods=["post"])
    def test(self, request, pk=None):
        datasource = self.get_object()
        if request.data:
            if "change" not in datasource_permissions(request.user):
                raise PermissionDenied(AdminWritesOnly.message)
            datasource = self._validated(request, datasource)
        return self._connection_test(datasource)

    @extend_schema(
        operation_id="v1_datasources_test_unsaved",
        request=DatasourceSerializer,
        responses=ConnectionTestSerializer,
        description="Administrators: test a configuration before creating it (validated as a create).",
    )
    @action(detail=False, methods=["post"], url_path="test", url_name="test-unsaved")
    def test_unsaved(self, request):
        return self._connection_test(self._validated(request, None))

    def _validated(self, request, instance: Datasource | None) -> Datasource:
        serializer = self.get_serializer(instance, data=request.data, partial=instance is not None)
        serializer.is_valid(raise_exception=True)  # the same 400s, field by field, as saving would give
        return serializer.unsaved()

    def _connection_test(self, datasource: Datasource) -> Response:
        try:
            message = connector_for(datasource).test()
        except ConnectorError as exc:
            log.info("Connection test of datasource %s failed: %s", datasource.pk or "(unsaved)", exc)
            return Response({"ok": False, "message": str(exc)})
        return Response({"ok": True, "message": message})

    @extend_schema(
        parameters=[OpenApiParameter("search", str, description="Part of the table's name")],
        responses=TableSerializer(many=True),
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def tables(self, request, pk=None):
        """Every table of the live catalog (not paged: the source answers them at once)."""
        datasource = self.get_object()
        text = search_text(request.query_params).casefold()
        try:
            names = connector_for(datasource).tables()
        except ConnectorError as exc:
            raise SourceUnavailable(str(exc)) from None
        return Response([{"name": name} for name in names if text in name.casefold()])

    @extend_schema(
        parameters=[
            OpenApiParameter("table", str, required=True, description="A name from tables/."),
            OpenApiParameter("search", str, description="Part of the column's name"),
        ],
        responses=ColumnSerializer(many=True),
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def columns(self, request, pk=None):
        datasource = self.get_object()
        table = request.query_params.get("table", "").strip()
        if not table:
            raise ValidationError({"table": [_("This query parameter is required: a table name from tables/.")]})
        text = search_text(request.query_params).casefold()
        try:
            columns = connector_for(datasource).columns(table)
        except TableNotFound as exc:
            raise NotFound(str(exc)) from None
        except ConnectorError as exc:
            raise SourceUnavailable(str(exc)) from None
        return Response([{"name": c.name, "type": c.type} for c in columns if text in c.name.casefold()])
