from __future__ import annotations

from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import permissions, serializers, status, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.exceptions import APIException, ParseError, ValidationError
from rest_framework.parsers import BaseParser
from rest_framework.response import Response

from accounts.rights import check_permissions
from datasources.connectors import ConnectorError, TableNotFound, connector_for
from datasources.models import Datasource
from datasources.views import SourceUnavailable
from dq_platform.ids import as_id
from dq_platform.kept_pages import kept
from dq_platform.pagination import CountedApart
from dq_platform.parsers import JSONParser, read_limited
from dq_platform.search import id_list
from executions.filters import filter_checks_by_last_result
from executions.models import Run

from . import bulk, check_rows, code_views
from .cloning import clone_body
from .forms import build_form
from .models import Check, CheckVersion, ComparisonType, RuleTemplate
from .params import ParamsInvalid
from .serializers import (
    CheckSerializer,
    CheckVersionSerializer,
    ComparisonTypeSerializer,
    RuleTemplateSerializer,
    UpgradePlanSerializer,
)
from .upgrades import AlreadyCurrent, upgrade, upgrade_plan
from .yaml_io import export_checks


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
    @action(detail=True, methods=["get"], pagination_class=None)
    def form(self, request, key=None):
        return Response(build_form(self.get_object(), request.user))


class AdminWrites(permissions.BasePermission):
    message = gettext_lazy("Only administrators may add or change comparison types.")

    def has_permission(self, request, view):
        return request.method in permissions.SAFE_METHODS or bool(request.user and request.user.is_staff)


class ComparisonTypeViewSet(viewsets.ModelViewSet):
    """Comparison types are data: admins add one from its fields (source, window, aggregation,
    batch) and every run evaluates it without code. Not deleted here: templates refer to them."""

    queryset = ComparisonType.objects.all()
    serializer_class = ComparisonTypeSerializer
    permission_classes = [permissions.IsAuthenticated, AdminWrites]
    lookup_field = "key"
    http_method_names = ["get", "post", "put", "patch", "head", "options"]


ALREADY_CURRENT = OpenApiResponse(description="`{message, fields}`: the check already uses the current version.")


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = gettext_lazy("The request conflicts with the current state.")


class OwnerOrAdminWrites(permissions.BasePermission):
    """A write on one check needs the right the API reports in its `permissions` (accounts/rights.py):
    changing, upgrading and deleting are the owner's and administrators'; cloning is everyone's who sees it."""

    message = gettext_lazy("Only the check's owner or an administrator may change or delete it.")
    RIGHT_OF_ACTION = {"destroy": "delete", "clone": "clone"}

    def has_object_permission(self, request, view, obj):
        if request.method in permissions.SAFE_METHODS:
            return True
        right = self.RIGHT_OF_ACTION.get(getattr(view, "action", None), "change")
        return right in check_permissions(request.user, obj.owner_id)


# The exported (and importable) YAML document, described as what it parses to.
CHECKS_DOCUMENT = inline_serializer(
    "ChecksDocument",
    {
        "version": serializers.IntegerField(),
        "checks": serializers.ListField(
            child=inline_serializer(
                "ChecksDocumentCheck",
                {
                    "name": serializers.CharField(),
                    "template": serializers.CharField(),
                    "params": serializers.DictField(),
                    "description": serializers.CharField(required=False),
                },
            )
        ),
    },
)


class YAMLParser(BaseParser):
    """The import's YAML text, at most DQ_MAX_BODY_BYTES, as UTF-8."""

    media_type = "application/yaml"

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return read_limited(stream).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(_("The YAML body is not UTF-8 text (byte %(byte)s).") % {"byte": exc.start}) from None


class CheckFilters(serializers.Serializer):
    template = serializers.CharField(required=False, max_length=64)
    search = serializers.CharField(required=False, max_length=200)
    tag = serializers.CharField(required=False, max_length=200)
    owner = serializers.CharField(required=False, max_length=150)
    # A choice, not a BooleanField: from a query string, DRF reads a missing boolean as false.
    enabled = serializers.ChoiceField(
        required=False, choices=["true", "false"], error_messages={"invalid_choice": gettext_lazy("Use true or false.")}
    )
    datasource = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=2**63 - 1,
        error_messages={
            "invalid": "A datasource id: a whole number.",
            "min_value": "A datasource id: a whole number from 1.",
            "max_value": "A datasource id: a whole number.",
            "max_string_length": "A datasource id: a whole number.",
        },
    )


