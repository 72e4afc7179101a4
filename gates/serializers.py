"""Batches as the API shows them: state, transitions, attempts with their evidence, releases."""

from __future__ import annotations

import re
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.rights import batch_permissions
from datasources.models import Datasource
from dq_platform.api_shapes import PartitionField, StringListField, json_field
from executions.evaluation import verdict_in_words
from executions.models import Result
from executions.serializers import StoredMessageField
from executions.stored_words import reworded
from rules.models import Check, CheckVersion

from .models import Batch, BatchAttempt, Release, Transition

COLUMN_NAME = re.compile(r"^[^\x00-\x1f`\"]{1,128}$")
REVALIDATED_WITH_CHANGED_RULES = gettext_lazy("re-validated with changed rules")


class ProducerSerializer(serializers.Serializer):
    instance_id = serializers.CharField(max_length=200, required=False, allow_blank=True)
    attempt = serializers.IntegerField(min_value=0, required=False)


class BatchRequestSerializer(serializers.Serializer):
    """`POST /batches/`: what the producer committed."""

    datasource = serializers.PrimaryKeyRelatedField(queryset=Datasource.objects.none())
    table = serializers.CharField(max_length=300)
    partition = serializers.DictField(
        required=False,
        help_text="{column: value}: each column one of the table's, each value one its type can hold "
        "(text, or a whole number); stored typed by the catalog and matched exactly by the gate.",
    )
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
            raise serializers.ValidationError(_("At most 10 partition columns."))
        problems = []
        for name, value in partition.items():
            if not COLUMN_NAME.match(name):
                problems.append(f"{name!r} is not a column name.")
            elif isinstance(value, bool) or not isinstance(value, str | int) or len(str(value)) > 200:
                problems.append(f"The value of {name!r} must be a text or a whole number (at most 200 characters).")
        if problems:
            raise serializers.ValidationError(problems)
        return partition


class ExpiryField(serializers.DateTimeField):
    """A release's end. Every release ends (at most DQ_RELEASE_MAX_DAYS ahead), so an empty one
    is "give a moment", not the parser's list of datetime formats."""

    default_error_messages = {
        "required": "Give the moment the release ends: a release always expires, at most "
        "DQ_RELEASE_MAX_DAYS days ahead (release again then).",
        "null": "Give the moment the release ends: a release always expires.",
        "invalid": "Give a date and time, e.g. 2026-12-01T18:00:00Z (ISO 8601; without an offset: the server's time zone).",
    }

    def to_internal_value(self, value):
        if isinstance(value, str) and not value.strip():
            self.fail("required")
        return super().to_internal_value(value)


class ReleaseRequestSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)
    expires_at = ExpiryField(help_text="In the future, at most DQ_RELEASE_MAX_DAYS (default 30) days from now.")

    def validate_expires_at(self, value):
        if value <= timezone.now():
            raise serializers.ValidationError(_("A release must expire in the future."))
        days = settings.DQ_RELEASE_MAX_DAYS
        if value > timezone.now() + timedelta(days=days):
            raise serializers.ValidationError(
                f"A release lasts at most {days} day{'s' if days != 1 else ''} (DQ_RELEASE_MAX_DAYS); release again when it expires."
            )
        return value

    def validate(self, attrs):
        # A scope was once accepted and never applied: refuse it rather than let it be believed.
        if "scope" in self.initial_data:
            raise serializers.ValidationError(
                {"scope": [_("A release publishes the batch to every consumer of the gate; it takes no scope.")]}
            )
        return attrs


class TransitionSerializer(serializers.ModelSerializer):
    by = serializers.CharField(read_only=True)
    reason = StoredMessageField()

    class Meta:
        model = Transition
        fields = ["from_state", "to_state", "reason", "by", "at"]


class ReleaseSerializer(serializers.ModelSerializer):
    released_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    ended_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = Release
        fields = ["id", "released_by", "reason", "expires_at", "created_at", "ended_at", "end_reason", "ended_by"]


