"""Batches as the API shows them: state, transitions, attempts with their evidence, releases."""

from __future__ import annotations

import re

from django.utils import timezone
from rest_framework import serializers

from datasources.models import Datasource
from executions.models import Result

from .models import Batch, BatchAttempt, Release, Transition

COLUMN_NAME = re.compile(r"^[^\x00-\x1f`\"]{1,128}$")
REVALIDATED_WITH_CHANGED_RULES = "re-validated with changed rules"


class ProducerSerializer(serializers.Serializer):
    instance_id = serializers.CharField(max_length=200, required=False, allow_blank=True)
    attempt = serializers.IntegerField(min_value=0, required=False)


class BatchRequestSerializer(serializers.Serializer):
    """`POST /batches/`: what the producer committed."""

    datasource = serializers.PrimaryKeyRelatedField(queryset=Datasource.objects.none())
    table = serializers.CharField(max_length=300)
    partition = serializers.DictField(required=False)
    biz_date = serializers.DateField(required=False, input_formats=["%Y-%m-%d"])
    data_version = serializers.CharField(max_length=500, required=False, allow_blank=True)
    producer = ProducerSerializer(required=False)
    schedule_type = serializers.ChoiceField(choices=Batch.ScheduleType.choices, required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Only datasources the caller may use now (alive, open to them); the same question as forms.
        # (No request when the OpenAPI schema is generated: nothing to choose from then.)
        request = self.context.get("request")
        if request is not None:
            self.fields["datasource"].queryset = Datasource.objects.visible_to(request.user)

    def validate_partition(self, partition: dict) -> dict:
        if len(partition) > 10:
            raise serializers.ValidationError("At most 10 partition columns.")
        problems = []
        for name, value in partition.items():
            if not COLUMN_NAME.match(name):
                problems.append(f"{name!r} is not a column name.")
            elif isinstance(value, bool) or not isinstance(value, str | int) or len(str(value)) > 200:
                problems.append(f"The value of {name!r} must be a text or a whole number (at most 200 characters).")
        if problems:
            raise serializers.ValidationError(problems)
        return partition


class ReleaseRequestSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)
    expires_at = serializers.DateTimeField()
    scope = serializers.CharField(max_length=500, required=False, allow_blank=True, default="this batch only")

    def validate_expires_at(self, value):
        if value <= timezone.now():
            raise serializers.ValidationError("A release must expire in the future.")
        return value


class TransitionSerializer(serializers.ModelSerializer):
    by = serializers.CharField(read_only=True)

    class Meta:
        model = Transition
        fields = ["from_state", "to_state", "reason", "by", "at"]


class ReleaseSerializer(serializers.ModelSerializer):
    released_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Release
        fields = ["id", "released_by", "reason", "scope", "expires_at", "created_at", "ended_at", "end_reason"]


class EvidenceResultSerializer(serializers.ModelSerializer):
    """What one check measured on the batch (the full result is GET /results/{id}/)."""

    check = serializers.IntegerField(source="rule_check_id")
    check_name = serializers.CharField(source="check_version.name")
    check_version_number = serializers.IntegerField(source="check_version.number")

    class Meta:
        model = Result
        fields = [
            "id",
            "check",
            "check_name",
            "check_version",
            "check_version_number",
            "status",
            "statistic_name",
            "statistics_value",
            "comparison_value",
            "comparison_source",
            "failure_strategy",
            "verdict",
            "message",
            "error_row_count",
            "rows_scanned",
        ]


class AttemptSerializer(serializers.ModelSerializer):
    run_status = serializers.CharField(source="run.status")
    trigger = serializers.CharField(source="run.trigger")
    filters = serializers.SerializerMethodField()
    check_versions = serializers.SerializerMethodField()
    results = EvidenceResultSerializer(source="run.results", many=True)
    requested_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = BatchAttempt
        fields = [
            "number",
            "run",
            "run_status",
            "trigger",
            "rule_set_hash",
            "rules_changed",
            "filters",
            "check_versions",
            "results",
            "requested_by",
            "created_at",
        ]

    def get_filters(self, attempt) -> list[dict]:
        """The frozen batch definitions the run read: table, resolved filter (partition included)."""
        definitions = (attempt.run.batches.get("definitions") or {}).values()
        return [{k: d.get(k) for k in ("datasource", "table", "filter", "partition", "scan_mode")} for d in definitions]

    def get_check_versions(self, attempt) -> list[dict]:
        return [
            {"id": v.pk, "check": v.parent_check_id, "name": v.name, "number": v.number, "hash": v.content_hash}
            for v in attempt.run.check_versions.order_by("pk")
        ]


class BatchSerializer(serializers.ModelSerializer):
    datasource_name = serializers.CharField(source="datasource.name", read_only=True)
    may_consume = serializers.BooleanField(read_only=True)
    attempt = serializers.SerializerMethodField()
    revalidated_with_changed_rules = serializers.SerializerMethodField()
    notice = serializers.SerializerMethodField()
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    # "" until a table policy has decided (the schema lists it among the states).
    policy_state = serializers.ChoiceField(choices=Batch.State.choices, allow_blank=True, read_only=True)

    class Meta:
        model = Batch
        fields = [
            "id",
            "datasource",
            "datasource_name",
            "table",
            "partition",
            "biz_date",
            "data_version",
            "producer",
            "schedule_type",
            "state",
            "may_consume",
            "reason",
            "warnings",
            "notes",
            "policy_state",
            "attempt",
            "revalidated_with_changed_rules",
            "notice",
            "created_by",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def _latest(self, batch):
        attempts = list(batch.attempts.all())
        return attempts[-1] if attempts else None

    def get_attempt(self, batch) -> int:
        latest = self._latest(batch)
        return latest.number if latest else 0

    def get_revalidated_with_changed_rules(self, batch) -> bool:
        latest = self._latest(batch)
        return bool(latest and latest.rules_changed)

    def get_notice(self, batch) -> str:
        """What the batch page says above the evidence; the browser shows it as is."""
        return REVALIDATED_WITH_CHANGED_RULES if self.get_revalidated_with_changed_rules(batch) else ""


class BatchDetailSerializer(BatchSerializer):
    transitions = TransitionSerializer(many=True, read_only=True)
    attempts = AttemptSerializer(many=True, read_only=True)
    releases = ReleaseSerializer(many=True, read_only=True)

    class Meta(BatchSerializer.Meta):
        fields = [*BatchSerializer.Meta.fields, "transitions", "attempts", "releases"]
        read_only_fields = fields