CHECK_FILTERS = [
    OpenApiParameter(
        "last_status",
        str,
        description="Status of the newest result: pass, fail, error, unknown or never (comma-separated)",
    ),
    OpenApiParameter("template", str, description="A rule template key"),
    OpenApiParameter("search", str, description="Part of the check's name"),
    OpenApiParameter("datasource", int, description="Checks that read this datasource"),
    OpenApiParameter("ids", str, description="Only these checks: ids, comma-separated (a picker naming its choices)"),
    OpenApiParameter("tag", str, description="Checks with this tag"),
    OpenApiParameter("owner", str, description="Checks owned by this user (a username)"),
    OpenApiParameter("enabled", bool, description="Only enabled (true) or disabled (false) checks"),
]

BULK_ANSWER = inline_serializer(
    "BulkAnswer",
    {
        "action": serializers.CharField(),
        "done": serializers.IntegerField(),
        "refused": serializers.IntegerField(),
        "results": inline_serializer(
            "BulkOutcome",
            {
                "id": serializers.IntegerField(),
                "name": serializers.CharField(),
                "ok": serializers.BooleanField(),
                "detail": serializers.CharField(),
            },
            many=True,
        ),
    },
)


@extend_schema_view(list=extend_schema(parameters=CHECK_FILTERS))
class CheckViewSet(viewsets.ModelViewSet):
    """Checks the caller may see (`Check.objects.visible_to`: the data of their current
    datasources is readable by the caller).

    Every create or change writes an immutable version; DELETE hides the check but keeps its
    versions, which results refer to. Changes of one check are applied one after the other: a
    write takes the check's row lock for the whole request (validation included, so a PATCH
    merges into the params the previous writer left), which keeps version numbers contiguous and
    the check's params equal to its current version's.
    """

    serializer_class = CheckSerializer
    permission_classes = [permissions.IsAuthenticated, OwnerOrAdminWrites]
    WRITES = ("update", "partial_update", "destroy")

    def get_queryset(self):
        checks = Check.objects.visible_to(self.request.user)
        if self.action == "list":
            return self._filtered(checks)  # `check_rows` reads the columns it shows
        checks = check_rows.with_template_version_in_use(
            checks.select_related("template", "owner").prefetch_related("tags")
        )
        if self.action in self.WRITES:
            # of=("self",): the owner join is an outer join, which PostgreSQL will not lock.
            return checks.select_for_update(of=("self",))
        if self.action != "export":
            return checks
        return self._filtered(checks)

    def _filtered(self, checks):
        filters = CheckFilters(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        if "template" in filters.validated_data:
            checks = checks.filter(template__key=filters.validated_data["template"])
        if "search" in filters.validated_data:
            checks = checks.filter(name__icontains=filters.validated_data["search"])
        if "datasource" in filters.validated_data:
            checks = checks.filter(datasources=filters.validated_data["datasource"])
        ids = id_list(self.request.query_params)
        if ids is not None:
            checks = checks.filter(pk__in=ids)
        if "tag" in filters.validated_data:
            checks = checks.filter(tags__name=filters.validated_data["tag"].strip())
        if "owner" in filters.validated_data:
            checks = checks.filter(owner__username=filters.validated_data["owner"])
        if "enabled" in filters.validated_data:
            checks = checks.filter(enabled=filters.validated_data["enabled"] == "true")
        if self.action == "list" and self.request.query_params.get("last_status"):
            # Only then: the runs the caller may see are worked out for this filter alone.
            checks = filter_checks_by_last_result(
                checks, self.request.query_params, Run.objects.visible_to(self.request.user)
            )
        return checks

    def list(self, request, *args, **kwargs):
        """The page's rows come from column values (rules/check_rows.py): the same JSON as
        CheckSerializer, without a model and a serializer per row; kept while nothing changes."""
        return kept(request, self._page)

    def _page(self):
        checks = self.get_queryset()
        page = self.paginate_queryset(CountedApart(check_rows.listed(checks), checks))
        if page is None:
            return Response(check_rows.rows(check_rows.listed(checks), self.request.user))
        return self.get_paginated_response(check_rows.rows(page, self.request.user))

    def update(self, request, *args, **kwargs):
        with transaction.atomic():  # holds the row lock taken by get_object() until the version is written
            return super().update(request, *args, **kwargs)

    def destroy(self, request, *args, **kwargs):
        with transaction.atomic():
            return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance):
        instance.soft_delete(by=self.request.user)

    @extend_schema(request=None, responses={201: CheckSerializer})
    @action(detail=True, methods=["post"])
    def clone(self, request, pk=None):
        """A new check from this one: "<name> (copy)", owned by the caller, at its first version,
        with the same params and tags (validated for the caller, like any new check)."""
        clone = CheckSerializer(data=clone_body(self.get_object()), context={"request": request})
        clone.is_valid(raise_exception=True)
        clone.save()
        return Response(CheckSerializer(clone.instance, context={"request": request}).data, status=201)

    @extend_schema(request=bulk.BulkRequestSerializer, responses=BULK_ANSWER)
    @action(detail=False, methods=["post"])
    def bulk(self, request):
        """One action on a selection: enable, disable, add_tag, remove_tag, set_owner, delete or
        run. Applied check by check with the caller's rights; the answer says, per check, what was
        done or why it was refused. A refused check does not stop the others."""
        body = bulk.BulkRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        outcomes = bulk.apply(
            data["action"], data["checks"], request.user, tag=data.get("tag"), owner=data.get("owner")
        )
        done = sum(o.ok for o in outcomes)
        return Response(
            {"action": data["action"], "done": done, "refused": len(outcomes) - done, "results": bulk.as_json(outcomes)}
        )

    @extend_schema(responses=CheckVersionSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def versions(self, request, pk=None):
        """The check's versions whose data the caller may read (each version froze the
        datasources it read; a check moved off a restricted datasource keeps those versions
        from people outside its groups)."""
        check = self.get_object()
        versions = CheckVersion.objects.visible_to(request.user).filter(parent_check=check).order_by("number")
        return Response(CheckVersionSerializer(versions, many=True).data)

    @extend_schema(
        methods=["GET"],
        responses={200: UpgradePlanSerializer, 409: ALREADY_CURRENT},
        description="What changed between the template version the check uses and the current one.",
    )
    @extend_schema(
        methods=["POST"],
        request=None,
        responses={
            200: CheckSerializer,
            400: OpenApiResponse(
                description="`{message, fields: {params: {field: [...]}}}`: params that no longer fit."
            ),
            409: ALREADY_CURRENT,
        },
        description="A new check version on the template's current version, its params validated against it.",
    )
    @action(detail=True, methods=["get", "post"])
    def upgrade(self, request, pk=None):
        check = self.get_object()
        try:
            if request.method == "GET":
                return Response(upgrade_plan(check))
            upgrade(check, request.user)
        except AlreadyCurrent as exc:
            raise Conflict(str(exc)) from None
        except ParamsInvalid as exc:
            raise ValidationError({"params": exc.fields}) from None
        return Response(CheckSerializer(self.get_object(), context={"request": request}).data)

    @extend_schema(
        parameters=[*CHECK_FILTERS, code_views.EXPORT_IDS], responses={(200, "application/yaml"): CHECKS_DOCUMENT}
    )
    @action(detail=False, methods=["get"])
    def export(self, request):
        text = export_checks(code_views.selected(self.get_queryset(), request))
        response = HttpResponse(text, content_type="application/yaml; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="checks.yaml"'
        return response

    @extend_schema(
        request=code_views.IMPORT_REQUEST,
        parameters=code_views.IMPORT_PARAMETERS,
        responses=code_views.IMPORT_RESPONSES,
    )
    @action(detail=False, methods=["post"], url_path="import", parser_classes=[YAMLParser, JSONParser])
    def import_yaml(self, request):
        """All or nothing: every check is validated, and ownership checked, before anything is
        written; a refused import (400 invalid, 403 someone else's check) changes nothing.
        `dry_run=true` answers what each check would become (added, changed with its field
        changes, unchanged, refused with why and the line) and writes nothing."""
        return code_views.import_answer(request)


def _options_datasource(request) -> Datasource | None:
    raw = request.query_params.get("datasource", "").strip()
    if not raw:
        return None  # form-create asks once before a datasource is picked
    found = as_id(raw)
    if found is None:
        raise ValidationError({"datasource": [_("A datasource id: a whole number.")]})
    return get_object_or_404(Datasource.objects.visible_to(request.user), pk=found)


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
