from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils.translation import gettext as _
from rest_framework import serializers

from accounts.rights import datasource_permissions
from dq_platform.all_errors import AllErrorsAtOnce
from dq_platform.api_shapes import OptionsField
from dq_platform.text import plain_name

from .models import Datasource

# Many-to-many fields: set after the datasource is saved, never on an unsaved candidate.
RELATIONS = ("allowed_groups", "owners", "owner_groups")


class DatasourceSerializer(AllErrorsAtOnce, serializers.ModelSerializer):
    """Marshals datasources; `Datasource.validate_config` decides what is valid.

    `password` is write-only: omit it to keep the stored one, send "" to clear it. Responses carry
    `has_password` instead, so nobody can read a secret back.
    """

    password = serializers.CharField(
        write_only=True,
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        max_length=1000,
        style={"input_type": "password"},
    )
    has_password = serializers.BooleanField(read_only=True)
    allowed_groups = serializers.SlugRelatedField(
        slug_field="name",
        queryset=Group.objects.all(),
        many=True,
        required=False,
        help_text="Names of the groups that may use this datasource; empty means every signed-in user.",
    )
    owners = serializers.SlugRelatedField(
        slug_field="username",
        queryset=get_user_model().objects.all(),
        many=True,
        required=False,
        help_text="Usernames of those who answer for the data: they release and re-validate its batches and "
        "acknowledge, resolve and mute its checks' incidents (with the administrators).",
    )
    owner_groups = serializers.SlugRelatedField(
        slug_field="name",
        queryset=Group.objects.all(),
        many=True,
        required=False,
        help_text="Names of groups whose members have the owners' rights.",
    )
    type = serializers.ChoiceField(
        choices=Datasource.Type.choices,
        error_messages={"invalid_choice": 'Unknown type "{input}"; choose postgresql, mysql or file.'},
    )
    format = serializers.ChoiceField(choices=Datasource.FileFormat.choices, required=False, allow_blank=True)
    port = serializers.IntegerField(
        required=False,
        allow_null=True,
        error_messages={"invalid": "A port must be a whole number between 1 and 65535."},
    )

    options = OptionsField(
        required=False, help_text='Driver or reader options, e.g. {"sslmode": "require"} or {"delimiter": ";"}.'
    )
    permissions = serializers.SerializerMethodField(
        help_text="What the caller may do with the datasource: change, delete (administrators), test."
    )

    class Meta:
        model = Datasource
        fields = [
            "id",
            "name",
            "type",
            "description",
            "host",
            "port",
            "database",
            "username",
            "password",
            "has_password",
            "path",
            "format",
            "options",
            "allowed_groups",
            "owners",
            "owner_groups",
            "permissions",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "created_at", "updated_at"]
        validators = []  # name uniqueness among alive datasources: validate_name

    def get_permissions(self, datasource) -> list[str]:
        request = self.context.get("request")
        return datasource_permissions(request.user) if request is not None else []

    def validate_name(self, name: str) -> str:
        # A deleted datasource frees its name (the database constraint is on alive rows only).
        name = plain_name(name, _("A datasource's name"))
        clash = Datasource.objects.alive().filter(name=name)
        if self.instance is not None:
            clash = clash.exclude(pk=self.instance.pk)
        if clash.exists():
            raise serializers.ValidationError(
                _("A datasource named %(name)s already exists; pick another name.") % {"name": repr(name)}
            )
        return name

    def validate(self, attrs):
        instance = self.instance or Datasource()
        candidate = Datasource(
            **{f.name: getattr(instance, f.name) for f in Datasource._meta.concrete_fields if f.name != "id"}
        )
        for key, value in attrs.items():
            if key not in RELATIONS:
                setattr(candidate, key, value if value is not None or key == "port" else "")
        problems = candidate.validate_config()
        if problems:
            raise serializers.ValidationError(problems)
        attrs["port"] = candidate.port  # the type's default port when none was given
        return attrs

    def unsaved(self) -> Datasource:
        """The validated configuration as a datasource that is not saved: what "Test connection"
        tries before Save. An edit that leaves `password` out keeps the stored one."""
        instance = self.instance or Datasource()
        candidate = Datasource(
            **{f.name: getattr(instance, f.name) for f in Datasource._meta.concrete_fields if f.name != "id"}
        )
        for key, value in self.validated_data.items():
            if key not in RELATIONS:
                setattr(candidate, key, value)
        return candidate

    def _save(self, instance: Datasource, validated: dict) -> Datasource:
        relations = {name: validated.pop(name, None) for name in RELATIONS}
        for key, value in validated.items():
            setattr(instance, key, value)
        instance.save()
        for name, value in relations.items():
            if value is not None:
                getattr(instance, name).set(value)
        return instance

    def create(self, validated_data):
        return self._save(Datasource(), validated_data)

    def update(self, instance, validated_data):
        return self._save(instance, validated_data)


class ConnectionTestSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    message = serializers.CharField()


class TableSerializer(serializers.Serializer):
    name = serializers.CharField()


class ColumnSerializer(serializers.Serializer):
    name = serializers.CharField()
    type = serializers.CharField()
