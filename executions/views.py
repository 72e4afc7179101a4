from __future__ import annotations

from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from datasources.models import Datasource
from dq_platform.pagination import MAX_PAGE_SIZE
from rules.models import Check

from . import error_rows
from .filters import filter_results, filter_runs
from .models import Result, Run
from .serializers import HistoryPointSerializer, ResultSerializer, RunRequestSerializer, RunSerializer
from .starting import start_run

_WHEN = "YYYY-MM-DD (a whole day) or an ISO date-time; on when it was made. `until` excludes a date-time"
RUN_FILTERS = [
    OpenApiParameter("status", str, description="One or several run statuses, comma-separated"),
    OpenApiParameter("check", int, description="Runs that ran this check"),
    OpenApiParameter("since", str, description=_WHEN),
    OpenApiParameter("until", str, description=_WHEN),
]
RESULT_FILTERS = [
    OpenApiParameter("status", str, description="One or several result statuses, comma-separated"),
    OpenApiParameter("check", int),
    OpenApiParameter("run", int),
    OpenApiParameter("datasource", int),
    OpenApiParameter("since", str, description=_WHEN),
    OpenApiParameter("until", str, description=_WHEN),
    OpenApiParameter("latest", bool, description="Only the newest result of each check in range (before `status`)"),
    OpenApiParameter("blocks", bool, description="Only results that block a workflow (or, false, that do not)"),
]


def visible_runs(user):
    runs = Run.objects.all()
    if not user.is_staff:
        hidden = Datasource.objects.exclude(pk__in=Datasource.objects.visible_to(user).values("pk"))
        runs = runs.exclude(check_versions__parent_check__datasources__in=hidden)
    return runs


class RunViewSet(mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Runs of checks. POST answers 202 at once; the run page polls GET …/{id}/ until it ends."""

    serializer_class = RunSerializer

    def get_queryset(self):
        runs = visible_runs(self.request.user).prefetch_related(
            "results__check_version", "results__rule_check__template", "check_versions"
        )
        if self.action == "list":
            return filter_runs(runs, self.request.query_params)
        return runs.distinct()

    @extend_schema(parameters=RUN_FILTERS)
    def list(self, request, *args, **kwargs):
        """Runs, newest first, paged (`?page=&page_size=`), filtered in the database."""
        return super().list(request, *args, **kwargs)

    @extend_schema(request=RunRequestSerializer, responses={202: RunSerializer})
    def create(self, request, *args, **kwargs):
        body = RunRequestSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        data = body.validated_data
        run, created = start_run(
            data["checks"],
            request.user,
            biz_date=data.get("biz_date"),
            trigger=data.get("trigger", Run.Trigger.API),
            idempotency_key=data.get("idempotency_key"),
        )
        return Response(RunSerializer(run).data, status=status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK)


class ResultViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = ResultSerializer

    def get_queryset(self):
        results = Result.objects.filter(run__in=visible_runs(self.request.user)).select_related(
            "check_version", "rule_check__template", "run"
        )
        if self.action == "list":
            results = filter_results(results, self.request.query_params)
        return results.order_by("-created_at", "-id")

    @extend_schema(parameters=RESULT_FILTERS)
    def list(self, request, *args, **kwargs):
        """Results, newest first, paged (`?page=&page_size=`), filtered in the database."""
        return super().list(request, *args, **kwargs)

    @extend_schema(
        parameters=[OpenApiParameter("page", int), OpenApiParameter("page_size", int)],
        responses=inline_serializer(
            "ErrorRows",
            {"count": serializers.IntegerField(), "columns": serializers.ListField(), "rows": serializers.ListField()},
        ),
    )
    @action(detail=True, methods=["get"], url_path="error-rows")
    def error_rows(self, request, pk=None):
        result = self.get_object()
        page, page_size = _paging(request)
        found = error_rows.read_page(result.error_rows_path, page, page_size)
        return Response(
            {
                "count": found.count,
                "total_offending_rows": result.error_row_count,
                "page": page,
                "page_size": page_size,
                "columns": found.columns,
                "rows": found.rows,
            }
        )

    @extend_schema(responses={(200, "text/csv"): str})
    @action(detail=True, methods=["get"], url_path="error-rows.csv")
    def error_rows_csv(self, request, pk=None):
        result = self.get_object()
        response = StreamingHttpResponse(
            error_rows.csv_lines(result.error_rows_path), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="result-{result.pk}-error-rows.csv"'
        return response


def _paging(request) -> tuple[int, int]:
    problems, values = {}, {}
    for name, default, maximum in (("page", 1, 10**9), ("page_size", 50, MAX_PAGE_SIZE)):
        raw = request.query_params.get(name, str(default))
        if not raw.isdigit() or not 1 <= int(raw) <= maximum:
            problems[name] = [f"A whole number from 1 to {maximum}."]
        else:
            values[name] = int(raw)
    if problems:
        raise ValidationError(problems)
    return values["page"], values["page_size"]


@extend_schema(responses=HistoryPointSerializer(many=True))
@api_view(["GET"])
def check_history(request, pk: int):
    """Statistic and comparison values of a check over business time, for the trend chart."""
    check = get_object_or_404(Check.objects.visible_to(request.user), pk=pk)
    points = check.results.select_related("check_version").order_by("data_time", "id")
    return Response(HistoryPointSerializer(points, many=True).data)
