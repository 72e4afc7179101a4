from __future__ import annotations

from contextlib import contextmanager

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.rights import check_permissions
from dq_platform.all_errors import AllErrorsAtOnce
from dq_platform.api_shapes import ParamsField
from dq_platform.text import plain_name
from executions.evaluation import formula_in_words

from .catalog_text import catalog_text
from .check_tags import MAX_TAGS, TagField, set_tags
from .models import QUALITY_DIMENSIONS, Check, CheckVersion, ComparisonType, RuleTemplate
from .ownership import owner_problem
from .params import ParamsInvalid, validate_params
from .version_message import MessageInvalid, version_message


class InputSummarySerializer(serializers.Serializer):
    field = serializers.CharField()
    title = serializers.CharField()
    help = serializers.CharField()
    value_type = serializers.CharField()
    required = serializers.BooleanField()
    default = serializers.JSONField()

    def to_representation(self, instance):
        data = super().to_representation(instance)
        return {**data, "title": catalog_text(data["title"]), "help": catalog_text(data["help"])}


class RuleTemplateSerializer(serializers.ModelSerializer):
    inputs = serializers.SerializerMethodField()

    class Meta:
        model = RuleTemplate
        fields = ["key", "name", "rule_type", "dimension", "description", "version", "builtin", "rule_json", "inputs"]

    @extend_schema_field(InputSummarySerializer(many=True))
    def get_inputs(self, template) -> list[dict]:
        return InputSummarySerializer([i for i in template.resolved_inputs() if i["shown"]], many=True).data

    def to_representation(self, instance):
        data = super().to_representation(instance)
        return {**data, "name": catalog_text(data["name"]), "description": catalog_text(data["description"])}


class ComparisonTypeSerializer(serializers.ModelSerializer):
    """Admins add and change types (the key is fixed once saved); `ComparisonType.clean` decides
    whether a run can evaluate the fields, and names the field when it cannot."""

    class Meta:
        model = ComparisonType
        fields = ["key", "name", "description", "source", "window", "aggregation", "batch", "position"]
        extra_kwargs = {"position": {"required": False}}

    def validate(self, attrs):
        if self.instance is not None and attrs.get("key", self.instance.key) != self.instance.key:
            raise serializers.ValidationError(
                {"key": [_("A comparison type's key cannot change; templates refer to it.")]}
            )
        for name in ("name", "description"):
            # A form filled from the translated answer sends the translation back: the stored
            # (catalog) text stays, so the type keeps its translations in every language.
            if (
                self.instance is not None
                and name in attrs
                and attrs[name] == catalog_text(getattr(self.instance, name))
            ):
                attrs[name] = getattr(self.instance, name)
        stored = {name: getattr(self.instance, name) for name in self.Meta.fields} if self.instance else {}
        candidate = ComparisonType(pk=getattr(self.instance, "pk", None), **{**stored, **attrs})
        try:
            candidate.clean()
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
        return attrs

    def to_representation(self, instance):
        data = super().to_representation(instance)
        return {**data, "name": catalog_text(data["name"]), "description": catalog_text(data["description"])}


class UpgradeChangeSerializer(serializers.Serializer):
    path = serializers.CharField(
        help_text="rule_json.metric.kind, inputs.src_field.required, comparison_types.<key>.window …"
    )
    change = serializers.ChoiceField(choices=["added", "removed", "changed", "reordered"])
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField(allow_null=True)
    summary = serializers.CharField()


class UpgradePlanSerializer(serializers.Serializer):
    # "from" is a Python keyword: declared through the fields dict below.
    to = serializers.IntegerField(help_text="The template's current version.")
    template = serializers.CharField()
    changes = UpgradeChangeSerializer(many=True)

    def get_fields(self):
        return {
            "from": serializers.IntegerField(help_text="The template version the check uses."),
            **super().get_fields(),
        }


class CheckVersionSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    params = ParamsField(read_only=True)

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
            "message",
        ]


class TagsField(serializers.ListField):
    """Written as a list of names; read from the check's tags (prefetched), sorted."""

    def get_attribute(self, instance):
        return sorted(tag.name for tag in instance.tags.all())


