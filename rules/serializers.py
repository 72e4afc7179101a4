from __future__ import annotations

from contextlib import contextmanager

from django.db import IntegrityError, transaction
from rest_framework import serializers

from .models import Check, CheckVersion, ComparisonType, RuleTemplate
from .params import ParamsInvalid, validate_params


class InputSummarySerializer(serializers.Serializer):
    field = serializers.CharField()
    title = serializers.CharField()
    help = serializers.CharField()
    value_type = serializers.CharField()
    required = serializers.BooleanField()
    default = serializers.JSONField()


class RuleTemplateSerializer(serializers.ModelSerializer):
    inputs = serializers.SerializerMethodField()

    class Meta:
        model = RuleTemplate
        fields = ["key", "name", "rule_type", "dimension", "description", "version", "builtin", "rule_json", "inputs"]

    def get_inputs(self, template) -> list[dict]:
        return InputSummarySerializer([i for i in template.resolved_inputs() if i["shown"]], many=True).data


class ComparisonTypeSerializer(serializers.ModelSerializer):
    class Meta:
        model = ComparisonType
        fields = ["key", "name", "source", "window", "description"]


class CheckVersionSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = CheckVersion
        fields = [
            "number",
            "name",
            "template_key",
            "template_version",
            "params",
            "content_hash",
            "created_by",
            "created_at",
        ]


class CheckSerializer(serializers.ModelSerializer):
    """`{"name", "template", "params"}`; the template decides whether params are valid."""

    template = serializers.SlugRelatedField(
        slug_field="key",
        queryset=RuleTemplate.objects.all(),
        error_messages={"does_not_exist": 'Unknown rule template "{value}"; see /api/v1/rule-templates/.'},
    )
    params = serializers.JSONField()
    owner = serializers.SlugRelatedField(slug_field="username", read_only=True)
    current_version = serializers.IntegerField(read_only=True)

    class Meta:
        model = Check
        fields = ["id", "name", "template", "params", "current_version", "owner", "created_at", "updated_at"]
        read_only_fields = ["id", "created_at", "updated_at"]
        validators = []  # name uniqueness among live checks is checked in validate_name

    def validate_name(self, name: str) -> str:
        name = name.strip()
        clash = Check.objects.alive().filter(name=name)
        if self.instance is not None:
            clash = clash.exclude(pk=self.instance.pk)
        if clash.exists():
            raise serializers.ValidationError(f"A check named {name!r} already exists.")
        return name

    def validate(self, attrs):
        template = attrs.get("template") or self.instance.template
        if self.instance is not None and attrs.get("template", template) != self.instance.template:
            raise serializers.ValidationError({"template": ["A check keeps its template; create a new check instead."]})
        params = attrs.get("params")
        if params is None:
            return attrs
        if self.instance is not None and self.partial and isinstance(params, dict):
            params = {**self.instance.params, **params}  # PATCH changes only the params it names
            params = {k: v for k, v in params.items() if v is not None}
        try:
            attrs["params"] = validate_params(template, params, self.context["request"].user)
        except ParamsInvalid as exc:
            raise serializers.ValidationError({"params": exc.fields}) from None
        return attrs

    def create(self, validated_data):
        user = self.context["request"].user
        with _name_taken_is_a_400(validated_data.get("name")), transaction.atomic():
            check = Check.objects.create(owner=user, **validated_data)
            check.record_version(user)
        return check

    def update(self, instance, validated_data):
        """Expects the check's row lock held by the caller's transaction (CheckViewSet.update),
        so the save and its version are one step among concurrent edits."""
        for key, value in validated_data.items():
            setattr(instance, key, value)
        with _name_taken_is_a_400(validated_data.get("name")), transaction.atomic():
            instance.save()
            instance.record_version(self.context["request"].user)
        return instance


@contextmanager
def _name_taken_is_a_400(name: str | None):
    """Two requests may pass validate_name with the same new name at once; the database's unique
    constraint lets one win, and the other gets the answer validate_name would have given."""
    try:
        yield
    except IntegrityError:
        if name is None or not Check.objects.alive().filter(name=name).exists():
            raise
        raise serializers.ValidationError({"name": [f"A check named {name!r} already exists."]}) from None
