"""POST /api/v1/imports/dolphinscheduler/: a DolphinScheduler workflow export becomes checks."""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.decorators import api_view, parser_classes
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from dq_platform.parsers import JSONParser
from dq_platform.schema import ErrorSerializer

from . import dolphinscheduler as ds
from .importing import ExportAnswer, MappingInvalid, import_dolphinscheduler

MAX_MAPPED = 500


class DatasourceMap(serializers.JSONField):
    """`{"1": "warehouse", "2": 7}`, or that object as JSON text (a form upload)."""

    def to_internal_value(self, data):
        if isinstance(data, str):
            try:
                data = json.loads(data) if data.strip() else {}
            except ValueError:
                raise ValidationError(
                    _('Give the mapping as a JSON object, e.g. {"1": "warehouse", "2": 7}.')
                ) from None
        if not isinstance(data, dict):
            raise ValidationError(_('Give the mapping as an object, e.g. {"1": "warehouse", "2": 7}.'))
        if len(data) > MAX_MAPPED:
            raise ValidationError(_("Map at most %(n)s datasources at a time.") % {"n": MAX_MAPPED})
        bad = [k for k, v in data.items() if isinstance(v, (dict, list, bool)) or v is None or not str(v).strip()]
        if bad:
            raise ValidationError(
                _("Map each DolphinScheduler datasource id to a datasource id or name; %(ids)s map to nothing.")
                % {"ids": ", ".join(map(str, bad[:10]))}
            )
        return {str(k): v for k, v in data.items()}


class DolphinSchedulerImportOptions(serializers.Serializer):
    export = serializers.JSONField(
        required=False,
        help_text="The export: DolphinScheduler's JSON array of workflows (or that JSON as text).",
    )
    file = serializers.FileField(required=False, help_text="The export file, instead of `export` (a form upload).")
    datasource_map = DatasourceMap(
        required=False,
        default=dict,
        help_text='DolphinScheduler datasource id → datasource id or name here, e.g. {"1": "warehouse", "2": 7}.',
    )
    dry_run = serializers.BooleanField(default=False, help_text="Answer what would happen; create nothing.")
    accept_partial = serializers.BooleanField(
        default=False, help_text="Import the tasks that can be imported even when others cannot."
    )
    ds_version = serializers.ChoiceField(
        choices=ds.DS_VERSIONS,
        default="3.2",
        help_text="Whose pass/fail semantics the export's checks had: 3.2 (pass when formula operator threshold "
        "holds) or 3.1 (fail when it holds: each operator is negated).",
    )
    create_schedules = serializers.BooleanField(
        default=False, help_text="Create a schedule from each workflow's schedule (its Quartz cron)."
    )

    def validate(self, attrs):
        upload, export = attrs.get("file"), attrs.get("export")
        if upload is None and export is None:
            raise ValidationError({"export": [_("Give the export as `export` (JSON) or upload it as `file`.")]})
        if upload is not None and export is not None:
            raise ValidationError({"file": [_("Give the export once: as `export` or as `file`, not both.")]})
        try:
            if upload is not None:
                attrs["data"] = ds.load_json(upload.read(ds.MAX_EXPORT_BYTES + 1))
            elif isinstance(export, str):
                attrs["data"] = ds.load_json(export)
            else:
                ds.check_depth(export)
                attrs["data"] = export
        except ds.ExportInvalid as exc:
            raise ValidationError({"file" if upload is not None else "export": [str(exc)]}) from None
        return attrs


