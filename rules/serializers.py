from __future__ import annotations

from rest_framework import serializers

from executions.evaluation import formula_in_words

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
    formula = serializers.SerializerMethodField(help_text='The rule in words: "Pass when actual − expected ≤ 0"')

    class Meta:
        model = Check
        fields = ["id", "name", "template", "params", "formula", "current_version", "owner", "created_at", "updated_at"]
        read_only_fields = ["id", "created_at", "updated_at"]
        validators = []  # name uniqueness among live checks is checked in validate_name

    def get_formula(self, check: Check) -> str:
        params = check.params if isinstance(check.params, dict) else {}
        return formula_in_words(params.get("check_type"), params.get("operator"), params.get("threshold"))

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
        check = Check.objects.create(owner=self.context["request"].user, **validated_data)
        check.record_version(self.context["request"].user)
        return check

    def update(self, instance, validated_data):
        for key, value in validated_data.items():
            setattr(instance, key, value)
        instance.save()
        instance.record_version(self.context["request"].user)
        return instance
