from __future__ import annotations

from rest_framework import serializers

from rules.models import Check

from .models import Result, Run


class RunRequestSerializer(serializers.Serializer):
    """`{"checks": [ids], "biz_date"?: "YYYY-MM-DD", "idempotency_key"?, "trigger"?}`."""

    checks = serializers.ListField(child=serializers.IntegerField(min_value=1), min_length=1, max_length=500)
    biz_date = serializers.DateField(required=False, input_formats=["%Y-%m-%d"])
    idempotency_key = serializers.CharField(required=False, max_length=200, allow_blank=False)
    trigger = serializers.ChoiceField(
        choices=[Run.Trigger.MANUAL, Run.Trigger.API, Run.Trigger.BACKFILL], required=False
    )

    def validate_checks(self, ids: list[int]) -> list[Check]:
        visible = {c.pk: c for c in Check.objects.visible_to(self.context["request"].user).filter(pk__in=ids)}
        missing = [i for i in ids if i not in visible]
        if missing:
            raise serializers.ValidationError(
                f"Check{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} "
                "do not exist or you may not run them."
            )
        if len(set(ids)) != len(ids):
            raise serializers.ValidationError("A check is listed twice.")
        return [visible[i] for i in ids]

    def validate(self, attrs):
        if attrs.get("trigger") == Run.Trigger.BACKFILL and "biz_date" not in attrs:
            raise serializers.ValidationError({"biz_date": ["A backfill needs the business date it checks."]})
        return attrs


class ResultSerializer(serializers.ModelSerializer):
    check = serializers.IntegerField(source="rule_check_id", read_only=True)
    check_name = serializers.CharField(source="check_version.name", read_only=True)
    check_version = serializers.IntegerField(source="check_version.number", read_only=True)
    template = serializers.CharField(source="check_version.template_key", read_only=True)
    has_error_rows = serializers.SerializerMethodField()

    class Meta:
        model = Result
        fields = [
            "id",
            "run",
            "check",
            "check_name",
            "check_version",
            "template",
            "batch",
            "status",
            "statistic_name",
            "statistics_value",
            "comparison_value",
            "comparison_type",
            "comparison_source",
            "check_type",
            "operator",
            "threshold",
            "failure_strategy",
            "formula_value",
            "verdict",
            "message",
            "error_row_count",
            "error_rows_written",
            "has_error_rows",
            "rows_scanned",
            "data_time",
            "created_at",
        ]

    def get_has_error_rows(self, result: Result) -> bool:
        return bool(result.error_rows_path and result.error_rows_written)


class RunSerializer(serializers.ModelSerializer):
    results = ResultSerializer(many=True, read_only=True)
    batches = serializers.SerializerMethodField()
    duration_seconds = serializers.FloatField(read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    checks = serializers.SerializerMethodField()

    class Meta:
        model = Run
        fields = [
            "id",
            "status",
            "blocking",
            "trigger",
            "attempt",
            "retry_of",
            "worker",
            "biz_date",
            "data_time",
            "parameters",
            "batches",
            "checks",
            "rule_set_hash",
            "scan_mode",
            "spark_application_id",
            "plan",
            "message",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "duration_seconds",
            "results",
        ]

    def get_batches(self, run: Run) -> dict:
        return run.batches.get("definitions", {})

    def get_checks(self, run: Run) -> list[dict]:
        return [{"check": v.parent_check_id, "version": v.number, "name": v.name} for v in run.check_versions.all()]


class HistoryPointSerializer(serializers.ModelSerializer):
    result = serializers.IntegerField(source="id")
    check_version = serializers.IntegerField(source="check_version.number")

    class Meta:
        model = Result
        fields = [
            "result",
            "run",
            "data_time",
            "status",
            "statistics_value",
            "comparison_value",
            "check_version",
            "threshold",
            "operator",
            "check_type",
        ]
