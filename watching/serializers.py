"""Marshalling for schedules, alert channels, incidents and notifications; the models and the
channel kinds decide what is valid."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.rights import alert_channel_permissions, schedule_permissions
from datasources.models import Datasource
from dq_platform.language import language_code
from dq_platform.text import plain_name
from executions.scopes import scope_words
from executions.serializers import StoredMessageField
from rules.models import Check

from . import cron
from .channels import TargetInvalid, transport_for
from .handling import may_handle
from .models import (
    AlertChannel,
    CheckMute,
    DeliveryAttempt,
    Incident,
    IncidentChange,
    IncidentComment,
    Notification,
    Schedule,
    Severity,
)

SAY_WHAT_WAS_DONE = gettext_lazy("Say what was done about it: the note is kept with the incident.")
MISSED_SLOT_POLICY = "run_latest_once"


def _ids_of(queryset, ids: list[int], what: str) -> list:
    found = {obj.pk: obj for obj in queryset.filter(pk__in=ids)}
    missing = [i for i in ids if i not in found]
    if missing:
        raise serializers.ValidationError(
            f"{what} {', '.join(map(str, missing))} do{'es' if len(missing) == 1 else ''} not exist or you may not use "
            f"{'it' if len(missing) == 1 else 'them'}."
        )
    if len(set(ids)) != len(ids):
        raise serializers.ValidationError(_("A %(lower)s is listed twice.") % {"lower": what.lower()})
    return [found[i] for i in ids]


class CheckNameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class ScheduleSerializer(serializers.ModelSerializer):
    """`{"name", "cron", "timezone", "checks": [ids], "enabled", "biz_date_offset_days"}`.

    `next_runs` are the next five firing times (ISO, in the schedule's timezone), `description`
    the cron in words. Missed slots (`missed_slot_policy`: run_latest_once): when beat was down
    over several slots, only the latest one runs, once; slots from while a schedule was paused never run.
    """

    checks = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1), max_length=500, write_only=True
    )
    check_names = serializers.SerializerMethodField()
    timezone = serializers.CharField(max_length=64, default="UTC")
    biz_date_offset_days = serializers.IntegerField(min_value=-366, max_value=366, default=-1)
    description = serializers.SerializerMethodField()
    next_runs = serializers.SerializerMethodField()
    missed_slot_policy = serializers.SerializerMethodField()
    owner = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    last_message = StoredMessageField(help_text="Why the latest slot started no run, if it did not.")
    can_edit = serializers.SerializerMethodField()
    permissions = serializers.SerializerMethodField(
        help_text="What the caller may do with the schedule: change and delete (its owner and administrators)."
    )

    class Meta:
        model = Schedule
        fields = [
            "id",
            "name",
            "cron",
            "timezone",
            "description",
            "next_runs",
            "missed_slot_policy",
            "checks",
            "check_names",
            "enabled",
            "biz_date_offset_days",
            "owner",
            "can_edit",
            "permissions",
            "last_slot",
            "last_run",
            "last_message",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "last_slot", "last_run", "last_message", "created_at", "updated_at"]

    def to_representation(self, schedule):
        data = super().to_representation(schedule)
        data["checks"] = [c.pk for c in self._live(schedule)]
        return data

    def _live(self, schedule) -> list[Check]:
        return sorted((c for c in schedule.checks.all() if c.deleted_at is None), key=lambda c: c.pk)

    @extend_schema_field(CheckNameSerializer(many=True))
    def get_check_names(self, schedule) -> list[dict]:
        return [{"id": c.pk, "name": c.name} for c in self._live(schedule)]

    def get_description(self, schedule) -> str:
        return schedule.describe()

    def get_next_runs(self, schedule) -> list[str]:
        return [slot.isoformat() for slot in schedule.next_slots(5)]

    def get_missed_slot_policy(self, schedule) -> str:
        return MISSED_SLOT_POLICY

    def get_can_edit(self, schedule) -> bool:
        return "change" in self.get_permissions(schedule)

    def get_permissions(self, schedule) -> list[str]:
        return schedule_permissions(self.context["request"].user, schedule.owner_id)

    def validate_name(self, name: str) -> str:
        if not name.strip():
            raise serializers.ValidationError(_("A schedule needs a name."))
        return plain_name(name, "A schedule's name")

    def validate_cron(self, text: str) -> str:
        try:
            return cron.parse(text).expression
        except cron.CronInvalid as exc:
            raise serializers.ValidationError(str(exc)) from None

    def validate_timezone(self, name: str) -> str:
        try:
            cron.zone(name)
        except cron.CronInvalid as exc:
            raise serializers.ValidationError(str(exc)) from None
        return name

    def validate_checks(self, ids: list[int]) -> list[Check]:
        if not ids:
            raise serializers.ValidationError(_("A schedule needs at least one check."))
        return _ids_of(Check.objects.visible_to(self.context["request"].user), ids, "Check")

    def create(self, validated):
        checks = validated.pop("checks")
        schedule = Schedule.objects.create(owner=self.context["request"].user, **validated)
        schedule.checks.set(checks)
        return schedule

    def update(self, schedule, validated):
        checks = validated.pop("checks", None)
        for key, value in validated.items():
            setattr(schedule, key, value)
        schedule.save()
        if checks is not None:
            schedule.checks.set(checks)
        return schedule


class CronPreviewSerializer(serializers.Serializer):
    cron = serializers.CharField()
    timezone = serializers.CharField()
    description = serializers.CharField()
    next_runs = serializers.ListField(child=serializers.CharField())


class AlertChannelSerializer(serializers.ModelSerializer):
    """`{"name", "kind", "target", "notify_on", "checks", "datasources"}`. `target` is write-only:
    omit it to keep the stored one; responses carry `has_target` and a redacted `target_preview`.
    Empty `checks` and `datasources` mean every check."""

    kind = serializers.ChoiceField(
        choices=AlertChannel.Kind.choices,
        error_messages={
            "invalid_choice": f'Unknown kind "{{input}}"; choose one of {", ".join(AlertChannel.Kind.values)}.'
        },
    )
    target = serializers.CharField(
        write_only=True, required=False, max_length=2000, trim_whitespace=True, style={"input_type": "password"}
    )
    has_target = serializers.BooleanField(read_only=True)
    language = serializers.ChoiceField(
        choices=AlertChannel.Language.choices,
        required=False,
        help_text="The language of the channel's messages (en, zh-hans); by default the creating request's.",
        error_messages={
            "invalid_choice": gettext_lazy(
                'Unknown language "{input}"; choose en (English) or zh-hans (Simplified Chinese).'
            )
        },
    )
    notify_on = serializers.ListField(
        child=serializers.ChoiceField(choices=AlertChannel.EVENTS), default=lambda: list(AlertChannel.EVENTS)
    )
    checks = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        required=False,
        max_length=1000,
        write_only=True,
    )
    datasources = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        required=False,
        max_length=1000,
        write_only=True,
    )

    permissions = serializers.SerializerMethodField(
        help_text="What the caller may do with the channel: change, delete and test (administrators)."
    )

    class Meta:
        model = AlertChannel
        fields = [
            "id",
            "name",
            "kind",
            "target",
            "has_target",
            "target_preview",
            "notify_on",
            "language",
            "checks",
            "datasources",
            "permissions",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "target_preview", "created_at", "updated_at"]

    def to_representation(self, channel):
        data = super().to_representation(channel)
        data["checks"] = sorted(c.pk for c in channel.checks.all())
        data["datasources"] = sorted(d.pk for d in channel.datasources.all())
        return data

    def get_permissions(self, channel) -> list[str]:
        request = self.context.get("request")
        return alert_channel_permissions(request.user) if request is not None else []

    def validate_name(self, name: str) -> str:
        return plain_name(name, "A channel's name")

    def validate_notify_on(self, events: list[str]) -> list[str]:
        if not events:
            raise serializers.ValidationError(_("Choose at least one of fail, error, recovery."))
        return [e for e in AlertChannel.EVENTS if e in events]

    def validate_checks(self, ids: list[int]) -> list[Check]:
        return _ids_of(Check.objects.alive(), ids, "Check")

    def validate_datasources(self, ids: list[int]) -> list[Datasource]:
        return _ids_of(Datasource.objects.all(), ids, "Datasource")

    def validate(self, attrs):
        kind = attrs.get("kind") or getattr(self.instance, "kind", None)
        target = attrs.get("target")
        if target is None:
            if self.instance is None:
                raise serializers.ValidationError({"target": ["A target is required: " + _example(kind)]})
            if kind != self.instance.kind:
                raise serializers.ValidationError({"target": ["A new kind needs its target: " + _example(kind)]})
            return attrs
        try:
            attrs["target"] = transport_for(kind).clean_target(target)
        except TargetInvalid as exc:
            raise serializers.ValidationError({"target": [str(exc)]}) from None
        return attrs

    def create(self, validated):
        # Unless told, a channel speaks the language of whoever set it up.
        validated.setdefault("language", language_code(translation.get_language()) or AlertChannel.Language.ENGLISH)
        return self._save(AlertChannel(created_by=self.context["request"].user), validated)

    def update(self, channel, validated):
        return self._save(channel, validated)

    def _save(self, channel: AlertChannel, validated: dict) -> AlertChannel:
        checks = validated.pop("checks", None)
        datasources = validated.pop("datasources", None)
        target = validated.pop("target", None)
        for key, value in validated.items():
            setattr(channel, key, value)
        if target is not None:
            channel.target = target
        channel.save()
        if checks is not None:
            channel.checks.set(checks)
        if datasources is not None:
            channel.datasources.set(datasources)
        return channel


def _example(kind: str | None) -> str:
    return f"e.g. {transport_for(kind).PLACEHOLDER}" if kind else "choose a kind first."


class ChannelTestSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    message = serializers.CharField()


class IncidentSerializer(serializers.ModelSerializer):
    """An incident as the list shows it (watching/incident_rows.py writes the same JSON from column
    values): what fails where, how bad, whose it is, and whether the caller may handle it."""

    resolution_note = StoredMessageField()

    check = serializers.IntegerField(source="rule_check_id", read_only=True)
    check_name = serializers.CharField(source="rule_check.name", read_only=True)
    table = serializers.SerializerMethodField(help_text="The table the check reads.")
    datasource = serializers.SerializerMethodField(help_text="The name of the datasource the check reads.")
    last_run = serializers.IntegerField(source="last_result.run_id", read_only=True)
    first_run = serializers.IntegerField(source="first_result.run_id", read_only=True)
    acknowledged_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    resolved_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    assignee = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    resolved_automatically = serializers.SerializerMethodField()
    muted_until = serializers.SerializerMethodField()
    muted_by = serializers.SerializerMethodField()
    mute_reason = serializers.SerializerMethodField()
    partition = serializers.SerializerMethodField(
        help_text='What the incident is about: "the whole table" or a partition.'
    )
    can_handle = serializers.SerializerMethodField(
        help_text="Whether the caller may acknowledge, assign, set the severity of and resolve it."
    )

    class Meta:
        model = Incident
        fields = [
            "id",
            "check",
            "check_name",
            "table",
            "datasource",
            "partition_key",
            "partition",
            "status",
            "severity",
            "assignee",
            "outcome",
            "blocking",
            "occurrences",
            "opened_at",
            "last_seen_at",
            "last_notified_at",
            "first_result",
            "last_result",
            "first_run",
            "last_run",
            "acknowledged_by",
            "acknowledged_at",
            "resolved_by",
            "resolved_at",
            "resolved_automatically",
            "resolution_note",
            "muted_until",
            "muted_by",
            "mute_reason",
            "can_handle",
        ]
        read_only_fields = fields

    def get_table(self, incident) -> str:
        return str(incident.rule_check.params.get("src_table") or "")

    def get_datasource(self, incident) -> str:
        source = incident.rule_check.params.get("src_datasource_id")
        found = Datasource.objects.filter(pk=source).values_list("name", flat=True).first() if source else None
        return found or ""

    def get_partition(self, incident) -> str:
        return scope_words(incident.partition_key)

    def get_resolved_automatically(self, incident) -> bool:
        return incident.status == Incident.Status.RESOLVED and incident.resolved_by_result_id is not None

    def _mute(self, incident):
        mute = getattr(incident.rule_check, "mute", None)
        return mute if mute is not None and mute.until > timezone.now() else None

    def get_muted_until(self, incident) -> str | None:
        mute = self._mute(incident)
        return mute.until.isoformat() if mute else None

    def get_muted_by(self, incident) -> str | None:
        mute = self._mute(incident)
        return mute.muted_by.get_username() if mute and mute.muted_by_id else None

    def get_mute_reason(self, incident) -> str:
        mute = self._mute(incident)
        return mute.reason if mute else ""

    def get_can_handle(self, incident) -> bool:
        return may_handle(self.context["request"].user, incident.rule_check)


class IncidentChangeSerializer(serializers.ModelSerializer):
    actor = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    note = StoredMessageField(help_text="Why: the platform's words in the reader's language, a person's as written.")

    class Meta:
        model = IncidentChange
        fields = ["at", "actor", "field", "from_value", "to_value", "note"]
        read_only_fields = fields


class IncidentCommentSerializer(serializers.ModelSerializer):
    """`{"text"}`: a comment by whoever may see the incident."""

    author = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    text = serializers.CharField(
        max_length=4000,
        error_messages={
            "blank": gettext_lazy("Write the comment first."),
            "required": gettext_lazy("Write the comment first."),
        },
    )

    class Meta:
        model = IncidentComment
        fields = ["id", "author", "created_at", "text"]
        read_only_fields = ["id", "author", "created_at"]

    def validate_text(self, text: str) -> str:
        if not text.strip():
            raise serializers.ValidationError(_("Write the comment first."))
        return text.strip()


class IncidentDetailSerializer(IncidentSerializer):
    """One incident's page: the list's fields, its comments and the history of its changes."""

    comments = IncidentCommentSerializer(many=True, read_only=True)
    history = IncidentChangeSerializer(source="changes", many=True, read_only=True)

    class Meta(IncidentSerializer.Meta):
        fields = [*IncidentSerializer.Meta.fields, "comments", "history"]
        read_only_fields = fields


class IncidentUpdateSerializer(serializers.Serializer):
    """`{"assignee": username or null, "severity", "note"}`: any of them; the note goes into the
    history. The assignee must be able to see the incident."""

    assignee = serializers.CharField(max_length=150, allow_null=True, required=False)
    severity = serializers.ChoiceField(
        choices=Severity.choices,
        required=False,
        error_messages={"invalid_choice": f'Unknown severity "{{input}}"; use {", ".join(Severity.values)}.'},
    )
    note = serializers.CharField(max_length=2000, allow_blank=True, required=False, default="")

    def validate_assignee(self, username):
        if username is None or not username.strip():
            return None
        from django.contrib.auth import get_user_model

        user = get_user_model().objects.filter(username=username.strip(), is_active=True).first()
        if user is None or not Incident.objects.visible_to(user).filter(pk=self.context["incident"].pk).exists():
            raise serializers.ValidationError(
                _("%(username)s does not exist or may not see this incident.") % {"username": username}
            )
        return user

    def validate(self, attrs):
        if "assignee" not in attrs and "severity" not in attrs:
            raise serializers.ValidationError({"assignee": [_("Give an assignee or a severity to change.")]})
        return attrs


class ResolveSerializer(serializers.Serializer):
    """`{"note"}`: what was done about it, required: the history keeps why it was closed."""

    note = serializers.CharField(
        max_length=2000,
        error_messages={
            "required": SAY_WHAT_WAS_DONE,
            "blank": SAY_WHAT_WAS_DONE,
            "null": SAY_WHAT_WAS_DONE,
        },
    )


class MuteSerializer(serializers.ModelSerializer):
    check = serializers.IntegerField(source="rule_check_id", read_only=True)
    muted_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    # Null in the answer for a check that is not muted (watching/views.check_mute).
    created_at = serializers.DateTimeField(read_only=True, allow_null=True)

    class Meta:
        model = CheckMute
        fields = ["check", "until", "reason", "muted_by", "created_at"]
        read_only_fields = ["check", "muted_by", "created_at"]
        # The reason is required to mute (an answer for an unmuted check has an empty one).
        extra_kwargs = {"until": {"allow_null": True}, "reason": {"required": True, "allow_blank": True}}

    def validate_until(self, until):
        # Null only in the answer for an unmuted check; a mute needs an end, and not a far one.
        if until is None or until <= timezone.now():
            raise serializers.ValidationError("Mute until a time in the future (ISO 8601, e.g. 2026-12-01T08:00:00Z).")
        days = settings.DQ_MUTE_MAX_DAYS
        if until > timezone.now() + timedelta(days=days):
            raise serializers.ValidationError(
                f"A mute lasts at most {days} day{'s' if days != 1 else ''} (DQ_MUTE_MAX_DAYS); mute again when it ends."
            )
        return until

    def validate_reason(self, reason: str) -> str:
        if not reason.strip():
            raise serializers.ValidationError(_("Say why the check's messages are held back."))
        return reason.strip()


class DeliveryAttemptSerializer(serializers.ModelSerializer):
    error = StoredMessageField()

    class Meta:
        model = DeliveryAttempt
        fields = ["number", "at", "ok", "error"]


class NotificationSerializer(serializers.ModelSerializer):
    incidents = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    attempts = DeliveryAttemptSerializer(many=True, read_only=True)
    error = StoredMessageField(help_text="The latest attempt's error (secrets removed).")

    class Meta:
        model = Notification
        fields = [
            "id",
            "channel",
            "channel_name",
            "channel_kind",
            "run",
            "incidents",
            "event",
            "subject",
            "body",
            "status",
            "attempt",
            "error",
            "created_at",
            "sent_at",
            "attempts",
        ]
        read_only_fields = fields
