"""Read-only views for the browser app's results dashboard and checks list.

- `GET /api/v1/results/` is the results list of `views.ResultViewSet` plus the dashboard's filters
  (`datasource`, `since`, `until`) and, per result, where it looked (`datasource`, `table`) and
  whether it `blocks`;
- `GET /api/v1/results/summary/?hours=24`: the dashboard's header (checks, pass rate, open failures);
- `GET /api/v1/results/latest/`: the newest result of every check, for the checks list's
  "last status" column and filter.

Nothing here writes; visibility is the results API's: `Run.objects.visible_to` and
`Result.objects.visible_to` (what the runs read decides).
"""

from __future__ import annotations

from datetime import datetime, time, timedelta

from django.db.models import Count, Max, Q
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from rules.models import Check

from .models import Result, Run
from .serializers import ResultSerializer
from .views import ResultViewSet

MAX_RESULTS = 1000
OPEN = (Result.Status.FAIL, Result.Status.ERROR)


class DashboardResultSerializer(ResultSerializer):
    """A result as the dashboard lists it: also the datasource and table it read, and whether it
    blocks (a `block` check that failed or could not be evaluated, as `Result.blocks` says)."""

    datasource = serializers.SerializerMethodField()
    table = serializers.SerializerMethodField()
    blocks = serializers.BooleanField(read_only=True)
    run_status = serializers.CharField(source="run.status", read_only=True)

    class Meta(ResultSerializer.Meta):
        fields = [*ResultSerializer.Meta.fields, "datasource", "table", "blocks", "run_status"]

    def _batch(self, result: Result) -> dict:
        return (result.run.batches.get("definitions") or {}).get(result.batch) or {}

    def get_datasource(self, result: Result) -> dict | None:
        batch = self._batch(result)
        if "datasource_id" not in batch:
            return None
        return {"id": batch["datasource_id"], "name": batch.get("datasource", "")}

    def get_table(self, result: Result) -> str:
        return self._batch(result).get("table", "")


def _moment(raw: str, name: str, end_of_day: bool) -> datetime:
    """`2026-11-30` (a whole day in the server's time zone) or an ISO date-time with its offset."""
    try:
        # parse_datetime alone would read a bare date as its midnight, which loses "that whole day".
        day = parse_date(raw) if len(raw) == 10 else None
        moment = (
            datetime.combine(day + timedelta(days=1) if end_of_day else day, time.min) if day else parse_datetime(raw)
        )
    except ValueError:
        moment = None
    if moment is None:
        raise ValidationError({name: [f"Use YYYY-MM-DD or an ISO date-time (2026-11-30T08:00:00Z); got {raw!r}."]})
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment)
    return moment


def filter_results(results, params):
    """The dashboard's filters on top of status/check/run: datasource id and a created-at range."""
    raw = params.get("datasource", "")
    if raw:
        if not raw.isdigit():
            raise ValidationError({"datasource": ["A datasource id (a whole number)."]})
        results = results.filter(rule_check__datasources=int(raw))
    since, until = params.get("since"), params.get("until")
    if since:
        results = results.filter(created_at__gte=_moment(since, "since", end_of_day=False))
    if until:
        # A bare date includes that whole day; a date-time is the exclusive end.
        results = results.filter(created_at__lt=_moment(until, "until", end_of_day=True))
    return results.distinct()


class DashboardResultViewSet(ResultViewSet):
    """Results, newest first (at most 1000): `?status=&check=&run=&datasource=&since=&until=`."""

    serializer_class = DashboardResultSerializer

    def get_queryset(self):
        return filter_results(super().get_queryset().select_related("run"), self.request.query_params)

    @extend_schema(
        parameters=[
            OpenApiParameter("status", str),
            OpenApiParameter("check", int),
            OpenApiParameter("run", int),
            OpenApiParameter("datasource", int),
            OpenApiParameter("since", str, description="YYYY-MM-DD or ISO date-time; on when the result was made"),
            OpenApiParameter("until", str, description="YYYY-MM-DD (that day included) or ISO date-time (excluded)"),
        ],
        responses=DashboardResultSerializer(many=True),
    )
    def list(self, request, *args, **kwargs):
        return Response(DashboardResultSerializer(self.get_queryset()[:MAX_RESULTS], many=True).data)


