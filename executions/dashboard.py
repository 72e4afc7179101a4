"""Read-only views for the browser app's results dashboard and checks list.

- `GET /api/v1/results/summary/?hours=24`: the dashboard's header (checks, pass rate, open failures).
  Each count matches a filtered list (executions/filters.py), which the browser links it to: open
  failures are `/results/?latest=true&status=fail,error&since=<since>`, the blocking ones add
  `blocks=true`;
- `GET /api/v1/results/latest/?check=&check=`: the newest result of each check (paged), for the
  checks list's "last result" column.

The results list itself, with all its filters, is `views.ResultViewSet`.

Nothing here writes; visibility is the results API's: `Run.objects.visible_to` and
`Result.objects.visible_to` (what the runs read decides).
"""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Case, Count, Q, When
from django.utils import timezone
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import generics, serializers
from rest_framework.decorators import api_view
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from dq_platform.ids import as_id
from dq_platform.kept_pages import kept
from rules.models import Check

from .models import Result, Run
from .serializers import LatestResultSerializer

OPEN = (Result.Status.FAIL, Result.Status.ERROR)
FAILING_LISTED = 10  # the header names a few; the full list is one link away
# What LatestResultSerializer shows of a result and its version.
LISTED_FIELDS = (
    "id",
    "rule_check_id",
    "run_id",
    "status",
    "statistics_value",
    "created_at",
    "failure_strategy",
    "check_version__name",
)


def _hours(request) -> int:
    raw = request.query_params.get("hours", "24")
    if not raw.isdigit() or not 1 <= int(raw) <= 24 * 90:
        raise ValidationError({"hours": ["A whole number of hours from 1 to 2160."]})
    return int(raw)


def _latest_per_check(results):
    """The newest result of each check among `results` (ids grow with time)."""
    return results.newest_of_each_check().select_related("check_version").order_by("-id")


SUMMARY_RESPONSE = inline_serializer(
    "ResultsSummary",
    {
        "since": serializers.DateTimeField(),
        "hours": serializers.IntegerField(),
        "checks": serializers.IntegerField(help_text="Checks the caller can see"),
        "checks_run": serializers.IntegerField(
            help_text="Of those checks, how many have a result in the window (deleted checks do not count)"
        ),
        "results": serializers.IntegerField(),
        "passed": serializers.IntegerField(),
        "failed": serializers.IntegerField(),
        "errors": serializers.IntegerField(),
        "unknown": serializers.IntegerField(),
        "pass_rate": serializers.FloatField(allow_null=True, help_text="passed ÷ (passed + failed + errors) × 100"),
        "open_failures": serializers.IntegerField(help_text="Live checks whose newest result is fail or error"),
        "blocking_failures": serializers.IntegerField(),
        "failing_checks": LatestResultSerializer(
            many=True,
            help_text=f"The first {FAILING_LISTED} open failures, blocking ones first; all of them are "
            "/results/?latest=true&status=fail,error&since=<since>",
        ),
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

    An open failure is a live check whose newest result in the window is `fail` or `error`; a
    later pass closes it, and so does deleting the check. The pass rate leaves out `unknown` results (no expected value yet).
    """
    return kept(request, lambda: _summary(request))


def _summary(request):
    hours = _hours(request)
    since = timezone.now() - timedelta(hours=hours)
    runs = Run.objects.visible_to(request.user)
    results = Result.objects.visible_to(request.user, visible_runs=runs).filter(created_at__gte=since)
    counts = results.aggregate(
        total=Count("id"),
        passed=Count("id", filter=Q(status=Result.Status.PASS)),
        failed=Count("id", filter=Q(status=Result.Status.FAIL)),
        errors=Count("id", filter=Q(status=Result.Status.ERROR)),
        unknown=Count("id", filter=Q(status=Result.Status.UNKNOWN)),
    )
    evaluated = counts["passed"] + counts["failed"] + counts["errors"]
    # Counted and picked in the database: an installation may have thousands of open failures.
    newest = results.newest_of_each_check()
    failing = Q(status__in=OPEN)
    newest_counts = newest.aggregate(
        open=Count("id", filter=failing),
        blocking=Count("id", filter=failing & Q(failure_strategy="block")),
    )
    blocking_first = Case(When(failure_strategy="block", then=0), default=1)
    listed = (
        newest.filter(failing)
        .select_related("check_version")
        .only(*LISTED_FIELDS)
        .annotate(blocking_first=blocking_first)
        .order_by("blocking_first", "-id")[:FAILING_LISTED]
    )
    active = [Run.Status.QUEUED, Run.Status.RUNNING]
    run_counts = runs.filter(Q(created_at__gte=since) | Q(status__in=active)).aggregate(
        since=Count("id", filter=Q(created_at__gte=since)), active=Count("id", filter=Q(status__in=active))
    )
    checks = Check.objects.visible_to(request.user)
    return Response(
        {
            "since": since,
            "hours": hours,
            "checks": checks.count(),
            # A part of "checks": those among them (alive, visible) that ran, each once.
            "checks_run": checks.filter(id__in=results.values("rule_check_id")).count(),
            "results": counts["total"],
            "passed": counts["passed"],
            "failed": counts["failed"],
            "errors": counts["errors"],
            "unknown": counts["unknown"],
            "pass_rate": round(counts["passed"] * 100 / evaluated, 1) if evaluated else None,
            "open_failures": newest_counts["open"],
            "blocking_failures": newest_counts["blocking"],
            "failing_checks": LatestResultSerializer(listed, many=True).data,
            "runs": run_counts["since"],
            "active_runs": run_counts["active"],
        }
    )


class LatestResults(generics.ListAPIView):
    """The newest result of every check the caller can see (checks never run are absent), paged
    like every list; `?check=4&check=7` asks for the checks one page of the checks list shows."""

    serializer_class = LatestResultSerializer

    @extend_schema(
        parameters=[OpenApiParameter("check", int, many=True, description="Only these checks (repeat the parameter)")]
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        results = Result.objects.visible_to(self.request.user)
        raw = self.request.query_params.getlist("check")
        if raw:
            ids = [as_id(value) for value in raw]
            if None in ids:
                raise ValidationError({"check": [gettext("Check ids (whole numbers), e.g. ?check=4&check=7.")]})
            results = results.filter(rule_check_id__in=ids)
        return _latest_per_check(results)
