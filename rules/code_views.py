"""Rules as code over HTTP: which checks an export holds (`?ids=`), and the import's answers
(a dry run per check, or the all-or-nothing apply). CheckViewSet's `export` and `import` actions
call these; rules/yaml_io.py does the reading and writing."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, PermissionDenied, ValidationError
from rest_framework.response import Response

from dq_platform.ids import as_id

from .serializers import CheckSerializer
from .version_message import MessageInvalid, version_message
from .yaml_io import ImportForbidden, ImportInvalid, PlanChanged, import_checks, plan_import

MAX_EXPORT_IDS = 1000
TRUE = {"1", "true", "yes", "on"}
FALSE = {"", "0", "false", "no", "off"}

EXPORT_IDS = OpenApiParameter(
    "ids", str, description=f"Only these checks (comma-separated ids, at most {MAX_EXPORT_IDS}); all filters apply too"
)
IMPORT_PARAMETERS = [
    OpenApiParameter("dry_run", bool, description="Answer what the import would do, per check; write nothing"),
    OpenApiParameter("message", str, description="What changed: kept on every version the import writes"),
    OpenApiParameter("plan", str, description="The dry run's `plan`: refuse (409) when the import would now differ"),
]


class PlanChangedConflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = gettext_lazy("The checks changed since the dry run.")


def selected(checks, request):
    """`checks` narrowed to `?ids=`; a 400 naming the ids that are not numbers or not checks the
    caller may see (the same words for both, so an export tells nothing about others' checks)."""
    raw = request.query_params.get("ids")
    if raw is None:
        return checks
    parts = [part for part in raw.split(",") if part.strip()]
    if not parts:
        raise ValidationError({"ids": [_("Name at least one check id (ids=1,2,3).")]})
    if len(parts) > MAX_EXPORT_IDS:
        raise ValidationError(
            {
                "ids": [
                    _("At most %(limit)s checks at once; %(count)s were named.")
                    % {"limit": MAX_EXPORT_IDS, "count": len(parts)}
                ]
            }
        )
    ids = [as_id(part) for part in parts]
    bad = [part.strip()[:30] for part, found in zip(parts, ids, strict=True) if found is None]
    if bad:
        raise ValidationError({"ids": [_("Check ids are whole numbers: %(ids)s.") % {"ids": ", ".join(bad)}]})
    checks = checks.filter(pk__in=ids)
    missing = sorted(set(ids) - set(checks.values_list("pk", flat=True)))
    if missing:
        raise ValidationError(
            {"ids": [_("No check you can see has id %(ids)s.") % {"ids": ", ".join(map(str, missing))}]}
        )
    return checks


IMPORT_REQUEST = {
    "application/yaml": str,
    "application/json": inline_serializer(
        "ChecksImport",
        {
            "yaml": serializers.CharField(),
            "dry_run": serializers.BooleanField(required=False),
            "message": serializers.CharField(required=False),
            "plan": serializers.CharField(required=False),
        },
    ),
}
IMPORT_PLAN = inline_serializer(
    "ChecksImportPlan",
    {
        "dry_run": serializers.BooleanField(),
        "plan": serializers.CharField(help_text="Pass it back as `plan` to apply exactly this."),
        "applicable": serializers.BooleanField(help_text="No check is refused: the apply would succeed."),
        "summary": serializers.DictField(child=serializers.IntegerField()),
        "checks": inline_serializer(
            "ChecksImportPlanCheck",
            {
                "index": serializers.IntegerField(),
                "line": serializers.IntegerField(allow_null=True),
                "name": serializers.CharField(allow_null=True),
                "template": serializers.CharField(allow_null=True),
                "outcome": serializers.ChoiceField(choices=["added", "changed", "unchanged", "refused"]),
                "check": serializers.IntegerField(allow_null=True),
                "current_version": serializers.IntegerField(allow_null=True),
                "changes": serializers.ListField(child=serializers.DictField()),
                "errors": serializers.ListField(child=serializers.DictField()),
            },
            many=True,
        ),
    },
)
IMPORT_RESPONSES = {
    200: IMPORT_PLAN,
    201: CheckSerializer(many=True),
    400: OpenApiResponse(
        description="`{message, fields}`: the file, the message, or a check (`checks[i]`) is invalid."
    ),
    403: OpenApiResponse(description="`{message, fields: {checks: [names]}}`: checks owned by others."),
    409: OpenApiResponse(description="`{message, fields}`: `plan` was given and the import would now differ."),
}


def import_answer(request) -> Response:
    """`dry_run`: 200 with what each check would become (refused ones included: a dry run never
    fails for a check). Otherwise all or nothing: 201 with the checks, or 400/403/409 and nothing
    written."""
    body = request.data if isinstance(request.data, dict) else {}
    text = request.data if isinstance(request.data, str) else body.get("yaml", "")
    if not isinstance(text, str):
        raise ValidationError({"yaml": [_("The check.yaml text, as a string.")]})
    dry_run = _flag(body.get("dry_run", request.query_params.get("dry_run", "")), "dry_run")
    try:
        message = version_message(body.get("message", request.query_params.get("message", "")))
    except MessageInvalid as exc:
        raise ValidationError({"message": [str(exc)]}) from None
    plan = body.get("plan", request.query_params.get("plan")) or None
    if plan is not None and not isinstance(plan, str):
        raise ValidationError({"plan": [_("The dry run's `plan`, as a string.")]})
    try:
        if dry_run:
            return Response(plan_import(text, request.user).answer())
        checks = import_checks(text, request.user, message=message, plan=plan)
    except ImportInvalid as exc:
        raise ValidationError(exc.fields) from None
    except ImportForbidden as exc:
        raise PermissionDenied({"non_field_errors": [str(exc)], "checks": exc.names}) from None
    except PlanChanged as exc:
        raise PlanChangedConflict(str(exc)) from None
    return Response(
        CheckSerializer(checks, many=True, context={"request": request}).data, status=status.HTTP_201_CREATED
    )


def _flag(value, name: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise ValidationError({name: [_("true or false.")]})