def _hours(request) -> int:
    raw = request.query_params.get("hours", "24")
    if not raw.isdigit() or not 1 <= int(raw) <= 24 * 90:
        raise ValidationError({"hours": ["A whole number of hours from 1 to 2160."]})
    return int(raw)


def _latest_per_check(results):
    """The newest result of each check among `results` (ids grow with time)."""
    newest = results.order_by().values("rule_check_id").annotate(last=Max("id")).values("last")
    return results.filter(id__in=newest).select_related("check_version").order_by("-id")


SUMMARY_RESPONSE = inline_serializer(
    "ResultsSummary",
    {
        "since": serializers.DateTimeField(),
        "hours": serializers.IntegerField(),
        "checks": serializers.IntegerField(help_text="Checks the caller can see"),
        "checks_run": serializers.IntegerField(help_text="Of those, checks with a result in the window"),
        "results": serializers.IntegerField(),
        "passed": serializers.IntegerField(),
        "failed": serializers.IntegerField(),
        "errors": serializers.IntegerField(),
        "unknown": serializers.IntegerField(),
        "pass_rate": serializers.FloatField(allow_null=True, help_text="passed ÷ (passed + failed + errors) × 100"),
        "open_failures": serializers.IntegerField(help_text="Checks whose newest result is fail or error"),
        "blocking_failures": serializers.IntegerField(),
        "failing_checks": serializers.ListField(),
        "runs": serializers.IntegerField(),
        "active_runs": serializers.IntegerField(),
    },
)


@extend_schema(
    parameters=[OpenApiParameter("hours", int, description="The window, 24 by default")], responses=SUMMARY_RESPONSE
)
@api_view(["GET"])
def results_summary(request):
    """The dashboard header: how the checks did in the last `hours` (24 by default).

    An open failure is a check whose newest result in the window is `fail` or `error`; a later
    pass closes it. The pass rate leaves out `unknown` results (no expected value yet).
    """
    hours = _hours(request)
    since = timezone.now() - timedelta(hours=hours)
    results = Result.objects.visible_to(request.user).filter(created_at__gte=since)
    counts = results.aggregate(
        total=Count("id"),
        passed=Count("id", filter=Q(status=Result.Status.PASS)),
        failed=Count("id", filter=Q(status=Result.Status.FAIL)),
        errors=Count("id", filter=Q(status=Result.Status.ERROR)),
        unknown=Count("id", filter=Q(status=Result.Status.UNKNOWN)),
    )
    evaluated = counts["passed"] + counts["failed"] + counts["errors"]
    failing = [r for r in _latest_per_check(results) if r.status in OPEN]
    runs = Run.objects.visible_to(request.user)
    return Response(
        {
            "since": since,
            "hours": hours,
            "checks": Check.objects.visible_to(request.user).count(),
            "checks_run": results.order_by().values("rule_check_id").distinct().count(),
            "results": counts["total"],
            "passed": counts["passed"],
            "failed": counts["failed"],
            "errors": counts["errors"],
            "unknown": counts["unknown"],
            "pass_rate": round(counts["passed"] * 100 / evaluated, 1) if evaluated else None,
            "open_failures": len(failing),
            "blocking_failures": sum(r.blocks for r in failing),
            "failing_checks": [_latest_item(r) for r in failing],
            "runs": runs.filter(created_at__gte=since).count(),
            "active_runs": runs.filter(status__in=[Run.Status.QUEUED, Run.Status.RUNNING]).count(),
        }
    )


def _latest_item(result: Result) -> dict:
    return {
        "check": result.rule_check_id,
        "check_name": result.check_version.name,
        "result": result.pk,
        "run": result.run_id,
        "status": result.status,
        "statistics_value": result.statistics_value,
        "created_at": result.created_at,
        "blocks": result.blocks,
    }


@extend_schema(
    responses=inline_serializer(
        "LatestResult",
        {
            "check": serializers.IntegerField(),
            "check_name": serializers.CharField(),
            "result": serializers.IntegerField(),
            "run": serializers.IntegerField(),
            "status": serializers.CharField(),
            "statistics_value": serializers.FloatField(allow_null=True),
            "created_at": serializers.DateTimeField(),
            "blocks": serializers.BooleanField(),
        },
        many=True,
    )
)
@api_view(["GET"])
def latest_results(request):
    """The newest result of every check the caller can see (checks never run are absent)."""
    return Response([_latest_item(r) for r in _latest_per_check(Result.objects.visible_to(request.user))])
