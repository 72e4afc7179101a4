"""The row checks' editor endpoints: `POST /api/v1/row-checks/validate/` and `…/preview/`.

validate: check.yaml → its full form (every name expanded) and warnings, or 400 with every problem
at its line and entry; fields are checked against the live catalog of the caller's datasource.

preview: the same, then the rule set on a sample (`limit` rows, default 1,000) — per-check failed
rows, nothing saved. It runs in a worker (the `preview_row_checks` task on the Spark queue), because
secrets are decrypted in workers only, on the engine runs would get (executions/previews.py:
DuckDB for local files, the worker's warm SparkSession for a database table), either of which
answers a 1,000-row sample in about a second; the web process waits at most
DQ_PREVIEW_TIMEOUT seconds for the answer and says so when no worker was free.
"""

from __future__ import annotations

from typing import Any

from celery.exceptions import TimeoutError as CeleryTimeout
from django.conf import settings
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.decorators import api_view
from rest_framework.response import Response

from datasources.connectors import ConnectorError, connector_for
from datasources.models import Datasource
from dq_engine.sql_safety import UnsafeSQL, parse_filter
from rules.params import RUN_PARAMETER, RUN_PARAMETERS
from rules.rowchecks import CHECKS, CONTRACT, rule_set_problems

DEFAULT_LIMIT, MAX_LIMIT = 1000, 100_000


class _Invalid(Exception):
    def __init__(self, fields: dict[str, list[str]], problems: list[dict[str, Any]] | None = None):
        self.fields, self.problems = fields, problems or []


def _bad_request(error: _Invalid) -> Response:
    body: dict[str, Any] = {"message": "The row checks are not valid.", "fields": error.fields}
    if error.problems:
        body["problems"] = error.problems
    return Response(body, status=status.HTTP_400_BAD_REQUEST)


def _validated(request) -> dict[str, Any]:
    """{datasource, table, language, text, full_form, warnings}; _Invalid naming each bad field."""
    data = request.data if isinstance(request.data, dict) else {}
    language = CONTRACT if "contract_yaml" in data else CHECKS
    key = "contract_yaml" if language == CONTRACT else "checks_yaml"
    text, fields = data.get(key), {}
    if not isinstance(text, str) or not text.strip():
        fields[key] = ["Give the YAML text."]
    datasource = _datasource(request.user, data.get("src_datasource_id"), fields)
    table = data.get("src_table")
    columns = None
    if datasource is not None:
        if not isinstance(table, str) or not table:
            fields["src_table"] = ["Pick a table."]
        else:
            columns = _columns(datasource, table, fields)
    if fields:
        raise _Invalid(fields)
    problems, warnings, full_form = rule_set_problems(text, columns, language)
    if problems:
        raise _Invalid({key: [str(p) for p in problems]}, [p.to_dict() for p in problems])
    return {
        "datasource": datasource,
        "table": table,
        "columns": columns,
        "language": language,
        "text": text,
        "full_form": full_form,
        "warnings": [w.to_dict() for w in warnings],
    }


def _datasource(user, value: Any, fields: dict) -> Datasource | None:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        fields["src_datasource_id"] = ["Give the id of a datasource you may use."]
        return None
    datasource = Datasource.objects.visible_to(user).filter(pk=value).first()
    if datasource is None:
        fields["src_datasource_id"] = [f"Datasource {value} does not exist or you may not use it."]
    return datasource


def _columns(datasource: Datasource, table: str, fields: dict) -> list[str] | None:
    try:
        connector = connector_for(datasource)
        if table not in connector.tables():
            fields["src_table"] = [f"Table {table!r} does not exist in datasource {datasource.name!r}."]
            return None
        return [c.name for c in connector.columns(table)]
    except ConnectorError as exc:
        fields["src_table"] = [f"Cannot read the columns of {table!r}: {exc}"]
        return None


