"""The monitors API's request and answer.

POST `{datasource, table?, kinds?, time_column?, volume_by_date?, volume_comparison?,
freshness_max_age?, freshness_unit?, failure_strategy?, schedule?, timezone?}`; PATCH
`{enabled?, schedule?, timezone?}` (what to measure is fixed once made: delete and switch on
again to change it)."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.utils.translation import gettext as _
from rest_framework import serializers

from datasources.models import Datasource
from dq_engine.vocabulary.fields import AGE_UNITS
from dq_platform.ids import as_id
from rules.models import ComparisonType, RuleTemplate
from watching import cron

from .models import (
    DEFAULT_CRON,
    DEFAULT_FRESHNESS_MAX_AGE,
    DEFAULT_FRESHNESS_UNIT,
    DEFAULT_VOLUME_COMPARISON,
    KINDS,
    Monitor,
)


def _cron(text: str) -> str:
    try:
        return cron.parse(text).expression
    except cron.CronInvalid as exc:
        raise serializers.ValidationError(str(exc)) from None


def _timezone(name: str) -> str:
    try:
        cron.zone(name)
    except cron.CronInvalid as exc:
        raise serializers.ValidationError(str(exc)) from None
    return name


class MonitorRequestSerializer(serializers.Serializer):
    datasource = serializers.JSONField(help_text="The datasource's id.")
    table = serializers.CharField(
        required=False, allow_blank=True, max_length=512, help_text="Left out or empty: every table of the datasource."
    )
    kinds = serializers.ListField(child=serializers.CharField(), required=False, default=list(KINDS), allow_empty=False)
    time_column = serializers.CharField(required=False, allow_blank=True, max_length=256, default="")
    volume_by_date = serializers.BooleanField(required=False, default=None, allow_null=True)
    volume_comparison = serializers.CharField(required=False, default=DEFAULT_VOLUME_COMPARISON, max_length=40)
    freshness_max_age = serializers.FloatField(required=False, default=DEFAULT_FRESHNESS_MAX_AGE, min_value=0)
    freshness_unit = serializers.ChoiceField(
        choices=[c.value for c in AGE_UNITS], required=False, default=DEFAULT_FRESHNESS_UNIT
    )
    failure_strategy = serializers.ChoiceField(choices=["alert", "block"], required=False, default="alert")
    schedule = serializers.CharField(required=False, default=DEFAULT_CRON, max_length=120, help_text="A cron.")
    timezone = serializers.CharField(required=False, default="", max_length=64)

    def validate_datasource(self, value) -> Datasource:
        found = as_id(value) if not isinstance(value, bool) else None
        datasource = (
            Datasource.objects.visible_to(self.context["request"].user).filter(pk=found).first() if found else None
        )
        if datasource is None:
            raise serializers.ValidationError(_("No datasource %(value)s that you may use.") % {"value": repr(value)})
        return datasource

    def validate_kinds(self, kinds: list[str]) -> list[str]:
        unknown = [k for k in kinds if k not in KINDS]
        if unknown:
            raise serializers.ValidationError(
                _("Unknown kind %(items)s; use %(allowed)s.")
                % {"items": ", ".join(map(repr, unknown)), "allowed": ", ".join(KINDS)}
            )
        if len(set(kinds)) != len(kinds):
            raise serializers.ValidationError(_("Name each kind once."))
        return [k for k in KINDS if k in kinds]

    def validate_volume_comparison(self, key: str) -> str:
        """One the row-count template allows that learns from history (not a fixed number, nor a
        row count of the data, which would compare the table with itself)."""
        allowed = RuleTemplate.objects.get(key="table_count_check").allowed_comparison_types()
        learned = set(
            ComparisonType.objects.filter(key__in=allowed)
            .exclude(source__in=(ComparisonType.Source.FIXED, ComparisonType.Source.DATA))
            .values_list("key", flat=True)
        )
        if key not in learned:
            raise serializers.ValidationError(
                f"{key!r} is not a comparison a row count learns from its history; use one of {', '.join(sorted(learned))}."
            )
        return key

    def validate_schedule(self, text: str) -> str:
        return _cron(text)

    def validate_timezone(self, name: str) -> str:
        return _timezone(name or django_settings.TIME_ZONE)

    def validate(self, attrs):
        if attrs["volume_by_date"] is None:
            attrs["volume_by_date"] = bool(attrs["time_column"]) and "volume" in attrs["kinds"]
        if attrs["volume_by_date"] and not attrs["time_column"]:
            raise serializers.ValidationError({"volume_by_date": [_("Rows per business date need a time_column.")]})
        if attrs["freshness_max_age"] <= 0 and "freshness" in attrs["kinds"]:
            raise serializers.ValidationError({"freshness_max_age": ["The largest age must be above 0."]})
        attrs["table"] = attrs.get("table", "").strip()
        attrs["time_column"] = attrs["time_column"].strip()
        attrs["timezone"] = attrs["timezone"] or django_settings.TIME_ZONE
        attrs["cron"] = attrs.pop("schedule")
        return attrs


class MonitorChangeSerializer(serializers.Serializer):
    enabled = serializers.BooleanField(required=False)
    schedule = serializers.CharField(required=False, max_length=120, help_text="A cron.")
    timezone = serializers.CharField(required=False, max_length=64)

    def validate_schedule(self, text: str) -> str:
        return _cron(text)

    def validate_timezone(self, name: str) -> str:
        return _timezone(name)


class MonitorCheckSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="rule_check_id")
    name = serializers.CharField(source="rule_check.name")
    kind = serializers.CharField()
    table = serializers.CharField()
    template = serializers.CharField(source="rule_check.template.key")


class MonitorSerializer(serializers.ModelSerializer):
    """A monitor as the API answers it (see README "Table monitors")."""

    datasource_name = serializers.CharField(source="datasource.name", read_only=True)
    table = serializers.SerializerMethodField()
    time_column = serializers.SerializerMethodField()
    enabled = serializers.BooleanField(read_only=True)
    schedule = serializers.SerializerMethodField()
    timezone = serializers.SerializerMethodField()
    schedule_id = serializers.IntegerField(read_only=True)
    schedule_description = serializers.SerializerMethodField()
    next_runs = serializers.SerializerMethodField()
    checks = MonitorCheckSerializer(source="monitor_checks", many=True, read_only=True)
    owner = serializers.CharField(source="owner.username", default=None, read_only=True)
    may_change = serializers.SerializerMethodField()

    class Meta:
        model = Monitor
        fields = [
            "id",
            "datasource",
            "datasource_name",
            "table",
            "kinds",
            "time_column",
            "volume_by_date",
            "volume_comparison",
            "freshness_max_age",
            "freshness_unit",
            "failure_strategy",
            "enabled",
            "schedule",
            "timezone",
            "schedule_id",
            "schedule_description",
            "next_runs",
            "checks",
            "owner",
            "may_change",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_table(self, monitor) -> str | None:
        return monitor.table or None

    def get_time_column(self, monitor) -> str | None:
        return monitor.time_column or None

    def get_schedule(self, monitor) -> str | None:
        return monitor.schedule.cron if monitor.schedule else None

    def get_timezone(self, monitor) -> str | None:
        return monitor.schedule.timezone if monitor.schedule else None

    def get_schedule_description(self, monitor) -> str | None:
        return monitor.schedule.describe() if monitor.schedule else None

    def get_next_runs(self, monitor) -> list[str]:
        if not monitor.schedule or not monitor.schedule.enabled:
            return []
        zone = monitor.schedule.zone
        return [slot.astimezone(zone).isoformat() for slot in monitor.schedule.next_slots(3)]

    def get_may_change(self, monitor) -> bool:
        changeable = self.context.get("changeable")
        return changeable is not None and monitor.datasource_id in changeable


class SkippedSerializer(serializers.Serializer):
    table = serializers.CharField()
    kind = serializers.CharField(help_text="volume, freshness, or time_column (the table's time column is unusable).")
    reason = serializers.CharField()


class MonitorCreatedSerializer(MonitorSerializer):
    """POST's answer: the monitor, and what a whole datasource's tables did not get."""

    skipped = SkippedSerializer(many=True, read_only=True)

    class Meta(MonitorSerializer.Meta):
        fields = [*MonitorSerializer.Meta.fields, "skipped"]
        read_only_fields = fields