class EvidenceResultSerializer(serializers.ModelSerializer):
    """What one check measured on the batch (the full result is GET /results/{id}/)."""

    # Null in the entry of a check the caller may not see (hidden_result below).
    id = serializers.IntegerField(read_only=True, allow_null=True)
    check = serializers.IntegerField(source="rule_check_id", allow_null=True)
    check_version = serializers.PrimaryKeyRelatedField(read_only=True, allow_null=True)
    check_name = serializers.CharField(source="check_version.name")
    check_version_number = serializers.IntegerField(source="check_version.number", allow_null=True)
    hidden = serializers.SerializerMethodField(
        help_text="A check the caller may not see: only its status, strategy and a sentence are shown."
    )

    class Meta:
        model = Result
        fields = [
            "hidden",
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

    def get_hidden(self, result) -> bool:
        return False

    def to_representation(self, result) -> dict:
        data = super().to_representation(result)
        # In the reader's language (executions/stored_words.py).
        data["verdict"], data["message"] = verdict_in_words(result), reworded(result.message)
        return data


HIDDEN_NAME = gettext_lazy("a check you cannot see")
HIDDEN_OUTCOME = {
    "pass": gettext_lazy("a check you cannot see passed"),
    "fail": gettext_lazy("a check you cannot see failed"),
    "error": gettext_lazy("a check you cannot see could not be evaluated"),
    "unknown": gettext_lazy("a check you cannot see could not decide"),
}


def hidden_result(result: Result) -> dict:
    """A result of a check the viewer may not see: what it decided, nothing of what it read."""
    shown = dict.fromkeys(EvidenceResultSerializer.Meta.fields)
    return {
        **shown,
        "statistic_name": "",
        "message": "",
        "hidden": True,
        "check_name": str(HIDDEN_NAME),
        "status": result.status,
        "failure_strategy": result.failure_strategy,
        "verdict": str(HIDDEN_OUTCOME.get(result.status, HIDDEN_NAME)),
        "comparison_source": {},
    }


class SkippedCheckSerializer(serializers.Serializer):
    check = serializers.IntegerField(allow_null=True)
    name = serializers.CharField()
    failure_strategy = serializers.CharField()


class Viewer:
    """What one caller may see of a batch's evidence, asked once per answer through the models'
    `visible_to`/`readable_by` (no request, as when the schema is generated: nothing hidden is shown)."""

    def __init__(self, user):
        self.user = user

    def versions(self, ids) -> set[int]:
        if self.user is None:
            return set()
        return set(CheckVersion.objects.visible_to(self.user).filter(pk__in=ids).values_list("pk", flat=True))

    def checks(self, ids) -> set[int]:
        if self.user is None:
            return set()
        return set(Check.objects.visible_to(self.user).filter(pk__in=ids).values_list("pk", flat=True))

    def datasources(self, ids) -> set[int]:
        if self.user is None:
            return set()
        return set(Datasource.objects.readable_by(self.user).filter(pk__in=ids).values_list("pk", flat=True))


class AttemptFilterSerializer(serializers.Serializer):
    """A frozen batch definition the run read: where, and the resolved filter."""

    datasource = serializers.CharField(allow_null=True)
    table = serializers.CharField()
    filter = serializers.CharField(allow_null=True)
    partition = PartitionField(allow_null=True)
    scan_mode = serializers.CharField(allow_null=True)


class AttemptCheckVersionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    check = serializers.IntegerField()
    name = serializers.CharField()
    number = serializers.IntegerField()
    hash = serializers.CharField()


class AttemptSerializer(serializers.ModelSerializer):
    """One attempt as the caller may see it: checks reading a datasource the caller may not read
    appear only as "a check you cannot see" with their outcome; their tables and filters not at all."""

    run_status = serializers.CharField(source="run.status")
    trigger = serializers.CharField(source="run.trigger")
    filters = serializers.SerializerMethodField()
    check_versions = serializers.SerializerMethodField()
    hidden_checks = serializers.SerializerMethodField(help_text="How many of the run's checks the caller may not see.")
    results = serializers.SerializerMethodField()
    skipped_checks = serializers.SerializerMethodField(
        help_text="Checks bound to the table that were not run: their requester may not read what they compare with."
    )
    requested_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

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
            "hidden_checks",
            "results",
            "skipped_checks",
            "requested_by",
            "created_at",
        ]

    @property
    def viewer(self) -> Viewer:
        request = self.context.get("request")
        return Viewer(request.user if request is not None else None)

    def _versions(self, attempt) -> tuple[list, set[int]]:
        versions = list(attempt.run.check_versions.order_by("pk"))
        return versions, self.viewer.versions([v.pk for v in versions])

    @extend_schema_field(AttemptFilterSerializer(many=True))
    def get_filters(self, attempt) -> list[dict]:
        """The frozen batch definitions the run read that the caller may read: table, resolved
        filter (partition included)."""
        definitions = list((attempt.run.batches.get("definitions") or {}).values())
        readable = self.viewer.datasources([d.get("datasource_id") for d in definitions])
        return [
            {k: d.get(k) for k in ("datasource", "table", "filter", "partition", "scan_mode")}
            for d in definitions
            if d.get("datasource_id") in readable
        ]

    @extend_schema_field(AttemptCheckVersionSerializer(many=True))
    def get_check_versions(self, attempt) -> list[dict]:
        versions, visible = self._versions(attempt)
        return [
            {"id": v.pk, "check": v.parent_check_id, "name": v.name, "number": v.number, "hash": v.content_hash}
            for v in versions
            if v.pk in visible
        ]

    def get_hidden_checks(self, attempt) -> int:
        versions, visible = self._versions(attempt)
        return len(versions) - len(visible)

    @extend_schema_field(EvidenceResultSerializer(many=True))
    def get_results(self, attempt) -> list[dict]:
        results = list(attempt.run.results.select_related("check_version").order_by("id"))
        visible = self.viewer.versions([r.check_version_id for r in results])
        return [
            EvidenceResultSerializer(r).data if r.check_version_id in visible else hidden_result(r) for r in results
        ]

    @extend_schema_field(SkippedCheckSerializer(many=True))
    def get_skipped_checks(self, attempt) -> list[dict]:
        visible = self.viewer.checks([s["check"] for s in attempt.skipped_checks])
        return [
            {"check": s["check"], "name": s["name"], "failure_strategy": s.get("failure_strategy", "")}
            if s["check"] in visible
            else {"check": None, "name": HIDDEN_NAME, "failure_strategy": s.get("failure_strategy", "")}
            for s in attempt.skipped_checks
        ]