def _answer(checked: dict[str, Any]) -> dict[str, Any]:
    key = "contract" if checked["language"] == CONTRACT else "checks"
    return {key: checked["full_form"], "warnings": checked["warnings"]}


PROBLEM = inline_serializer(
    "RowCheckProblem",
    {
        "line": serializers.IntegerField(allow_null=True),
        "entry": serializers.CharField(),
        "field": serializers.CharField(),
        "message": serializers.CharField(),
    },
    many=True,
)
REQUEST = inline_serializer(
    "RowChecksValidateRequest",
    {
        "checks_yaml": serializers.CharField(required=False),
        "contract_yaml": serializers.CharField(required=False),
        "src_datasource_id": serializers.IntegerField(),
        "src_table": serializers.CharField(),
    },
)


@extend_schema(
    request=REQUEST,
    responses={
        200: inline_serializer(
            "RowChecksFullForm",
            {"checks": serializers.ListField(child=serializers.DictField()), "warnings": PROBLEM},
        )
    },
)
@api_view(["POST"])
def validate(request):
    """check.yaml → its full form with every name expanded (+ warnings); 400 lists each problem
    with its line and entry (`problems`) as well as in the usual `fields` shape."""
    try:
        return Response(_answer(_validated(request)))
    except _Invalid as error:
        return _bad_request(error)


@extend_schema(
    request=inline_serializer(
        "RowChecksPreviewRequest",
        {
            "checks_yaml": serializers.CharField(),
            "src_datasource_id": serializers.IntegerField(),
            "src_table": serializers.CharField(),
            "src_filter": serializers.CharField(required=False),
            "limit": serializers.IntegerField(required=False, default=DEFAULT_LIMIT),
        },
    ),
    responses={
        200: inline_serializer(
            "RowChecksPreview",
            {
                "rows": serializers.IntegerField(),
                "invalid_rows": serializers.IntegerField(),
                "checks": serializers.ListField(child=serializers.DictField()),
                "warnings": PROBLEM,
            },
        )
    },
)
@api_view(["POST"])
def preview(request):
    """The rule set on a sample of the table (`limit` rows after `src_filter`): each check's failed
    rows and the invalid rows, computed by a Spark worker, nothing saved."""
    from .tasks import preview_row_checks

    try:
        checked = _validated(request)
        if checked["language"] != CHECKS:
            raise _Invalid({"checks_yaml": ["The preview runs row checks (checks_yaml)."]})
        limit = _limit(request.data.get("limit", DEFAULT_LIMIT))
        src_filter = _filter(request.data.get("src_filter"), checked["columns"])
    except _Invalid as error:
        return _bad_request(error)
    job = preview_row_checks.apply_async(
        args=[checked["datasource"].pk, checked["table"], src_filter, checked["full_form"], limit],
        queue=settings.DQ_SPARK_QUEUE,
        expires=settings.DQ_PREVIEW_TIMEOUT,
    )
    try:
        answer = job.get(timeout=settings.DQ_PREVIEW_TIMEOUT, propagate=True, disable_sync_subtasks=False)
    except CeleryTimeout:
        job.revoke()
        return Response(
            {
                "message": f"No worker answered within {settings.DQ_PREVIEW_TIMEOUT} s (all busy with runs?); "
                "try again in a moment.",
                "fields": {},
            },
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
        )
    return Response({**answer, "warnings": checked["warnings"]})


def _limit(value: Any) -> int:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LIMIT:
        raise _Invalid({"limit": [f"A whole number from 1 to {MAX_LIMIT}."]})
    return value


def _filter(value: Any, columns: list[str] | None) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise _Invalid({"src_filter": ["The filter must be text."]})
    sample = RUN_PARAMETER.sub(lambda m: RUN_PARAMETERS.get(m.group(1), m.group(0)), value)
    try:
        parse_filter(sample, columns)
    except UnsafeSQL as exc:
        raise _Invalid({"src_filter": [str(exc)]}) from None
    return sample
