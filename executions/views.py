from __future__ import annotations

from django.http import Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.exceptions import APIException, PermissionDenied, ValidationError
from rest_framework.response import Response

from rules.models import Check

from . import error_rows
from .models import Result, Run
from .serializers import HistoryPointSerializer, ResultSerializer, RunRequestSerializer, RunSerializer
from .starting import RunAlreadyRetried, RunRequestInvalid, retry_run, start_run

MAX_PAGE_SIZE = 500
# Who may read runs, results and error rows: Run.objects.visible_to / Result.objects.visible_to,
# decided by the datasources each run read (executions/models.py), in every view here.


def _id_field(what: str) -> serializers.IntegerField:
    return serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=2**63 - 1,
        error_messages={
            "invalid": f"A {what} id: a whole number.",
            "min_value": f"A {what} id: a whole number from 1.",
            "max_value": f"A {what} id: a whole number.",
            "max_string_length": f"A {what} id: a whole number.",
        },
    )


def _status_field(choices) -> serializers.ChoiceField:
    values = ", ".join(value for value, _ in choices)
    return serializers.ChoiceField(
        choices=choices,
        required=False,
        error_messages={"invalid_choice": f'Unknown status "{{input}}"; use one of {values}.'},
    )


def query_filters(serializer_class, request) -> dict:
    """The list filters of a query string, validated: 400 with field messages, never a 500."""
    filters = serializer_class(data=request.query_params)
    filters.is_valid(raise_exception=True)
    return filters.validated_data


class RunFilters(serializers.Serializer):
    status = _status_field(Run.Status.choices)
    check = _id_field("check")
    limit = serializers.IntegerField(
        required=False,
        min_value=1,
        error_messages={"invalid": "A whole number from 1.", "min_value": "A whole number from 1."},
    )


class ResultFilters(serializers.Serializer):
    status = _status_field(Result.Status.choices)
    check = _id_field("check")
    run = _id_field("run")


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The request conflicts with the current state of the resource."
    default_code = "conflict"


API_ERROR = inline_serializer(
    "ApiError", {"message": serializers.CharField(), "fields": serializers.DictField(child=serializers.ListField())}
)


def _run_action_responses(success: int, what: str, conflict: str) -> dict:
    return {
        success: RunSerializer,
        403: OpenApiResponse(API_ERROR, description=f"Only the run's author or an administrator may {what} it."),
        404: OpenApiResponse(API_ERROR, description="No such run, or one you may not see."),
        409: OpenApiResponse(API_ERROR, description=conflict),
    }


class RunViewSet(mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Runs of checks. POST answers 202 at once; the run page polls GET …/{id}/ until it ends."""

    serializer_class = RunSerializer

    def get_queryset(self):
        runs = Run.objects.visible_to(self.request.user).prefetch_related("results__check_version", "check_versions")
        if self.action != "list":
            return runs
        filters = query_filters(RunFilters, self.request)
        if "status" in filters:
            runs = runs.filter(status=filters["status"])
        if "check" in filters:
            runs = runs.filter(check_versions__parent_check_id=filters["check"]).distinct()
        return runs

    @extend_schema(
        parameters=[
            OpenApiParameter("status", str, enum=Run.Status.values),
            OpenApiParameter("check", int),
            OpenApiParameter("limit", int, description="At most this many runs (1 to 1000; 100 by default)"),
        ]
    )
    def list(self, request, *args, **kwargs):
        limit = min(query_filters(RunFilters, request).get("limit", 100), 1000)
        return Response(RunSerializer(self.get_queryset()[:limit], many=True).data)

    @extend_schema(request=RunRequestSerializer, responses={202: RunSerializer})
    def create(self, request, *args, **kwargs):
        body = RunRequestSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            run, created = start_run(
                data["checks"],
                request.user,
                biz_date=data.get("biz_date"),
                trigger=data.get("trigger", Run.Trigger.API),
                idempotency_key=data.get("idempotency_key"),
            )
        except RunRequestInvalid as exc:
            raise ValidationError(exc.fields) from None
        return Response(RunSerializer(run).data, status=status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK)

    @extend_schema(
        request=None,
        responses=_run_action_responses(200, "cancel", "The run has already ended."),
        description="Cancel a queued or running run: it ends `cancelled` at once, with no results, and its "
        "worker stops the run's Spark jobs within about two seconds. For the run's author and administrators.",
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        run = self._run_the_user_may_change(request, "cancel")
        if run.status in Run.FINISHED or not run.cancel(request.user):
            raise Conflict(f"Run {run.pk} has already ended ({run.status}); there is nothing to cancel.")
        return Response(RunSerializer(run).data)

    @extend_schema(
        request=None,
        responses=_run_action_responses(
            202, "retry", "The run has not ended yet, or it was retried already (retry its retry)."
        ),
        description="Start a new attempt of a finished run: the same check versions and frozen batches, "
        "`attempt` one more, `retry_of` this run, the same trigger. A run is retried once; retry its retry "
        "after that. For the run's author and administrators.",
    )
    @action(detail=True, methods=["post"])
    def retry(self, request, pk=None):
        run = self._run_the_user_may_change(request, "retry")
        if run.status not in Run.FINISHED:
            raise Conflict(f"Run {run.pk} is still {run.status}; only a run that has ended can be retried.")
        try:
            retry = retry_run(run, request.user)
        except RunAlreadyRetried as exc:
            raise Conflict(f"{exc} Retry that one instead.") from None
        except RunRequestInvalid as exc:
            raise ValidationError(exc.fields) from None
        return Response(RunSerializer(retry).data, status=status.HTTP_202_ACCEPTED)

    def _run_the_user_may_change(self, request, what: str) -> Run:
        if not str(self.kwargs["pk"]).isdigit():
            raise Http404
        run = get_object_or_404(Run.objects.visible_to(request.user), pk=int(self.kwargs["pk"]))
        if not run.may_be_changed_by(request.user):
            raise PermissionDenied(f"Only the run's author or an administrator may {what} run {run.pk}.")
        return run


class ResultViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = ResultSerializer

    def get_queryset(self):
        results = Result.objects.visible_to(self.request.user).select_related("check_version")
        if self.action != "list":
            return results
        filters = query_filters(ResultFilters, self.request)
        for key, field in (("status", "status"), ("check", "rule_check_id"), ("run", "run_id")):
            if key in filters:
                results = results.filter(**{field: filters[key]})
        return results.order_by("-created_at", "-id")

    def list(self, request, *args, **kwargs):
        # The dashboard asks for recent results; the newest 1000 are plenty for one screen.
        return Response(ResultSerializer(self.get_queryset()[:1000], many=True).data)

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
    """Statistic and comparison values of a check over business time, for the trend chart: only
    results of runs the caller may read (a check moved from a restricted datasource keeps its
    earlier points from people outside that datasource's groups)."""
    check = get_object_or_404(Check.objects.visible_to(request.user), pk=pk)
    points = (
        Result.objects.visible_to(request.user)
        .filter(rule_check=check)
        .select_related("check_version")
        .order_by("data_time", "id")
    )
    return Response(HistoryPointSerializer(points, many=True).data)