class BatchSerializer(serializers.ModelSerializer):
    datasource_name = serializers.CharField(source="datasource.name", read_only=True)
    may_consume = serializers.BooleanField(read_only=True)
    permissions = serializers.SerializerMethodField(
        help_text="What the caller may do with the batch: release and revalidate (owners of its datasource, admins)."
    )
    attempt = serializers.SerializerMethodField()
    revalidated_with_changed_rules = serializers.SerializerMethodField()
    notice = serializers.SerializerMethodField()
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    # "" until a table policy has decided (the schema lists it among the states).
    policy_state = serializers.ChoiceField(choices=Batch.State.choices, allow_blank=True, read_only=True)
    partition = PartitionField(read_only=True)
    producer = json_field(ProducerSerializer, "ProducerField")(read_only=True)
    reason = StoredMessageField()
    warnings = StringListField(read_only=True)
    notes = StringListField(read_only=True, help_text="What registration could not verify.")

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
            "permissions",
        ]
        read_only_fields = fields

    def get_permissions(self, batch) -> list[str]:
        """Worked out from the datasources the caller owns, asked once for a whole page."""
        request = self.context.get("request")
        if request is None:
            return []
        if "owned_datasource_ids" not in self.context:
            owned = Datasource.objects.owned_by(request.user).values_list("pk", flat=True)
            self.context["owned_datasource_ids"] = set(owned)
        return batch_permissions(batch.datasource_id, self.context["owned_datasource_ids"])

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
        return str(REVALIDATED_WITH_CHANGED_RULES) if self.get_revalidated_with_changed_rules(batch) else ""

    def to_representation(self, batch) -> dict:
        data = super().to_representation(batch)
        data["warnings"] = [reworded(w) for w in data["warnings"] or []]
        return data


class BatchDetailSerializer(BatchSerializer):
    may_change = serializers.SerializerMethodField(
        help_text="The caller may release and re-validate it: an owner of its datasource or an admin."
    )
    transitions = TransitionSerializer(many=True, read_only=True)
    attempts = AttemptSerializer(many=True, read_only=True)
    releases = ReleaseSerializer(many=True, read_only=True)

    class Meta(BatchSerializer.Meta):
        fields = [*BatchSerializer.Meta.fields, "may_change", "transitions", "attempts", "releases"]
        read_only_fields = fields

    def get_may_change(self, batch) -> bool:
        request = self.context.get("request")
        return request is not None and batch.may_be_changed_by(request.user)
