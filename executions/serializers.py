from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from django.db.models import F
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.rights import run_permissions
from dq_engine.selection import AUTO
from dq_engine.selection import CHOICES as ENGINE_CHOICES
from dq_platform import api_times
from dq_platform.api_shapes import ParamsField, StringMapField, json_field
from rules.catalog_text import catalog_text
from rules.models import Check

from .evaluation import formula_in_words, result_band, result_fail_band, result_verdict, verdict_in_words
from .models import Result, Run, blocks
from .stored_words import reworded


class StoredMessageField(serializers.CharField):
    """A message written when the run ended, shown in the reader's language where it can be
    (executions/stored_words.py)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, value) -> str:
        return reworded(super().to_representation(value))


class CatalogTextField(serializers.CharField):
    """A built-in template's name, in the reader's language (rules/catalog_text.py)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, value) -> str:
        return catalog_text(super().to_representation(value))


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
            raise serializers.ValidationError(_("A check is listed twice."))
        return [visible[i] for i in ids]

    def validate(self, attrs):
        if attrs.get("trigger") == Run.Trigger.BACKFILL and "biz_date" not in attrs:
            raise serializers.ValidationError({"biz_date": [_("A backfill needs the business date it checks.")]})
        return attrs


# What a result shows of itself, and of its version, check and run (name: the path to it). A list
# of results reads just these values (`shown_results`), not the rows of five models.
OWN_VALUES = (
    "id",
    "run_id",
    "rule_check_id",
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
    "verdict",
    "message",
    "error_row_count",
    "error_rows_written",
    "error_rows_path",
    "rows_scanned",
    "details",
    "data_time",
    "created_at",
)
RELATED_VALUES = {
    "check_name": "check_version__name",
    "version_number": "check_version__number",
    "template_key": "check_version__template_key",
    # A check keeps its template (rules/serializers.py refuses a change), so its name is the one
    # the version ran with.
    "template_name": "rule_check__template__name",
    "run_status": "run__status",
    # Only the run's batch definitions, not all its frozen batches (which assign every check).
    "batch_definitions": "run__batches__definitions",
}


def shown_results(ids: list[int]) -> list[dict]:
    """These results as ResultSerializer shows them, in the order of `ids`. The ids come from
    `Result.objects.visible_to`, which decided who may read them."""
    related = {name: F(path) for name, path in RELATED_VALUES.items()}
    found = {v["id"]: v for v in Result.objects.filter(id__in=ids).order_by().values(*OWN_VALUES, **related)}
    moment = api_times.formatter()
    return [shown_result(found[pk], moment) for pk in ids]


def shown_result(v: dict, moment: Callable[[datetime | None], str | None]) -> dict:
    """A result as ResultSerializer shows it, from its values (OWN_VALUES and RELATED_VALUES):
    written out, where walking DRF's generic fields one by one took most of a results page's
    time. Same keys, order and values as the fields ResultSerializer declares
    (executions/tests/test_result_representation.py holds them equal)."""
    batch = (v["batch_definitions"] or {}).get(v["batch"]) or {}
    return {
        "id": v["id"],
        "run": v["run_id"],
        "check": v["rule_check_id"],
        "check_name": v["check_name"],
        "check_version": v["version_number"],
        "template": v["template_key"],
        "template_name": catalog_text(v["template_name"]),
        "batch": v["batch"],
        "partition_key": v["partition_key"],
        "status": v["status"],
        "statistic_name": v["statistic_name"],
        "statistics_value": _number(v["statistics_value"]),
        "comparison_value": _number(v["comparison_value"]),
        "comparison_type": v["comparison_type"],
        "comparison_source": v["comparison_source"],
        "check_type": v["check_type"],
        "operator": v["operator"],
        "threshold": _number(v["threshold"]),
        "failure_strategy": v["failure_strategy"],
        "formula_value": _number(v["formula_value"]),
        "formula": formula_in_words(v["check_type"], v["operator"], v["threshold"]),
        "verdict": _verdict(v),
        "blocks": blocks(v["failure_strategy"], v["status"]),
        "message": reworded(v["message"]),
        "error_row_count": v["error_row_count"],
        "error_rows_written": v["error_rows_written"],
        "has_error_rows": bool(v["error_rows_path"] and v["error_rows_written"]),
        "rows_scanned": v["rows_scanned"],
        "details": v["details"],
        "datasource": {"id": batch["datasource_id"], "name": batch.get("datasource", "")}
        if "datasource_id" in batch
        else None,
        "table": batch.get("table", ""),
        "run_status": v["run_status"],
        "data_time": moment(v["data_time"]),
        "created_at": moment(v["created_at"]),
    }


def _number(value: float | None) -> float | None:
    """A FloatField's answer: the float, or None."""
    return None if value is None else float(value)


def _verdict(v: dict) -> str:
    # Worded in the reader's language from the result's own numbers (results recorded before
    # verdicts were stored get theirs too).
    return result_verdict(
        v["verdict"],
        v["status"],
        v["statistics_value"],
        v["comparison_value"],
        v["comparison_source"],
        v["check_type"],
        v["operator"],
        v["threshold"],
        v["partition_key"],
    )


