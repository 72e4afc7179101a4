from __future__ import annotations

from django.db.models import Prefetch, prefetch_related_objects
from django.http import Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    inline_serializer,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.exceptions import APIException, PermissionDenied, ValidationError
from rest_framework.response import Response

from dq_platform.kept_pages import kept
from dq_platform.pagination import MAX_PAGE_SIZE
from rules.models import Check, CheckVersion

from . import anomaly_feedback, error_rows, waiting
from .filters import filter_results, filter_runs
from .models import Result, Run
from .run_list import list_rows, page_rows
from .serializers import (
    HistoryPointSerializer,
    ResultSerializer,
    RunListSerializer,
    RunRequestSerializer,
    RunSerializer,
    shown_results,
)
from .starting import RunAlreadyRetried, RunRequestInvalid, retry_run, start_run

# Who may read runs, results and error rows: Run.objects.visible_to / Result.objects.visible_to,
# decided by the datasources each run read (executions/models.py), in every view here.
_WHEN = "YYYY-MM-DD (a whole day) or an ISO date-time; on when it was made. `until` excludes a date-time"
RUN_FILTERS = [
    OpenApiParameter("status", str, description="One or several run statuses, comma-separated"),
    OpenApiParameter("check", int, description="Runs that ran this check"),
    OpenApiParameter("since", str, description=_WHEN),
    OpenApiParameter("until", str, description=_WHEN),
    OpenApiParameter("search", str, description="A run's number (123 or #123), part of a check's name, or its author"),
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


WAIT_PARAMETER = OpenApiParameter(
    "wait",
    int,
    description="Seconds (0 to DQ_RUN_WAIT_MAX, 600 by default) to wait for the run to end; the answer is then "
    "its verdict (README, Workflows: run and wait, exit codes).",
)
RUN_VERDICT = inline_serializer(
    "RunVerdict",
    {
        "status": serializers.CharField(help_text="The run's status (queued and running after a timed-out wait)."),
        "verdict": serializers.ChoiceField(["passed", "blocked", "error", "timeout"]),
        "marker": serializers.CharField(help_text="DQ_VERDICT=PASSED|BLOCKED|ERROR|TIMEOUT, for BODY_CONTAINS."),
        "blocking": serializers.BooleanField(),
        "run": serializers.IntegerField(),
        "url": serializers.CharField(help_text="The run in the API."),
        "poll": serializers.CharField(help_text="Where to wait for the verdict again."),
        "message": serializers.CharField(),
        "alerts": serializers.IntegerField(help_text="Checks that failed or errored without blocking."),
        "results": serializers.ListField(child=serializers.DictField(), help_text="One short entry per check."),
    },
)
RUN_WAIT_BUSY = inline_serializer(
    "RunWaitBusy",
    {
        "verdict": serializers.CharField(),
        "marker": serializers.CharField(),
        "message": serializers.CharField(),
        "retry_after": serializers.IntegerField(),
    },
)
VERDICT_RESPONSES = {
    408: OpenApiResponse(RUN_VERDICT, description="DQ_VERDICT=TIMEOUT: the wait ended first; the run goes on."),
    409: OpenApiResponse(RUN_VERDICT, description="DQ_VERDICT=BLOCKED: a check with failure strategy block failed."),
    424: OpenApiResponse(RUN_VERDICT, description="DQ_VERDICT=ERROR: the run ended error (or was cancelled)."),
    429: OpenApiResponse(RUN_WAIT_BUSY, description="DQ_VERDICT=BUSY: too many waiting requests; nothing started."),
}


def _waiting(request, wait: int, run_to_wait_on) -> Response:
    """Take a waiting slot of this web process (429 without one), get the run, wait, answer."""
    if not waiting.slots.take():
        code, body, headers = waiting.busy_answer()
        return Response(body, status=code, headers=headers)
    try:
        run = waiting.wait_for_end(run_to_wait_on(), wait)
        code, body = waiting.answer(run, request, wait)
    finally:
        waiting.slots.give_back()
    return Response(body, status=code)


class RunViewSet(mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Runs of checks. POST answers 202 at once; the run page polls GET …/{id}/ until it ends."""

    serializer_class = RunSerializer

    def get_queryset(self):
        runs = Run.objects.visible_to(self.request.user)
        if self.action == "list":  # rows of column values, their checks and result counts: run_list.py
            return filter_runs(runs, self.request.query_params)
        # Joined, not prefetched by id: a run of a thousand checks would put a thousand ids in one
        # IN list, past what SQLite parses. Only what `checks` shows of each version.
        versions = CheckVersion.objects.only("id", "parent_check_id", "number", "name")
        results = Result.objects.select_related("check_version", "rule_check__template").order_by("run", "id")
        return (
            runs.select_related("created_by")
            .prefetch_related(Prefetch("results", results), Prefetch("check_versions", versions))
            .distinct()
        )

    def get_serializer_class(self):
        return RunListSerializer if self.action == "list" else RunSerializer

    @extend_schema(parameters=RUN_FILTERS, responses=RunListSerializer(many=True))
    def list(self, request, *args, **kwargs):
        """Runs, newest first, paged (`?page=&page_size=`), filtered in the database. Each row counts
        its results by status (`result_counts`); a run's own page (GET …/{id}/) lists them."""
        return kept(request, self._page)

    def _page(self):
        # Plain rows rather than the serializer: a page holds thousands of checks (executions/run_list.py).
        page = self.paginate_queryset(page_rows(self.filter_queryset(self.get_queryset())))
        return self.get_paginated_response(list_rows(page, self.request.user))

    # 200: the same idempotency_key again answers the run it started. With ?wait=S: the verdict.
    @extend_schema(
        request=RunRequestSerializer,
        parameters=[WAIT_PARAMETER],
        responses={
            202: RunSerializer,
            200: PolymorphicProxySerializer(
                component_name="RunOrVerdict",
                serializers=[RunSerializer, RUN_VERDICT],
                resource_type_field_name=None,
                many=False,
            ),
            **VERDICT_RESPONSES,
        },
        description="Start a run of checks: 202 with the queued run. With `?wait=S` (0 to DQ_RUN_WAIT_MAX "
        "seconds) the answer comes when the run ends or the wait expires, as a verdict for a workflow "
        "scheduler's HTTP task: 200 `DQ_VERDICT=PASSED` (nothing blocks, alerts included), 409 "
        "`DQ_VERDICT=BLOCKED`, 424 `DQ_VERDICT=ERROR`, 408 `DQ_VERDICT=TIMEOUT` (the run goes on; ask "
        "`poll`), 429 `DQ_VERDICT=BUSY` (nothing started; Retry-After).",
    )
    def create(self, request, *args, **kwargs):
        wait = waiting.wait_seconds(request.query_params)
        if wait is None:
            run, created = self._start(request)
            if created:  # made just now, as its status says: no results recorded yet, nothing to ask
                prefetch_related_objects([run], Prefetch("results", Result.objects.none()))
            return Response(
                RunSerializer(run, context={"request": request}).data,
                status=status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK,
            )
        # The body is checked before a slot is taken: a bad request is a 400, never a 429.
        body = self._valid_request(request)
        return _waiting(request, wait, lambda: self._start(request, body)[0])

    def _valid_request(self, request) -> dict:
        body = RunRequestSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        return body.validated_data

    def _start(self, request, data: dict | None = None) -> tuple[Run, bool]:
        data = data if data is not None else self._valid_request(request)
        try:
            return start_run(
                data["checks"],
                request.user,
                biz_date=data.get("biz_date"),
                trigger=data.get("trigger", Run.Trigger.API),
                idempotency_key=data.get("idempotency_key"),
                engine=data.get("engine", "auto"),
            )
        except RunRequestInvalid as exc:
            raise ValidationError(exc.fields) from None

    @extend_schema(
        parameters=[WAIT_PARAMETER],
        responses={
            200: RUN_VERDICT,
            **VERDICT_RESPONSES,
        },
        description="A run's verdict for a workflow scheduler, after waiting up to `?wait=S` seconds (default "
        "0) for it to end: the same answers as POST /runs/?wait=S. Where a timed-out wait says to poll.",
    )
    @action(detail=True, methods=["get"])
    def verdict(self, request, pk=None):
        wait = waiting.wait_seconds(request.query_params) or 0
        if not str(pk).isdigit():
            raise Http404
        run = get_object_or_404(Run.objects.visible_to(request.user), pk=int(pk))
        return _waiting(request, wait, lambda: run)

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
        return Response(RunSerializer(run, context={"request": request}).data)

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
        return Response(RunSerializer(retry, context={"request": request}).data, status=status.HTTP_202_ACCEPTED)

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
        results = Result.objects.visible_to(self.request.user).select_related(
            "check_version", "rule_check__template", "run"
        )
        if self.action == "list":
            results = filter_results(results, self.request.query_params)
        return results.order_by("-created_at", "-id")

    @extend_schema(parameters=RESULT_FILTERS)
    def list(self, request, *args, **kwargs):
        """Results, newest first, paged (`?page=&page_size=`), filtered in the database."""
        return kept(request, self._page)

    def _page(self):
        # The page's ids first, then only its rows with what they show: sorting the joined rows
        # would join every candidate (a thousand of them for latest=true) to keep fifty.
        ids = self.paginate_queryset(self.get_queryset().values_list("id", flat=True))
        return self.get_paginated_response(shown_results(ids))

    @extend_schema(
        parameters=[
            OpenApiParameter("page", int),
            OpenApiParameter("page_size", int),
            OpenApiParameter(
                "check_name", str, description="A row_level_check's rows failing this check (_dq_failed_checks)"
            ),
        ],
        responses=inline_serializer(
            "ErrorRows",
            {
                "count": serializers.IntegerField(help_text="Rows on every page (of this check, if named)"),
                "total_offending_rows": serializers.IntegerField(
                    allow_null=True, help_text="Rows the check found failing, kept or not"
                ),
                "page": serializers.IntegerField(),
                "page_size": serializers.IntegerField(),
                "columns": serializers.ListField(child=serializers.CharField()),
                # A row is its values in `columns` order, each any JSON value.
                "rows": serializers.ListField(child=serializers.ListField(child=serializers.JSONField())),
            },
        ),
    )
    @action(detail=True, methods=["get"], url_path="error-rows")
    def error_rows(self, request, pk=None):
        result = self.get_object()
        page, page_size = _paging(request)
        check_name = request.query_params.get("check_name") or None
        if check_name is not None and len(check_name) > 200:
            raise ValidationError({"check_name": ["A check name has at most 200 characters."]})
        found = error_rows.read_page(result.error_rows_path, page, page_size, check_name)
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

    @extend_schema(
        methods=["POST"],
        request=inline_serializer("FeedbackRequest", {"verdict": serializers.ChoiceField(["expected", "incident"])}),
        responses={
            200: OpenApiResponse(description="The feedback, the incident it resolved, the check's false-alarm rate")
        },
        description='`{"verdict": "expected"}`: a false alarm (resolves the incident, joins the training, '
        'counts as a false alarm); `{"verdict": "incident"}`: a real problem, kept out of training. By the '
        "owners of the check's datasource, the check's owner and administrators.",
    )
    @extend_schema(
        methods=["GET"],
        responses={
            200: OpenApiResponse(description="The feedback given, who may give it, the check's false-alarm rate")
        },
    )
    @action(detail=True, methods=["get", "post"])
    def feedback(self, request, pk=None):
        result = self.get_object()
        if request.method == "GET":
            return Response(anomaly_feedback.state(result, request.user))
        if not anomaly_feedback.may_give(request.user, result):
            raise PermissionDenied(
                "Only the owners of the check's datasource, the check's owner and administrators may give "
                "feedback on its results."
            )
        body = request.data if isinstance(request.data, dict) else {}
        try:
            return Response(anomaly_feedback.give(result, body.get("verdict"), request.user))
        except anomaly_feedback.FeedbackRefused as refused:
            raise ValidationError(refused.fields) from None

    # Routed in urls.py, without the router's trailing slash: the documented path names a file.
    @extend_schema(
        responses={
            (200, "text/csv"): OpenApiResponse(str, description="The error rows; formula-like cells start with '.")
        }
    )
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


@extend_schema(responses=OpenApiResponse(description="Anomalies judged, marked expected, the false-alarm rate"))
@api_view(["GET"])
def check_false_alarms(request, pk: int):
    """A check's anomaly detection record: anomalies judged (warn or fail), how many people marked
    expected (false alarms), how many incident, and the false-alarm rate (expected ÷ judged)."""
    check = get_object_or_404(Check.objects.visible_to(request.user), pk=pk)
    return Response(anomaly_feedback.false_alarms(check.pk))


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
