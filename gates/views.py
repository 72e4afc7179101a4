"""The gates API: batches (register, list, show, release, re-validate) and the downstream gate.
Every queryset is `Batch.objects.visible_to(user)`; every batch shown is brought up to date first
(`lifecycle.catch_up`: a due release expires on read, between beat ticks)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action, api_view
from rest_framework.exceptions import APIException, NotFound, PermissionDenied, ValidationError
from rest_framework.response import Response

from datasources.models import Datasource
from dq_platform.ids import as_id
from dq_platform.schema import ErrorSerializer
from dq_platform.search import search_text
from executions.evaluation import verdict_in_words
from executions.models import Result
from executions.stored_words import reworded
from rules.models import Check

from . import gate, lifecycle, registering
from .models import Batch, TablePolicy
from .serializers import BatchDetailSerializer, BatchRequestSerializer, BatchSerializer, ReleaseRequestSerializer

CONFLICT = OpenApiResponse(ErrorSerializer, description="The batch's state does not allow this now.")


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


BATCH_FILTERS = [
    OpenApiParameter("datasource", int),
    OpenApiParameter("table", str),
    OpenApiParameter("state", str, description="One or several states, comma-separated"),
    OpenApiParameter(
        "search",
        str,
        description="A batch's number (12 or #12), part of its table's or datasource's name, or its data version",
    ),
]


class BatchViewSet(mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Registered batches. POST registers one and starts its validation (201, `pending_validation`)."""

    def get_serializer_class(self):
        return BatchDetailSerializer if self.action != "list" else BatchSerializer

    def get_queryset(self):
        batches = Batch.objects.visible_to(self.request.user).select_related("datasource", "created_by")
        batches = batches.prefetch_related("attempts")
        if self.action == "list":
            batches = _filtered(batches, self.request.query_params)
        return batches

    def get_object(self):
        return lifecycle.catch_up(super().get_object())

    @extend_schema(parameters=BATCH_FILTERS)
    def list(self, request, *args, **kwargs):
        """Batches, newest first, paged; `?datasource=&table=` lists one table's."""
        return super().list(request, *args, **kwargs)

    @extend_schema(request=BatchRequestSerializer, responses={201: BatchDetailSerializer})
    def create(self, request, *args, **kwargs):
        body = BatchRequestSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        try:
            batch = registering.register(body.validated_data, request.user)
        except registering.BatchInvalid as exc:
            raise ValidationError(exc.fields) from None
        return Response(self._shown(batch), status=status.HTTP_201_CREATED)

    @extend_schema(request=ReleaseRequestSerializer, responses={200: BatchDetailSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def release(self, request, pk=None):
        """Publish a quarantined batch (or one awaiting approval) until `expires_at` (at most
        DQ_RELEASE_MAX_DAYS ahead), recording who and why; at expiry it returns to what its policy
        says. The datasource's owners and administrators only."""
        batch = self._batch_the_user_may_change(request, "release")
        body = ReleaseRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            registering.release(batch, request.user, **body.validated_data)
        except registering.BatchConflict as exc:
            raise Conflict(str(exc)) from None
        return Response(self._shown(self.get_object()))

    @extend_schema(request=None, responses={202: BatchDetailSerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def revalidate(self, request, pk=None):
        """A new attempt (a new run of the checks bound now that the caller may see); earlier
        attempts keep their evidence. Ends an active release, recording who ended it. The
        datasource's owners and administrators only."""
        batch = self._batch_the_user_may_change(request, "re-validate")
        try:
            with transaction.atomic():
                registering.revalidate(batch, request.user)
        except registering.BatchConflict as exc:
            raise Conflict(str(exc)) from None
        except registering.BatchInvalid as exc:
            raise ValidationError(exc.fields) from None
        return Response(self._shown(self.get_object()), status=status.HTTP_202_ACCEPTED)

    def _shown(self, batch: Batch) -> dict:
        return BatchDetailSerializer(batch, context=self.get_serializer_context()).data

    def _batch_the_user_may_change(self, request, what: str) -> Batch:
        batch = self.get_object()
        if not batch.may_be_changed_by(request.user):
            message = {
                "release": _("Only administrators and the owners of datasource %(name)s may release its batches."),
                "re-validate": _(
                    "Only administrators and the owners of datasource %(name)s may re-validate its batches."
                ),
            }.get(what, _("Only administrators and the owners of datasource %(name)s may change its batches."))
            raise PermissionDenied(message % {"name": repr(batch.datasource.name)})
        return batch


def _filtered(batches, params):
    problems = {}
    raw = params.get("datasource", "").strip()
    if raw:
        if as_id(raw) is not None:
            batches = batches.filter(datasource_id=as_id(raw))
        else:
            problems["datasource"] = ["A datasource id: a whole number."]
    if params.get("table"):
        batches = batches.filter(table=params["table"])
    states = [s for s in params.get("state", "").split(",") if s]
    unknown = sorted(set(states) - set(Batch.State.values))
    if unknown:
        problems["state"] = [
            _("Unknown state %(items)s; use %(allowed)s.")
            % {"items": ", ".join(unknown), "allowed": ", ".join(Batch.State.values)}
        ]
    elif states:
        batches = batches.filter(state__in=states)
    try:
        text = search_text(params)
    except ValidationError as exc:
        problems.update(exc.detail)
        text = ""
    if text:
        batches = batches.filter(_batch_matches(text))
    if problems:
        raise ValidationError(problems)
    return batches


def _batch_matches(text: str) -> Q:
    wanted = Q(table__icontains=text) | Q(datasource__name__icontains=text) | Q(data_version__icontains=text)
    number = as_id(text.removeprefix("#"))
    if number is not None:
        wanted |= Q(pk=number)
    return wanted


GATE_ANSWER = inline_serializer(
    "GateAnswer",
    {
        "state": serializers.CharField(allow_null=True),
        "may_consume": serializers.BooleanField(),
        "batch": serializers.IntegerField(allow_null=True),
        "reason": serializers.CharField(),
    },
)


@extend_schema(
    parameters=[
        OpenApiParameter("datasource", str, required=True, description="Datasource id or name"),
        OpenApiParameter("table", str, required=True),
        OpenApiParameter(
            "partition",
            str,
            many=True,
            description="column:value, repeatable or comma-separated (dt:2026-11-29); or one JSON object "
            '({"country": "CN,HK"}) for values holding commas. Matched exactly against the registered partition.',
        ),
    ],
    responses=GATE_ANSWER,
)
@api_view(["GET"])
def gate_view(request):
    """May downstream consume the newest batch of this table and partition? `may_consume` is true
    only for a `published` batch; no batch at all answers `state: null`, `may_consume: false`."""
    params = request.query_params
    problems = {name: ["Required."] for name in ("datasource", "table") if not params.get(name, "").strip()}
    try:
        partition = gate.parse_partition(params.getlist("partition"), ":")
    except ValueError as exc:
        problems["partition"] = [_("%(exc)s Write column:value, e.g. dt:2026-11-29.") % {"exc": exc}]
    if problems:
        raise ValidationError(problems)
    datasource = gate.find_datasource(request.user, params["datasource"].strip())
    if datasource is None:
        raise ValidationError(
            {
                "datasource": [
                    _("No datasource %(datasource)s that you may read.") % {"datasource": repr(params["datasource"])}
                ]
            }
        )
    return Response(gate.answer(request.user, datasource, params["table"].strip(), partition).as_dict())


@extend_schema(
    parameters=[OpenApiParameter("datasource", int, required=True), OpenApiParameter("table", str, required=True)],
    responses=inline_serializer(
        "GatedTable",
        {
            "datasource": serializers.IntegerField(),
            "datasource_name": serializers.CharField(),
            "table": serializers.CharField(),
            "fail_mode": serializers.CharField(),
            "fail_mode_source": serializers.CharField(),
            "may_change": serializers.BooleanField(),
            "checks": serializers.ListField(),
        },
    ),
)
@api_view(["GET"])
def table_view(request):
    """A table as the table page shows it: its fail mode and the checks bound to it (each with its
    newest result the caller may read), and `may_change`: whether the caller answers for the
    datasource (switches its monitors, releases its batches). Its batches are
    `GET /batches/?datasource=&table=`."""
    params = request.query_params
    raw, table = params.get("datasource", "").strip(), params.get("table", "").strip()
    problems = {}
    if as_id(raw) is None:
        problems["datasource"] = ["A datasource id: a whole number."]
    if not table:
        problems["table"] = ["Required."]
    if problems:
        raise ValidationError(problems)
    datasource = Datasource.objects.visible_to(request.user).filter(pk=as_id(raw)).first()
    if datasource is None:
        raise NotFound(_("No datasource %(raw)s that you may use.") % {"raw": raw})
    fail_mode, source = TablePolicy.fail_mode_for(datasource.pk, table)
    checks = []
    visible = set(Check.objects.visible_to(request.user).values_list("pk", flat=True))
    for check in (c for c in registering.bound_checks_of(datasource.pk, table) if c.pk in visible):
        latest = (
            Result.objects.visible_to(request.user)
            .filter(rule_check=check)
            .select_related("run")
            .order_by("-created_at", "-id")
            .first()
        )
        checks.append(
            {
                "id": check.pk,
                "name": check.name,
                "template": check.template.key,
                "failure_strategy": check.params.get("failure_strategy", ""),
                "enabled": check.enabled,
                "last_result": latest
                and {
                    "id": latest.pk,
                    "run": latest.run_id,
                    "status": latest.status,
                    "verdict": reworded(latest.message) if latest.message else verdict_in_words(latest),
                    "biz_date": latest.run.biz_date,
                    "created_at": latest.created_at,
                },
            }
        )
    body = {"datasource": datasource.pk, "datasource_name": datasource.name, "table": table}
    may_change = Datasource.objects.owned_by(request.user).filter(pk=datasource.pk).exists()
    return Response(
        {
            **body,
            "fail_mode": fail_mode,
            "fail_mode_source": reworded(source),  # stored words (gates/policy.py), in the reader's language
            "may_change": may_change,
            "checks": checks,
        }
    )
