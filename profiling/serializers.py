"""The profiles' API shapes: the request (validated against the datasource's live catalog) and
the profile (its state, and once done its document and what changed since the previous one)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers

from datasources.connectors import ConnectorError, connector_for
from datasources.models import Datasource
from dq_engine.selection import CHOICES
from dq_engine.sql_safety import UnsafeSQL, parse_filter
from executions.stored_words import reworded

from .changes import changes
from .models import Profile

MAX_FILTER = 4000


class ProfileRequestSerializer(serializers.Serializer):
    """`{"datasource": id, "table": name, "filter": optional Spark SQL, "engine": optional}`.
    The datasource must be one the user may use (else 404, in the view); the table must exist in
    its live catalog and the filter must parse over its columns (else 400 naming the field)."""

    datasource = serializers.IntegerField(help_text="A datasource you may use.")
    table = serializers.CharField(max_length=500, help_text="A table (dataset) the datasource lists.")
    filter = serializers.CharField(
        required=False,
        allow_blank=True,
        allow_null=True,
        max_length=MAX_FILTER,
        help_text="A batch: rows where this holds.",
    )
    engine = serializers.ChoiceField(choices=CHOICES, required=False, help_text="Default: the datasource's, else auto.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        datasource: Datasource = self.context["datasource"]
        table = attrs["table"].strip()
        try:
            connector = connector_for(datasource)
            if table not in connector.tables():
                raise serializers.ValidationError(
                    {
                        "table": [
                            _("Table %(table)s does not exist in datasource %(name)s.")
                            % {"table": repr(table), "name": repr(datasource.name)}
                        ]
                    }
                )
            columns = [c.name for c in connector.columns(table)]
        except ConnectorError as exc:
            raise serializers.ValidationError(
                {"table": [_("Cannot read the columns of %(table)s: %(exc)s") % {"table": repr(table), "exc": exc}]}
            ) from None
        text = (attrs.get("filter") or "").strip()
        if text:
            try:
                parse_filter(text, columns)
            except UnsafeSQL as exc:
                raise serializers.ValidationError({"filter": [reworded(str(exc))]}) from None
        attrs.update(table=table, filter=text)
        engine = attrs.get("engine") or datasource.pinned_engine
        problem = engine_problem(datasource, table, text, engine)
        if problem:
            raise serializers.ValidationError({"engine": [problem]})
        attrs["engine"] = engine
        return attrs


def engine_problem(datasource: Datasource, table: str, filter_text: str, engine: str) -> str | None:
    """Why the engine asked for cannot profile this table (decided from the spec alone, as runs
    decide: executions/engine_choice.py), or None."""
    from dq_engine.profiling.run import choose_engine
    from dq_engine.profiling.spec import ProfileSpec
    from dq_engine.selection import EngineRefused
    from executions.engine_choice import _source

    spec = ProfileSpec.from_dict(
        {"source": _source(datasource, table), "table": table, "filter": filter_text or None, "engine": engine}
    )
    try:
        choose_engine(spec)
    except EngineRefused as exc:
        return str(exc)
    return None


class ProfileSerializer(serializers.ModelSerializer):
    datasource_name = serializers.CharField(source="datasource.name", read_only=True)
    requested_by = serializers.CharField(source="requested_by.username", read_only=True, default=None)
    row_count = serializers.SerializerMethodField()
    sample = serializers.SerializerMethodField()
    columns = serializers.SerializerMethodField()
    engine_used = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = Profile
        fields = [
            "id",
            "url",
            "datasource",
            "datasource_name",
            "table",
            "filter",
            "engine",
            "engine_used",
            "status",
            "message",
            "requested_by",
            "created_at",
            "started_at",
            "finished_at",
            "row_count",
            "sample",
            "columns",
        ]
        read_only_fields = fields

    def get_row_count(self, profile: Profile) -> int | None:
        return (profile.document or {}).get("row_count")

    def get_sample(self, profile: Profile) -> dict | None:
        return (profile.document or {}).get("sample")

    def get_columns(self, profile: Profile) -> int | None:
        """How many columns the profile has (the list's summary; the detail has the document)."""
        columns = (profile.document or {}).get("columns")
        return None if columns is None else len(columns)

    def get_engine_used(self, profile: Profile) -> str | None:
        return (profile.document or {}).get("engine")

    def get_url(self, profile: Profile) -> str:
        return f"/api/v1/profiles/{profile.pk}/"


class ProfileDetailSerializer(ProfileSerializer):
    document = serializers.JSONField(read_only=True)
    changes = serializers.SerializerMethodField()

    class Meta(ProfileSerializer.Meta):
        fields = [*ProfileSerializer.Meta.fields, "document", "changes"]
        read_only_fields = fields

    def get_changes(self, profile: Profile) -> dict | None:
        return profile_changes(profile)


def profile_changes(profile: Profile) -> dict | None:
    """What changed since the previous done profile of the same table and filter (None until done)."""
    if profile.status != Profile.Status.DONE or not profile.document:
        return None
    previous = profile.previous_done()
    answer = changes(previous.document if previous else None, profile.document)
    answer["previous"] = (
        None
        if previous is None
        else {
            "id": previous.pk,
            "finished_at": serializers.DateTimeField().to_representation(previous.finished_at),
            "row_count": previous.document.get("row_count"),
        }
    )
    return answer
