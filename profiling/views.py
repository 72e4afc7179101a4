"""`/api/v1/profiles/`: ask for a table's profile (202, the profile to poll), list a table's
profiles newest first, read one (its document and what changed since the previous one), and its
changes alone. Who may read a profile: Profile.objects.visible_to, in every view here; a datasource
or profile the user may not read is 404."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from datasources.models import Datasource

from . import jobs
from .models import Profile
from .serializers import ProfileDetailSerializer, ProfileRequestSerializer, ProfileSerializer, profile_changes
from .tasks import enqueue_profile


def _datasource_id(value) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise ValidationError({"datasource": [_("Give the id of a datasource you may use.")]})


class ProfileViewSet(
    mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Table profiles. POST answers 202 at once; poll GET …/{id}/ until `status` is done or error."""

    def get_queryset(self):
        profiles = Profile.objects.visible_to(self.request.user).select_related("datasource", "requested_by")
        if self.action != "list":
            return profiles
        params = self.request.query_params
        if params.get("datasource"):
            datasource = _datasource_id(params["datasource"])
            if not Datasource.objects.readable_by(self.request.user).filter(pk=datasource).exists():
                raise NotFound(
                    _("Datasource %(datasource)s does not exist or you may not read it.") % {"datasource": datasource}
                )
            profiles = profiles.filter(datasource_id=datasource)
        if params.get("table"):
            profiles = profiles.filter(table=params["table"])
        if "filter" in params:
            profiles = profiles.filter(filter=params["filter"])
        if params.get("status"):
            profiles = profiles.filter(status__in=params["status"].split(","))
        return profiles.order_by("-id")

    def get_serializer_class(self):
        if self.action == "create":
            return ProfileRequestSerializer
        return ProfileDetailSerializer if self.action in ("retrieve", "changes") else ProfileSerializer

    def get_object(self):
        profile = super().get_object()
        jobs.end_if_lost(profile)
        return profile

    @extend_schema(
        parameters=[
            OpenApiParameter("datasource", int, description="Profiles of this datasource (404 if you may not read it)"),
            OpenApiParameter("table", str, description="Profiles of this table"),
            OpenApiParameter("filter", str, description="Profiles of this batch filter exactly ('' for whole tables)"),
            OpenApiParameter("status", str, description="One or several statuses, comma-separated"),
        ]
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(request=ProfileRequestSerializer, responses={202: ProfileDetailSerializer})
    def create(self, request, *args, **kwargs):
        data = request.data if isinstance(request.data, dict) else {}
        datasource_id = _datasource_id(data.get("datasource"))
        datasource = Datasource.objects.visible_to(request.user).filter(pk=datasource_id).first()
        if datasource is None:
            raise NotFound(
                _("Datasource %(datasource_id)s does not exist or you may not use it.")
                % {"datasource_id": datasource_id}
            )
        serializer = ProfileRequestSerializer(data=data, context={"datasource": datasource})
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            profile = Profile.objects.create(
                datasource=datasource,
                table=serializer.validated_data["table"],
                filter=serializer.validated_data["filter"],
                engine=serializer.validated_data["engine"],
                requested_by=request.user,
            )
            transaction.on_commit(lambda: enqueue_profile(profile.pk))
        return Response(ProfileDetailSerializer(profile).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses={200: dict})
    @action(detail=True, methods=["get"])
    def changes(self, request, pk=None):
        """What changed since the previous done profile of the same table and filter (null until done)."""
        profile = self.get_object()
        return Response({"id": profile.pk, "status": profile.status, "changes": profile_changes(profile)})