class CheckSerializer(AllErrorsAtOnce, serializers.ModelSerializer):
    """`{"name", "template", "params"}`; the template decides whether params are valid.

    Also `tags` (labels, not versioned), `enabled` (a disabled check is skipped by schedules and
    batch runs) and `owner` (a username; given away by the owner or an administrator). `permissions`
    lists what the caller may do with the check (accounts/rights.py)."""

    template = serializers.SlugRelatedField(
        slug_field="key",
        queryset=RuleTemplate.objects.all(),
        error_messages={
            "does_not_exist": gettext_lazy('Unknown rule template "{value}"; see /api/v1/rule-templates/.')
        },
    )
    params = ParamsField()
    owner = serializers.SlugRelatedField(
        slug_field="username",
        queryset=get_user_model().objects.filter(is_active=True),
        required=False,
        error_messages={
            "does_not_exist": gettext_lazy("No active user named {value!r}."),
            "null": gettext_lazy("A check's owner is a user."),
        },
    )
    tags = TagsField(child=TagField(max_length=200), max_length=MAX_TAGS, required=False)
    permissions = serializers.SerializerMethodField(
        help_text="What the caller may do with the check: change, delete, run, clone."
    )
    current_version = serializers.IntegerField(read_only=True)
    template_version = serializers.SerializerMethodField(
        help_text="The template version the check's current version computes with."
    )
    formula = serializers.SerializerMethodField(help_text='The rule in words: "Pass when actual − expected ≤ 0"')
    upgrade_available = serializers.SerializerMethodField(
        help_text="The template has a newer version; GET upgrade/ shows the differences, POST upgrade/ moves on."
    )
    warnings = serializers.SerializerMethodField(
        help_text="A save's answer: what could not be checked (a datasource's catalog that did not answer); "
        "the check was saved without it."
    )
    dimension = serializers.ChoiceField(
        choices=[("", gettext_lazy("From the template")), *((key, key.capitalize()) for key in QUALITY_DIMENSIONS)],
        allow_blank=True,
        required=False,
        help_text="The quality dimension the check is scored in; empty: its template's.",
        error_messages={
            "invalid_choice": format_lazy(
                gettext_lazy('"{{input}}" is not a dimension; use one of {dimensions}, or "" for the template\'s.'),
                dimensions=", ".join(QUALITY_DIMENSIONS),
            )
        },
    )
    effective_dimension = serializers.SerializerMethodField(
        help_text="The dimension the health scores file the check under: `dimension`, else the template's "
        "(a custom template's checks count as validity)."
    )
    message = serializers.CharField(
        write_only=True,
        required=False,
        allow_blank=True,
        help_text="What changed: kept on the version this write creates (none when nothing changed).",
    )

    # Fields validate() does not read: their errors come with its own (dq_platform/all_errors.py).
    independent_fields = ("name", "message", "dimension")

    class Meta:
        model = Check
        fields = [
            "id",
            "name",
            "template",
            "params",
            "formula",
            "current_version",
            "template_version",
            "upgrade_available",
            "warnings",
            "owner",
            "enabled",
            "tags",
            "permissions",
            "created_at",
            "updated_at",
            "dimension",
            "effective_dimension",
            "message",
        ]
        read_only_fields = ["id", "created_at", "updated_at"]
        validators = []  # name uniqueness among live checks is checked in validate_name

    def get_permissions(self, check: Check) -> list[str]:
        request = self.context.get("request")
        return check_permissions(request.user, check.owner_id) if request is not None else []

    def validate_owner(self, owner):
        if self.instance is None:
            return owner  # a new check is its creator's (create)
        problem = owner_problem(self.instance, owner)
        if problem:
            raise serializers.ValidationError(problem)
        return owner

    def get_formula(self, check: Check) -> str:
        params = check.params if isinstance(check.params, dict) else {}
        return formula_in_words(params.get("check_type"), params.get("operator"), params.get("threshold"))

    def get_effective_dimension(self, check: Check) -> str:
        return check.effective_dimension

    def validate_name(self, name: str) -> str:
        name = plain_name(name, _("A check's name"))
        clash = Check.objects.alive().filter(name=name)
        if self.instance is not None:
            clash = clash.exclude(pk=self.instance.pk)
        if clash.exists():
            raise serializers.ValidationError(_("A check named %(name)s already exists.") % {"name": repr(name)})
        return name

    def get_warnings(self, check) -> list[str]:
        return list(getattr(self, "_save_warnings", []))

    def validate_message(self, message: str) -> str:
        try:
            return version_message(message)
        except MessageInvalid as exc:
            raise serializers.ValidationError(str(exc)) from None

    def get_template_version(self, check) -> int | None:
        annotated = getattr(check, "template_version_in_use", None)
        if annotated is not None:
            return annotated
        return check.versions.filter(number=check.current_version).values_list("definition__number", flat=True).first()

    def get_upgrade_available(self, check) -> bool:
        in_use = self.get_template_version(check)
        return in_use is not None and in_use < check.template.version

    def validate(self, attrs):
        template = attrs.get("template") or self.instance.template
        if self.instance is not None and attrs.get("template", template) != self.instance.template:
            raise serializers.ValidationError(
                {"template": [_("A check keeps its template; create a new check instead.")]}
            )
        if "params" in attrs and not isinstance(attrs["params"], dict):
            # A form's `params=null` reaches here as None (JSON `null` is refused earlier).
            raise serializers.ValidationError({"params": [_("The params are a mapping of the template's inputs.")]})
        params = attrs.get("params")
        if params is None and self.instance is not None and self.get_upgrade_available(self.instance):
            params = self.instance.params  # an edit moves to the current template version: they must fit it
        if params is None:
            return attrs
        if self.instance is not None and self.partial and isinstance(params, dict):
            # PATCH changes only the params it names; a null it sends clears an optional field and
            # is refused for a required one (validate_params), never quietly the default.
            params = {**{k: v for k, v in self.instance.params.items() if v is not None}, **params}
        try:
            self._save_warnings: list[str] = []
            attrs["params"] = validate_params(template, params, self.context["request"].user, self._save_warnings)
        except ParamsInvalid as exc:
            raise serializers.ValidationError({"params": exc.fields}) from None
        return attrs

    def create(self, validated_data):
        user = self.context["request"].user
        message = validated_data.pop("message", "")
        validated_data.pop("owner", None)
        tags = validated_data.pop("tags", [])
        with _name_taken_is_a_400(validated_data.get("name")), transaction.atomic():
            check = Check.objects.create(owner=user, **validated_data)
            check.record_version(user, message=message)
            set_tags(check, tags)
        return check

    def update(self, instance, validated_data):
        """Expects the check's row lock held by the caller's transaction (CheckViewSet.update),
        so the save and its version are one step among concurrent edits."""
        message = validated_data.pop("message", "")
        tags = validated_data.pop("tags", None)
        for key, value in validated_data.items():
            setattr(instance, key, value)
        with _name_taken_is_a_400(validated_data.get("name")), transaction.atomic():
            instance.save()
            if tags is not None:
                set_tags(instance, tags)
            version = instance.record_version(self.context["request"].user, message=message)
        instance.template_version_in_use = version.template_version  # the queryset's annotation is stale now
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
        raise serializers.ValidationError(
            {"name": [_("A check named %(name)s already exists.") % {"name": repr(name)}]}
        ) from None