def _values_of(result: Result) -> dict:
    """A result's OWN_VALUES and RELATED_VALUES, from the instance and its related ones."""
    values = {name: getattr(result, name) for name in OWN_VALUES}
    version, run = result.check_version, result.run
    values.update(
        check_name=version.name,
        version_number=version.number,
        template_key=version.template_key,
        template_name=catalog_text(result.rule_check.template.name),
        run_status=run.status,
        batch_definitions=run.batches.get("definitions"),
    )
    return values


class DatasourceRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class LearnedSerializer(serializers.Serializer):
    sentence = serializers.CharField(help_text="What the baseline was made of, in a sentence.")


class ComparisonSourceSerializer(serializers.Serializer):
    """Where a result's expected value came from; which keys depends on its comparison type."""

    type = serializers.CharField(required=False)
    source = serializers.CharField(
        required=False, help_text="`anomaly`: judged by anomaly detection (its `verdict`: pass, warn, fail or unknown)."
    )
    verdict = serializers.CharField(required=False)
    learned = LearnedSerializer(required=False, help_text="Dynamic ranges and anomaly detection.")
    batch = serializers.CharField(required=False)
    baseline_runs = serializers.ListField(child=serializers.IntegerField(), required=False)
    values = serializers.IntegerField(required=False)
    # {start, end} of the earlier results compared with; a dynamic range's own window spec.
    window = serializers.JSONField(required=False)


class RowCheckOutcomeSerializer(serializers.Serializer):
    name = serializers.CharField()
    failed_rows = serializers.IntegerField(allow_null=True)
    critical = serializers.BooleanField()
    message = serializers.CharField(required=False)


class ResultDetailsSerializer(serializers.Serializer):
    """What a statistic is made of: a row_level_check's per-check failed rows (and where the
    cleansed output went), a schema contract's violations; {} for other templates."""

    checks = RowCheckOutcomeSerializer(many=True, required=False)
    violations = serializers.ListField(child=serializers.CharField(), required=False)
    output_path = serializers.CharField(required=False)


class PassingBandSerializer(serializers.Serializer):
    """Statistic values between `low` and `high` (null: unbounded) pass (`inside`) or fail (`outside`)."""

    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)
    passes = serializers.ChoiceField(choices=["inside", "outside"])


class BatchDefinitionSerializer(serializers.Serializer):
    # Runs recorded before runs named their datasource lack these two.
    datasource_id = serializers.IntegerField(required=False)
    datasource = serializers.CharField(required=False)
    table = serializers.CharField()
    filter = serializers.CharField(allow_null=True)
    scan_mode = serializers.CharField()
    data_version = serializers.CharField(allow_null=True, required=False)
    engine = serializers.CharField(
        required=False,
        help_text="The engine that read the batch (spark, duckdb, pushdown): chosen when the run started, "
        "and once it ended the one that actually read it.",
    )
    engine_chosen = serializers.CharField(
        required=False,
        help_text="Set when the engine chosen at start did not read the batch (pushdown refused one of its checks).",
    )
    engine_reason = serializers.CharField(required=False, help_text="Why that engine, in words.")


class RunCheckSerializer(serializers.Serializer):
    check = serializers.IntegerField()
    version = serializers.IntegerField()
    name = serializers.CharField()


ComparisonSourceField = json_field(ComparisonSourceSerializer, "ComparisonSourceField")
ResultDetailsField = json_field(ResultDetailsSerializer, "ResultDetailsField")


class ResultSerializer(serializers.ModelSerializer):
    """A result as every screen shows it: what was measured and compared, the verdict in words
    (`verdict`, and the rule alone as `formula`), whether it `blocks`, and where it looked.
    The fields declare the shape (and the API schema); `shown_result` writes it."""

    check = serializers.IntegerField(source="rule_check_id", read_only=True)
    check_name = serializers.CharField(source="check_version.name", read_only=True)
    check_version = serializers.IntegerField(source="check_version.number", read_only=True)
    template = serializers.CharField(source="check_version.template_key", read_only=True)
    template_name = CatalogTextField(source="rule_check.template.name")
    formula = serializers.SerializerMethodField(help_text='The rule in words: "Pass when actual − expected ≤ 0"')
    verdict = serializers.SerializerMethodField(
        help_text='The rule applied to the numbers: "Pass when actual − expected ≤ 0: 2 − 0 = 2 > 0 → fail"; '
        '"" for an `error` result, whose `message` says why'
    )
    blocks = serializers.BooleanField(read_only=True, help_text="A `block` check that failed or could not be evaluated")
    has_error_rows = serializers.SerializerMethodField()
    datasource = serializers.SerializerMethodField(help_text="The datasource the result's batch read: {id, name}")
    table = serializers.SerializerMethodField()
    run_status = serializers.ChoiceField(source="run.status", choices=Run.Status.choices, read_only=True)
    comparison_source = ComparisonSourceField(read_only=True)
    details = ResultDetailsField(read_only=True)

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

    def to_representation(self, result: Result) -> dict:
        return shown_result(_values_of(result), api_times.formatter())

    # The declared fields' own answers, walked one by one: what the API schema reads their types
    # from, and the reference `shown_result` is held to (test_result_representation.py).
    def get_has_error_rows(self, result: Result) -> bool:
        return bool(result.error_rows_path and result.error_rows_written)

    def get_formula(self, result: Result) -> str:
        return formula_in_words(result.check_type, result.operator, result.threshold)

    def get_verdict(self, result: Result) -> str:
        return verdict_in_words(result)

    def _batch(self, result: Result) -> dict:
        return (result.run.batches.get("definitions") or {}).get(result.batch) or {}

    @extend_schema_field(DatasourceRefSerializer(allow_null=True))
    def get_datasource(self, result: Result) -> dict | None:
        batch = self._batch(result)
        if "datasource_id" not in batch:
            return None
        return {"id": batch["datasource_id"], "name": batch.get("datasource", "")}

    def get_table(self, result: Result) -> str:
        return self._batch(result).get("table", "")


