"""The health API, read-only but for asking a datasource's catalog again:

- `GET /api/v1/health/`: the platform (every datasource the caller may use);
- `GET /api/v1/health/datasources/{id}/`: one datasource;
- `GET /api/v1/health/tables/?datasource=&table=`: one table of it;
- `POST /api/v1/health/datasources/{id}/catalog/`: read its catalog now (coverage's denominator).

What a caller sees is what they may: the datasources they may use, the checks `Check.objects.visible_to`
gives, the results `Result.objects.visible_to` gives, the incidents `Incident.objects.visible_to` gives.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import api_view
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from datasources.models import Datasource
from dq_platform.ids import as_id

from . import catalog, coverage, scope
from .answer import health_of

TALLY = {
    "score": serializers.FloatField(allow_null=True, help_text="passed ÷ (passed + failed) × 100; null: none decided"),
    "checks": serializers.IntegerField(),
    "passed": serializers.IntegerField(),
    "failed": serializers.IntegerField(),
    "errors": serializers.IntegerField(),
    "unknown": serializers.IntegerField(),
    "never_run": serializers.IntegerField(),
}
HEALTH = inline_serializer(
    "Health",
    {
        "scope": serializers.DictField(help_text="kind (platform, datasource, table), datasource, table"),
        "formula": serializers.CharField(help_text="How the scores are computed, in words"),
        "overall": inline_serializer("HealthTally", TALLY),
        "dimensions": serializers.ListField(help_text="One tally per dimension, with `dimension`"),
        "trend": serializers.DictField(help_text="definition, and days: [{date, score, passed, failed, …}]"),
        "coverage": serializers.DictField(help_text="definition, tables, tables_checked, columns, …"),
        "incidents": serializers.DictField(help_text="open, acknowledged, median seconds to acknowledge/resolve …"),
        "tables_with_checks": serializers.IntegerField(),
        "worst_tables": serializers.ListField(help_text="Lowest score first, then most failing checks"),
        "checks": serializers.ListField(required=False, help_text="The table scope only: its checks"),
        "datasources": serializers.ListField(
            required=False, help_text="The platform scope only: each datasource's tally, by name"
        ),
    },
)


@extend_schema(responses=HEALTH)
@api_view(["GET"])
def platform_health(request):
    """Scores, trend, coverage and incidents of every datasource the caller may use."""
    return Response(health_of(request.user, scope.platform(request.user)))


def _datasource_scope(request, pk, table: str = "") -> scope.Scope:
    where = scope.of_datasource(request.user, pk, table)
    if where is None:
        raise NotFound(_("No datasource %(id)s that you may use.") % {"id": pk})
    return where


@extend_schema(responses=HEALTH)
@api_view(["GET"])
def datasource_health(request, pk: int):
    return Response(health_of(request.user, _datasource_scope(request, pk)))


@extend_schema(
    parameters=[OpenApiParameter("datasource", int, required=True), OpenApiParameter("table", str, required=True)],
    responses=HEALTH,
)
@api_view(["GET"])
def table_health(request):
    raw, table = request.query_params.get("datasource", "").strip(), request.query_params.get("table", "").strip()
    problems = {}
    if as_id(raw) is None:
        problems["datasource"] = ["A datasource id: a whole number."]
    if not table:
        problems["table"] = ["Required: a table name, as the catalog lists it."]
    if problems:
        raise ValidationError(problems)
    return Response(health_of(request.user, _datasource_scope(request, as_id(raw), table)))


@extend_schema(request=None, responses=inline_serializer("HealthCoverage", {"coverage": serializers.DictField()}))
@api_view(["POST"])
def refresh_catalog(request, pk: int):
    """Read the datasource's catalog now; answers its coverage (a source that cannot be read is
    named in `coverage.catalogs[].message`, its previous catalog kept)."""
    where = _datasource_scope(request, pk)
    catalog.refresh(Datasource.objects.get(pk=where.datasource_id))
    return Response({"coverage": coverage.coverage_of(where, scope.checks_in(request.user, where))})
