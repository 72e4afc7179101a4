from __future__ import annotations

from rest_framework import serializers

from dq_engine.selection import AUTO
from dq_engine.selection import CHOICES as ENGINE_CHOICES
from rules.models import Check

from .evaluation import evaluate, formula_in_words, result_band
from .models import Result, Run


class RunRequestSerializer(serializers.Serializer):
    """`{"checks": [ids], "biz_date"?: "YYYY-MM-DD", "idempotency_key"?, "trigger"?, "engine"?}`."""

    checks = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1), min_length=1, max_length=500
    )
    biz_date = serializers.DateField(required=False, input_formats=["%Y-%m-%d"])
    idempotency_key = serializers.CharField(required=False, max_length=200, allow_blank=False)
    trigger = serializers.ChoiceField(
        choices=[Run.Trigger.MANUAL, Run.Trigger.API, Run.Trigger.BACKFILL], required=False
    )
    engine = serializers.ChoiceField(
        choices=list(ENGINE_CHOICES),
        required=False,
        default=AUTO,
        help_text="Which engine reads every batch: auto (per batch: pushdown for a database table, DuckDB "
        "for small local files, else Spark) or one engine for all; one that cannot read a batch is a 400.",
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
    """A result as every screen shows it: what was measured and compared, the verdict in words
    (`verdict`, and the rule alone as `formula`), whether it `blocks`, and where it looked."""

    check = serializers.IntegerField(source="rule_check_id", read_only=True)
    check_name = serializers.CharField(source="check_version.name", read_only=True)
    check_version = serializers.IntegerField(source="check_version.number", read_only=True)
    template = serializers.CharField(source="check_version.template_key", read_only=True)
    # A check keeps its template (rules/serializers.py refuses a change), so its name is the one the
    # version ran with.
    template_name = serializers.CharField(source="rule_check.template.name", read_only=True)
    formula = serializers.SerializerMethodField(help_text='The rule in words: "Pass when actual − expected ≤ 0"')
    verdict = serializers.SerializerMethodField(
        help_text='The rule applied to the numbers: "Pass when actual − expected ≤ 0: 2 − 0 = 2 > 0 → fail"; '
        '"" for an `error` result, whose `message` says why'
    )
    blocks = serializers.BooleanField(read_only=True, help_text="A `block` check that failed or could not be evaluated")
    has_error_rows = serializers.SerializerMethodField()
    datasource = serializers.SerializerMethodField(help_text="The datasource the result's batch read: {id, name}")
    table = serializers.SerializerMethodField()
    run_status = serializers.CharField(source="run.status", read_only=True)

    class Meta:
        model = Result
        fields = [
            "id",
            "run",
            "check",
            "check_name",
            "check_version",
            "template",
            "template_name",
            "batch",
            "partition_key",
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
            "formula",
            "verdict",
            "blocks",
            "message",
            "error_row_count",
            "error_rows_written",
            "has_error_rows",
            "rows_scanned",
            "details",
            "datasource",
            "table",
            "run_status",
            "data_time",
            "created_at",
        ]

    def get_has_error_rows(self, result: Result) -> bool:
        return bool(result.error_rows_path and result.error_rows_written)

    def get_formula(self, result: Result) -> str:
        return formula_in_words(result.check_type, result.operator, result.threshold)

    def get_verdict(self, result: Result) -> str:
        # Results recorded before verdicts were stored get theirs worded now, from their own numbers.
        if result.verdict or result.status == Result.Status.ERROR:
            return result.verdict
        try:
            return evaluate(
                result.statistics_value, result.comparison_value, result.check_type, result.operator, result.threshold
            ).sentence
        except (KeyError, ValueError):
            return ""

    def _batch(self, result: Result) -> dict:
        return (result.run.batches.get("definitions") or {}).get(result.batch) or {}

    def get_datasource(self, result: Result) -> dict | None:
        batch = self._batch(result)
        if "datasource_id" not in batch:
            return None
        return {"id": batch["datasource_id"], "name": batch.get("datasource", "")}

    def get_table(self, result: Result) -> str:
        return self._batch(result).get("table", "")


class RunSerializer(serializers.ModelSerializer):
    results = ResultSerializer(many=True, read_only=True)
    batches = serializers.SerializerMethodField()
    duration_seconds = serializers.FloatField(read_only=True, allow_null=True)
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


class RunListSerializer(RunSerializer):
    """A row of the runs list: the run without its results, counted by status instead (a page of
    runs of a hundred checks each would otherwise carry thousands of results). The list builds
    its rows itself (executions/run_list.py); this describes them to the API schema."""

    result_counts = serializers.SerializerMethodField(help_text='Its results by status, e.g. {"pass": 12, "fail": 1}')

    class Meta(RunSerializer.Meta):
        fields = [f for f in RunSerializer.Meta.fields if f != "results"] + ["result_counts"]

    def get_result_counts(self, run: Run) -> dict[str, int]:
        return self.context["result_counts"].get(run.pk, {})

    def get_checks(self, run: Run) -> list[dict]:
        return self.context["checks"].get(run.pk, [])


class HistoryPointSerializer(serializers.ModelSerializer):
    """One point of a check's trend. Errored results are points too (statistic null, `message`
    says why), so the chart can mark them; `passing_band` is where the statistic would have
    passed, given that point's expected value and rule, or for a dynamic threshold the range
    learned when it was judged (null when no band applies)."""

    result = serializers.IntegerField(source="id")
    check_version = serializers.IntegerField(source="check_version.number")
    passing_band = serializers.SerializerMethodField()

    class Meta:
        model = Result
        fields = [
            "result",
            "run",
            "data_time",
            "partition_key",
            "status",
            "statistics_value",
            "comparison_value",
            "check_version",
            "threshold",
            "operator",
            "check_type",
            "passing_band",
            "message",
        ]

    def get_passing_band(self, result: Result) -> dict | None:
        band = result_band(result)
        return band.as_dict() if band else None


class LatestResultSerializer(serializers.ModelSerializer):
    """The newest result of a check, for the checks list and the dashboard's open failures."""

    result = serializers.IntegerField(source="id")
    check = serializers.IntegerField(source="rule_check_id")
    check_name = serializers.CharField(source="check_version.name")
    blocks = serializers.BooleanField()

    class Meta:
        model = Result
        fields = ["check", "check_name", "result", "run", "status", "statistics_value", "created_at", "blocks"]