def batches_as_run(batches: dict, plan: dict | None) -> dict:
    """The run's frozen batch definitions, each with the engine that read it once the run ended
    (`engine`, `engine_reason`); when that is not the engine chosen at start, `engine_chosen`
    keeps the choice, and the reason says why it was set aside."""
    ran = (plan or {}).get("engines") or {}
    shown = {}
    for name, definition in (batches.get("definitions") or {}).items():
        batch = dict(definition)
        actual = ran.get(name) or {}
        if actual.get("engine") and actual["engine"] != batch.get("engine"):
            batch["engine_chosen"] = batch.get("engine") or ""
            batch["engine"] = actual["engine"]
            batch["engine_reason"] = actual.get("engine_reason") or _(
                "%(engine)s: the engine chosen at start (%(chosen)s) did not read it"
            ) % {"engine": actual["engine"], "chosen": batch["engine_chosen"] or "auto"}
        elif actual.get("engine_reason"):
            batch["engine_reason"] = actual["engine_reason"]
        if batch.get("engine_reason"):
            batch["engine_reason"] = reworded(batch["engine_reason"])  # the engine's words, for the reader
        shown[name] = batch
    return shown


class RunSerializer(serializers.ModelSerializer):
    results = ResultSerializer(many=True, read_only=True)
    message = StoredMessageField(help_text="Why the run ended as it did, when it says more than its status.")
    batches = serializers.SerializerMethodField()
    duration_seconds = serializers.FloatField(read_only=True, allow_null=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    checks = serializers.SerializerMethodField()
    parameters = StringMapField(read_only=True, help_text="Resolved run parameters (biz_date, …).")
    plan = ParamsField(read_only=True, help_text="What the engine did: passes per batch.")
    permissions = serializers.SerializerMethodField(
        help_text="What the caller may do with the run: cancel and retry (its author and administrators)."
    )

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
            "permissions",
            "results",
        ]

    def get_permissions(self, run: Run) -> list[str]:
        request = self.context.get("request")
        return run_permissions(request.user, run.created_by_id) if request is not None else []

    @extend_schema_field(serializers.DictField(child=BatchDefinitionSerializer()))
    def get_batches(self, run: Run) -> dict:
        return batches_as_run(run.batches, run.plan)

    @extend_schema_field(RunCheckSerializer(many=True))
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

    @extend_schema_field(RunCheckSerializer(many=True))
    def get_checks(self, run: Run) -> list[dict]:
        return self.context["checks"].get(run.pk, [])


class HistoryPointSerializer(serializers.ModelSerializer):
    """One point of a check's trend. Errored results are points too (statistic null, `message`
    says why), so the chart can mark them; `passing_band` is where the statistic would have
    passed, given that point's expected value and rule, or for a dynamic threshold the range
    learned when it was judged (null when no band applies)."""

    result = serializers.IntegerField(source="id")
    check_version = serializers.IntegerField(source="check_version.number")
    message = StoredMessageField()
    passing_band = serializers.SerializerMethodField()
    fail_band = serializers.SerializerMethodField(
        help_text="Anomaly detection only: beyond it the point failed, between it and passing_band it warned"
    )

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
            "fail_band",
            "message",
        ]

    @extend_schema_field(PassingBandSerializer(allow_null=True))
    def get_passing_band(self, result: Result) -> dict | None:
        band = result_band(result)
        return band.as_dict() if band else None

    @extend_schema_field(PassingBandSerializer(allow_null=True))
    def get_fail_band(self, result: Result) -> dict | None:
        band = result_fail_band(result)
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

    def to_representation(self, result: Result) -> dict:
        # Written out, like ResultSerializer's (and held equal to the fields the same way).
        return {
            "check": result.rule_check_id,
            "check_name": result.check_version.name,
            "result": result.id,
            "run": result.run_id,
            "status": result.status,
            "statistics_value": _number(result.statistics_value),
            "created_at": api_times.formatter()(result.created_at),
            "blocks": result.blocks,
        }