IMPORTED_FIELDS = {
    "workflow": serializers.CharField(),
    "task_code": serializers.CharField(),
    "task_name": serializers.CharField(),
    "check_name": serializers.CharField(),
    "template": serializers.CharField(),
    "params": serializers.DictField(),
    "notes": serializers.ListField(child=serializers.CharField()),
    "warnings": serializers.ListField(child=serializers.CharField()),
    "check_id": serializers.IntegerField(allow_null=True),
    "link": serializers.CharField(allow_null=True),
}
SKIPPED_FIELDS = {
    "workflow": serializers.CharField(),
    "task_code": serializers.CharField(),
    "task_name": serializers.CharField(),
    "template": serializers.CharField(allow_null=True),
    "fields": serializers.DictField(child=serializers.ListField(child=serializers.CharField())),
    "reason": serializers.CharField(),
}
SCHEDULE_FIELDS = {
    "workflow": serializers.CharField(),
    "quartz": serializers.CharField(),
    "cron": serializers.CharField(allow_null=True),
    "timezone": serializers.CharField(),
    "enabled": serializers.BooleanField(),
    "created": serializers.BooleanField(),
    "schedule_id": serializers.IntegerField(allow_null=True),
    "reason": serializers.CharField(allow_null=True),
}
ANSWER = inline_serializer(
    "DolphinSchedulerImport",
    {
        "dry_run": serializers.BooleanField(),
        "applicable": serializers.BooleanField(help_text="False: the import would be refused (see skipped)."),
        "accept_partial": serializers.BooleanField(),
        "ds_version": serializers.CharField(),
        "semantics": serializers.CharField(),
        "imported": inline_serializer("DolphinSchedulerImported", IMPORTED_FIELDS, many=True),
        "skipped": inline_serializer("DolphinSchedulerSkipped", SKIPPED_FIELDS, many=True),
        "other_tasks": inline_serializer(
            "DolphinSchedulerOtherTasks",
            {
                "count": serializers.IntegerField(),
                "by_type": serializers.DictField(child=serializers.IntegerField()),
                "reason": serializers.CharField(),
            },
        ),
        "schedules": inline_serializer("DolphinSchedulerSchedule", SCHEDULE_FIELDS, many=True),
        "summary": serializers.CharField(),
    },
)


@extend_schema(
    request={
        "application/json": DolphinSchedulerImportOptions,
        "multipart/form-data": DolphinSchedulerImportOptions,
    },
    responses={
        200: ANSWER,
        201: ANSWER,
        400: OpenApiResponse(
            ErrorSerializer,
            description="`{message, fields}`: the export, the mapping or an option is invalid (nothing imported); "
            "or some data-quality tasks cannot be imported and `accept_partial` is false: `fields.skipped` "
            "names each task by code, `result` holds the full answer, nothing was imported.",
        ),
    },
)
@api_view(["POST"])
@parser_classes([JSONParser, MultiPartParser, FormParser])
def import_dolphinscheduler_view(request):
    """DolphinScheduler DATA_QUALITY tasks become checks, validated as checks created through the
    API are. All or nothing (one transaction) unless `accept_partial`; `dry_run` creates nothing.
    200: a dry run's answer; 201: the checks were created."""
    given = DolphinSchedulerImportOptions(data=request.data)
    given.is_valid(raise_exception=True)
    options = given.validated_data
    try:
        outcome = import_dolphinscheduler(
            options["data"],
            request.user,
            options["datasource_map"],
            dry_run=options["dry_run"],
            accept_partial=options["accept_partial"],
            ds_version=options["ds_version"],
            create_schedules=options["create_schedules"],
            request=request,
        )
    except ds.ExportInvalid as exc:
        raise ValidationError({"export": [str(exc)]}) from None
    except MappingInvalid as exc:
        raise ValidationError({"datasource_map": exc.fields}) from None
    return _answer(outcome)


def _answer(outcome: ExportAnswer) -> Response:
    body: dict[str, Any] = outcome.answer()
    if outcome.refused and not outcome.dry_run:
        skipped = {
            item["task_code"] or item["task_name"]: [f"{item['task_name']}: {item['reason']}"]
            for item in outcome.skipped
        }
        return Response(
            {"message": body["summary"], "fields": {"skipped": skipped}, "result": body},
            status=status.HTTP_400_BAD_REQUEST,
        )
    return Response(body, status=status.HTTP_200_OK if outcome.dry_run else status.HTTP_201_CREATED)
