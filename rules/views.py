from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.parsers import BaseParser, JSONParser
from rest_framework.response import Response

from datasources.connectors import ConnectorError, TableNotFound, connector_for
from datasources.models import Datasource
from datasources.views import SourceUnavailable
from executions.filters import filter_checks_by_last_result
from executions.views import visible_runs

from .forms import build_form
from .models import Check, ComparisonType, RuleTemplate
from .serializers import CheckSerializer, CheckVersionSerializer, ComparisonTypeSerializer, RuleTemplateSerializer
from .yaml_io import ImportInvalid, export_checks, import_checks


class RuleTemplateViewSet(viewsets.ReadOnlyModelViewSet):
    """The rule catalog. `form/` is the form-create rule array the SPA renders as served."""

    queryset = RuleTemplate.objects.all()
    serializer_class = RuleTemplateSerializer
    lookup_field = "key"

    @extend_schema(
        responses={
            200: inline_serializer(
                "FormRule", {"type": serializers.CharField(), "field": serializers.CharField()}, many=True
            )
        }
    )
    @action(detail=True, methods=["get"])
    def form(self, request, key=None):
        return Response(build_form(self.get_object(), request.user))


class ComparisonTypeViewSet(viewsets.ReadOnlyModelViewSet):
    queryset = ComparisonType.objects.all()
    serializer_class = ComparisonTypeSerializer
    lookup_field = "key"


class OwnerOrAdminWrites(permissions.BasePermission):
    message = "Only the check's owner or an administrator may change or delete it."

    def has_object_permission(self, request, view, obj):
        return request.method in permissions.SAFE_METHODS or request.user.is_staff or obj.owner_id == request.user.pk


class YAMLParser(BaseParser):
    media_type = "application/yaml"

    def parse(self, stream, media_type=None, parser_context=None):
        return stream.read().decode("utf-8")


class CheckViewSet(viewsets.ModelViewSet):
    """Checks the caller may see: all of their datasources are usable by the caller.

    Every create or change writes an immutable version; DELETE hides the check but keeps its
    versions, which results refer to.
    """

    serializer_class = CheckSerializer
    permission_classes = [permissions.IsAuthenticated, OwnerOrAdminWrites]

    def get_queryset(self):
        checks = Check.objects.visible_to(self.request.user).select_related("template", "owner")
        template = self.request.query_params.get("template")
        if template:
            checks = checks.filter(template__key=template)
        search = self.request.query_params.get("search")
        if search:
            checks = checks.filter(name__icontains=search)
        datasource = self.request.query_params.get("datasource")
        if datasource and datasource.isdigit():
            checks = checks.filter(datasources=datasource)
        if self.action == "list":
            checks = filter_checks_by_last_result(checks, self.request.query_params, visible_runs(self.request.user))
        return checks

    @extend_schema(
        parameters=[
            OpenApiParameter("search", str, description="Part of the name"),
            OpenApiParameter("template", str, description="A rule template key"),
            OpenApiParameter("datasource", int),
            OpenApiParameter(
                "last_status", str, description="Status of the newest result: pass, fail, error, unknown or never"
            ),
        ]
    )
    def list(self, request, *args, **kwargs):
        """Checks by name, paged (`?page=&page_size=`), filtered in the database."""
        return super().list(request, *args, **kwargs)

    def perform_destroy(self, instance):
        instance.soft_delete()

    @extend_schema(responses=CheckVersionSerializer(many=True))
    @action(detail=True, methods=["get"])
    def versions(self, request, pk=None):
        check = self.get_object()
        return Response(CheckVersionSerializer(check.versions.order_by("number"), many=True).data)

    @extend_schema(responses={(200, "application/yaml"): str})
    @action(detail=False, methods=["get"])
    def export(self, request):
        text = export_checks(self.get_queryset())
        response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="checks.yaml"'
        return response

    @extend_schema(request={"application/yaml": str}, responses=CheckSerializer(many=True))
    @action(detail=False, methods=["post"], url_path="import", parser_classes=[YAMLParser, JSONParser])
    def import_yaml(self, request):
        text = request.data if isinstance(request.data, str) else (request.data or {}).get("yaml", "")
        try:
            checks = import_checks(text, request.user)
        except ImportInvalid as exc:
            raise ValidationError(exc.fields) from None
        foreign = [c.name for c in checks if c.owner_id not in (request.user.pk, None) and not request.user.is_staff]
        if foreign:
            raise PermissionDenied(f"Checks owned by others cannot be replaced: {', '.join(foreign)}.")
        return Response(
            CheckSerializer(checks, many=True, context={"request": request}).data, status=status.HTTP_201_CREATED
        )


def _options_datasource(request) -> Datasource | None:
    raw = request.query_params.get("datasource", "")
    if not raw.isdigit():
        return None  # form-create asks once before a datasource is picked (stack-notes T23)
    return get_object_or_404(Datasource.objects.visible_to(request.user), pk=int(raw))


OPTIONS_RESPONSE = inline_serializer(
    "FormOptions",
    {
        "results": inline_serializer(
            "FormOption", {"label": serializers.CharField(), "value": serializers.CharField()}, many=True
        )
    },
)


@extend_schema(parameters=[OpenApiParameter("datasource", int)], responses=OPTIONS_RESPONSE)
@api_view(["GET"])
def table_options(request):
    """Table select options for rule forms: `{"results": [{"label", "value"}]}`."""
    datasource = _options_datasource(request)
    if datasource is None:
        return Response({"results": []})
    try:
        names = connector_for(datasource).tables()
    except ConnectorError as exc:
        raise SourceUnavailable(str(exc)) from None
    return Response({"results": [{"label": name, "value": name} for name in names]})


@extend_schema(
    parameters=[OpenApiParameter("datasource", int), OpenApiParameter("table", str)], responses=OPTIONS_RESPONSE
)
@api_view(["GET"])
def column_options(request):
    """Column select options for rule forms, labelled with their types."""
    datasource = _options_datasource(request)
    table = request.query_params.get("table", "").strip()
    if datasource is None or not table:
        return Response({"results": []})
    try:
        columns = connector_for(datasource).columns(table)
    except TableNotFound:
        return Response({"results": []})  # a stale table after the datasource changed
    except ConnectorError as exc:
        raise SourceUnavailable(str(exc)) from None
    return Response({"results": [{"label": f"{c.name} ({c.type})", "value": c.name} for c in columns]})
