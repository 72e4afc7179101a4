"""The row checks' editor endpoints: `POST /api/v1/row-checks/validate/` and `…/preview/`.

validate: check.yaml → its full form (every name expanded) and warnings, or 400 with every problem
at its line and entry; fields are checked against the live catalog of the caller's datasource.

preview: the same, then the rule set on the table's first `limit` rows (default 1,000; the first
the engine reads after the filter, not a random sample) — per-check failed
rows, nothing saved. It runs in a worker (the `preview_row_checks` task on the preview queue),
because secrets are decrypted in workers only, on the engine runs would get (executions/previews.py:
DuckDB for local files, the worker's warm SparkSession for a database table). The request answers
202 with a job the browser polls (executions/preview_jobs.py): no request thread waits on a worker.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.decorators import api_view
from rest_framework.response import Response

from datasources.connectors import ConnectorError, connector_for
from datasources.models import Datasource
from dq_engine.sql_safety import UnsafeSQL, parse_filter
from rules.params import RUN_PARAMETER, RUN_PARAMETERS
from rules.rowchecks import CHECKS, CONTRACT, problem_text, rule_set_problems

from . import preview_jobs
from .models import PreviewJob
from .stored_words import reworded

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
        raise _Invalid({key: [problem_text(p) for p in problems]}, [p.to_dict() for p in problems])
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
        fields["src_datasource_id"] = [
            _("Datasource %(value)s does not exist or you may not use it.") % {"value": value}
        ]
    return datasource


def _columns(datasource: Datasource, table: str, fields: dict) -> list[str] | None:
    try:
        connector = connector_for(datasource)
        if table not in connector.tables():
            fields["src_table"] = [
                _("Table %(table)s does not exist in datasource %(name)s.")
                % {"table": repr(table), "name": repr(datasource.name)}
            ]
            return None
        return [c.name for c in connector.columns(table)]
    except ConnectorError as exc:
        fields["src_table"] = [_("Cannot read the columns of %(table)s: %(exc)s") % {"table": repr(table), "exc": exc}]
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


PREVIEW_STATE = inline_serializer(
    "RowChecksPreview",
    {
        "id": serializers.UUIDField(),
        "status": serializers.ChoiceField(choices=["queued", "running", "done", "error"]),
        "url": serializers.CharField(help_text="Poll it (GET) until status is done or error"),
        "message": serializers.CharField(),
        "engine": serializers.CharField(required=False, help_text="Once done"),
        "rows": serializers.IntegerField(required=False, help_text="Once done"),
        "invalid_rows": serializers.IntegerField(required=False, allow_null=True, help_text="Once done"),
        "checks": serializers.ListField(child=serializers.DictField(), required=False, help_text="Once done"),
        "warnings": PROBLEM,
    },
)


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
    responses={202: PREVIEW_STATE},
)
@api_view(["POST"])
def preview(request):
    """The rule set on the table's first `limit` rows after `src_filter` (not a random sample): each check's failed
    rows and the invalid rows, computed by a worker, nothing saved. Answers 202 with the job's
    `url` at once; poll it until `status` is `done` (the answer) or `error` (`message`). At most
    DQ_PREVIEW_PER_USER previews per user at once: 429 beyond."""
    try:
        checked = _validated(request)
        if checked["language"] != CHECKS:
            raise _Invalid({"checks_yaml": ["The preview runs row checks (checks_yaml)."]})
        limit = _limit(request.data.get("limit", DEFAULT_LIMIT))
        src_filter = _filter(request.data.get("src_filter"), checked["columns"])
    except _Invalid as error:
        return _bad_request(error)
    args = [checked["datasource"].pk, checked["table"], src_filter, checked["full_form"], limit]
    try:
        job = preview_jobs.submit(request.user, args, checked["warnings"])
    except preview_jobs.TooManyPreviews as exc:
        return Response({"message": str(exc), "fields": {}}, status=status.HTTP_429_TOO_MANY_REQUESTS)
    return Response(_state(request, job), status=status.HTTP_202_ACCEPTED)


@extend_schema(responses={200: PREVIEW_STATE})
@api_view(["GET"])
def preview_state(request, job_id):
    """A preview job's state; its answer once `status` is `done`. Only its author sees it."""
    job = get_object_or_404(PreviewJob, pk=job_id, owner=request.user)
    return Response(_state(request, job))


def _state(request, job: PreviewJob) -> dict[str, Any]:
    url = request.build_absolute_uri(reverse("row-checks-preview-state", args=[job.pk]))
    return {**preview_jobs.state(job), "url": url}


def _limit(value: Any) -> int:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_LIMIT:
        raise _Invalid({"limit": [_("A whole number from 1 to %(max_limit)s.") % {"max_limit": MAX_LIMIT}]})
    return value


def _filter(value: Any, columns: list[str] | None) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise _Invalid({"src_filter": [_("The filter must be text.")]})
    sample = RUN_PARAMETER.sub(lambda m: RUN_PARAMETERS.get(m.group(1), m.group(0)), value)
    try:
        parse_filter(sample, columns)
    except UnsafeSQL as exc:
        raise _Invalid({"src_filter": [reworded(str(exc))]}) from None
    return sample
