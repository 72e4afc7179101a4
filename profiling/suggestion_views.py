"""Suggested checks over the API: list a table's suggestions, accept one (it becomes a check, through
the very validation POST /api/v1/checks/ applies), reject one (not offered again to that table).

Who may do what follows the datasource: reading suggestions needs the datasource readable and
usable (`Datasource.objects.visible_to`; otherwise 404, as for every object one may not read);
accepting and rejecting need the right to create checks on it, which on this platform is the same
right (POST /checks/ validates `src_datasource_id` against `visible_to`).
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import permissions, serializers, status
from rest_framework.decorators import api_view, permission_classes
from rest_framework.exceptions import APIException, NotFound, ValidationError
from rest_framework.response import Response

from datasources.models import Datasource
from rules.models import Check, RejectedSuggestion
from rules.serializers import CheckSerializer

from . import suggestion_sources
from .suggesting import check_key, suggest

MAX_NAME_TRIES = 50


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = gettext_lazy("The request conflicts with the current state.")


class TableQuery(serializers.Serializer):
    datasource = serializers.IntegerField(
        min_value=1,
        max_value=2**63 - 1,
        error_messages={
            "invalid": gettext_lazy("A datasource id: a whole number."),
            "required": gettext_lazy("Name the datasource (its id)."),
        },
    )
    table = serializers.CharField(max_length=500, error_messages={"required": gettext_lazy("Name the table.")})


class ListQuery(TableQuery):
    column = serializers.CharField(max_length=500, required=False, help_text="Only this column's suggestions.")


class Choice(TableQuery):
    fingerprint = serializers.RegexField(
        r"^[0-9a-f]{64}$",
        error_messages={
            "invalid": gettext_lazy(
                "The suggestion's fingerprint: 64 hexadecimal digits, as GET /api/v1/suggestions/ lists it."
            ),
            "required": gettext_lazy("Name the suggestion by its fingerprint."),
        },
    )


class Accept(Choice):
    name = serializers.CharField(
        max_length=200, required=False, help_text="The new check's name (default: the suggested one)."
    )


class Reject(Choice):
    reason = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")


def _valid(serializer_class, data):
    form = serializer_class(data=data)
    form.is_valid(raise_exception=True)
    return form.validated_data


def _datasource(user, pk: int) -> Datasource:
    datasource = Datasource.objects.visible_to(user).filter(pk=pk).first()
    if datasource is None:
        raise NotFound(f"Datasource {pk} does not exist or you may not use it.")
    return datasource


class Offer:
    """The suggestions of one table now: from its latest finished profile, backtested on the
    earlier ones, without those rejected for the table and those already live checks."""

    def __init__(self, user, datasource: Datasource, table: str):
        records = suggestion_sources.latest_profiles(datasource, table)
        self.profile = records[0] if records else None
        everything = (
            suggest(self.profile.document, [r.document for r in records[1:]], datasource.pk, table) if records else []
        )
        self.earlier = max(len(records) - 1, 0)
        rejected = set(
            RejectedSuggestion.objects.filter(datasource=datasource, table=table).values_list("fingerprint", flat=True)
        )
        existing = {}
        for check in Check.objects.visible_to(user).filter(datasources=datasource).select_related("template"):
            params = check.params if isinstance(check.params, dict) else {}
            if params.get("src_datasource_id") == datasource.pk and params.get("src_table") == table:
                existing[check_key(check.template.key, params)] = check
        self.all = everything
        self.rejected = [s for s in everything if s["fingerprint"] in rejected]
        self.existing = {
            s["fingerprint"]: existing[k]
            for s in everything
            if (k := check_key(s["template"], s["params"])) in existing
        }
        self.offered = [
            s for s in everything if s["fingerprint"] not in rejected and s["fingerprint"] not in self.existing
        ]

    def find(self, fingerprint: str) -> dict:
        for suggestion in self.all:
            if suggestion["fingerprint"] == fingerprint:
                return suggestion
        raise ValidationError(
            {
                "fingerprint": [
                    "The latest profile of this table does not suggest this check (any more); "
                    "list the suggestions again and pick one of them."
                ]
            }
        )


SUGGESTION_FIELDS = (
    "Suggestion",
    {
        "fingerprint": serializers.CharField(),
        "column": serializers.CharField(),
        "kind": serializers.CharField(),
        "template": serializers.CharField(),
        "name": serializers.CharField(),
        "params": serializers.DictField(),
        "why": serializers.CharField(),
        "evidence": serializers.DictField(),
        "tolerance": serializers.DictField(allow_null=True),
        "margin": serializers.DictField(allow_null=True),
        "backtest": serializers.DictField(),
    },
)
SUGGESTIONS = inline_serializer(
    "Suggestions",
    {
        "datasource": serializers.IntegerField(),
        "table": serializers.CharField(),
        "profile": serializers.DictField(allow_null=True),
        "earlier_profiles": serializers.IntegerField(),
        "suggestions": inline_serializer(*SUGGESTION_FIELDS, many=True),
        "hidden": serializers.DictField(),
        "message": serializers.CharField(),
    },
)


@extend_schema(
    parameters=[
        OpenApiParameter("datasource", int, required=True),
        OpenApiParameter("table", str, required=True),
        OpenApiParameter("column", str, description="Only this column's suggestions"),
    ],
    responses=SUGGESTIONS,
)
@api_view(["GET"])
@permission_classes([permissions.IsAuthenticated])
def suggestions(request):
    """The suggested checks of a table, from its latest finished profile."""
    query = _valid(ListQuery, request.query_params)
    datasource = _datasource(request.user, query["datasource"])
    offer = Offer(request.user, datasource, query["table"])
    profile = offer.profile
    offered = [s for s in offer.offered if query.get("column") in (None, s["column"])]
    if profile is None:
        message = f"{query['table']!r} has no finished profile of the whole table yet; profile it first."
    else:
        message = f"{len(offered)} suggested check(s) from the profile of {profile.document.get('profiled_at')}."
    return Response(
        {
            "datasource": datasource.pk,
            "table": query["table"],
            "profile": None
            if profile is None
            else {
                "id": profile.id,
                "profiled_at": profile.document.get("profiled_at"),
                "engine": profile.document.get("engine"),
                "row_count": profile.document.get("row_count"),
                "sample": profile.document.get("sample"),
            },
            "earlier_profiles": offer.earlier,
            "suggestions": offered,
            "hidden": {"rejected": len(offer.rejected), "already_checks": len(offer.existing)},
            "message": message,
        }
    )


def _free_name(name: str) -> str:
    """The suggested name, or with " (2)", " (3)" … when a live check has it."""
    for n in range(1, MAX_NAME_TRIES + 1):
        candidate = name if n == 1 else f"{name} ({n})"
        if not Check.objects.alive().filter(name=candidate).exists():
            return candidate
    return name  # CheckSerializer says the name is taken


@extend_schema(
    request=Accept,
    responses={
        201: CheckSerializer,
        409: OpenApiResponse(description="`{message, fields}`: the suggestion is already a live check (named)."),
    },
)
@api_view(["POST"])
@permission_classes([permissions.IsAuthenticated])
def accept(request):
    """The suggestion becomes an ordinary check (its first version), validated as POST /checks/ does."""
    body = _valid(Accept, request.data)
    datasource = _datasource(request.user, body["datasource"])
    offer = Offer(request.user, datasource, body["table"])
    suggestion = offer.find(body["fingerprint"])
    if suggestion["fingerprint"] in offer.existing:
        check = offer.existing[suggestion["fingerprint"]]
        raise Conflict(
            gettext("This suggestion is already the check %(name)s (id %(id)s).")
            % {"name": repr(check.name), "id": check.pk}
        )
    data = {
        "name": body.get("name") or _free_name(suggestion["name"]),
        "template": suggestion["template"],
        "params": suggestion["params"],
    }
    serializer = CheckSerializer(data=data, context={"request": request})
    serializer.is_valid(raise_exception=True)
    serializer.save()
    return Response(serializer.data, status=status.HTTP_201_CREATED)


class RejectionSerializer(serializers.ModelSerializer):
    rejected_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = RejectedSuggestion
        fields = [
            "id",
            "datasource",
            "table",
            "column",
            "kind",
            "fingerprint",
            "params",
            "rejected_by",
            "rejected_at",
            "reason",
        ]


@extend_schema(request=Reject, responses={201: RejectionSerializer, 200: RejectionSerializer})
@api_view(["POST"])
@permission_classes([permissions.IsAuthenticated])
def reject(request):
    """The suggestion is not offered to this table again (until new figures change it).
    Rejecting twice answers 200 with the first rejection."""
    body = _valid(Reject, request.data)
    datasource = _datasource(request.user, body["datasource"])
    suggestion = Offer(request.user, datasource, body["table"]).find(body["fingerprint"])
    fields = {"datasource": datasource, "table": body["table"], "fingerprint": suggestion["fingerprint"]}
    try:
        with transaction.atomic():
            rejection, created = RejectedSuggestion.objects.get_or_create(
                **fields,
                defaults={
                    "column": suggestion["column"],
                    "kind": suggestion["kind"],
                    "params": suggestion["params"],
                    "rejected_by": request.user,
                    "reason": body["reason"],
                },
            )
    except IntegrityError:  # a concurrent rejection of the same suggestion won
        rejection, created = RejectedSuggestion.objects.get(**fields), False
    return Response(
        RejectionSerializer(rejection).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
    )


@extend_schema(
    parameters=[OpenApiParameter("datasource", int, required=True), OpenApiParameter("table", str, required=True)],
    responses=RejectionSerializer(many=True),
)
@api_view(["GET"])
@permission_classes([permissions.IsAuthenticated])
def rejections(request):
    """The suggestions rejected for a table, newest first (so they can be reconsidered)."""
    query = _valid(TableQuery, request.query_params)
    datasource = _datasource(request.user, query["datasource"])
    rows = (
        RejectedSuggestion.objects.visible_to(request.user)
        .filter(datasource=datasource, table=query["table"])
        .select_related("rejected_by")
    )
    return Response(RejectionSerializer(rows, many=True).data)


@extend_schema(request=None, responses={204: None})
@api_view(["DELETE"])
@permission_classes([permissions.IsAuthenticated])
def withdraw_rejection(request, pk: int):
    """The suggestion is offered again (when the latest profile still suggests it)."""
    usable = Datasource.objects.visible_to(request.user)
    deleted, _ = RejectedSuggestion.objects.filter(pk=pk, datasource__in=usable).delete()
    if not deleted:
        raise NotFound("No such rejected suggestion, or you may not use its datasource.")
    return Response(status=status.HTTP_204_NO_CONTENT)
