"""Marshalling for integrations and their deliveries; the models, dagster.py and sending.py decide
what is valid."""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework import serializers

from accounts.rights import is_admin
from datasources.models import Datasource
from dq_platform.ids import as_id
from dq_platform.text import plain_name
from rules.models import Check
from watching.channels import TargetInvalid

from .dagster import parse_asset_key
from .models import Delivery, Integration
from .sending import clean_url

MAX_ASSET_KEYS = 500


class IdList(serializers.ListField):
    """Ids in, ids out: a many-to-many relation is answered as its sorted ids."""

    def to_representation(self, data):
        if hasattr(data, "all"):
            data = sorted(item.pk for item in data.all())
        return super().to_representation(data)


class IntegrationSerializer(serializers.ModelSerializer):
    """`{"name", "kind", "url", "secret"?, "asset_keys"?, "namespace"?, "datasources"?, "enabled"?}`.

    `secret` (a Dagster+ API token, or an OpenLineage API key sent as a Bearer token) is
    write-only: omit it to keep the stored one, send "" to remove it; responses carry
    `has_secret`. Empty `datasources` means every check's results."""

    kind = serializers.ChoiceField(choices=Integration.Kind.choices)
    url = serializers.CharField(max_length=2000)
    secret = serializers.CharField(
        write_only=True,
        required=False,
        allow_blank=True,
        max_length=2000,
        trim_whitespace=True,
        style={"input_type": "password"},
    )
    has_secret = serializers.BooleanField(read_only=True)
    asset_keys = serializers.DictField(
        child=serializers.CharField(max_length=1000),
        required=False,
        help_text="Dagster only: check id → asset key (parts joined with /).",
    )
    namespace = serializers.CharField(max_length=200, required=False, allow_blank=True)
    datasources = IdList(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1), required=False, max_length=1000
    )
    permissions = serializers.SerializerMethodField(
        help_text="What the caller may do with it: change, delete and test (administrators)."
    )

    class Meta:
        model = Integration
        fields = [
            "id",
            "name",
            "kind",
            "url",
            "secret",
            "has_secret",
            "asset_keys",
            "namespace",
            "datasources",
            "enabled",
            "permissions",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "created_at", "updated_at"]

    def get_permissions(self, integration) -> list[str]:
        request = self.context.get("request")
        return ["change", "delete", "test"] if request is not None and is_admin(request.user) else []

    def validate_name(self, name: str) -> str:
        name = plain_name(name, _("An integration's name"))
        if not name:
            raise serializers.ValidationError(_("An integration needs a name."))
        return name

    def validate_url(self, url: str) -> str:
        try:
            return clean_url(url)
        except TargetInvalid as exc:
            raise serializers.ValidationError(str(exc)) from None

    def validate_namespace(self, namespace: str) -> str:
        return plain_name(namespace, _("A namespace"))

    def validate_asset_keys(self, mapping: dict[str, str]) -> dict[str, str]:
        kind = self.initial_data.get("kind") if isinstance(self.initial_data, dict) else None
        if mapping and (kind or getattr(self.instance, "kind", None)) != Integration.Kind.DAGSTER:
            raise serializers.ValidationError(_("Asset keys are for Dagster integrations only."))
        if len(mapping) > MAX_ASSET_KEYS:
            raise serializers.ValidationError(_("At most %(count)s asset keys.") % {"count": MAX_ASSET_KEYS})
        problems, cleaned = [], {}
        for check_id, key in mapping.items():
            if as_id(check_id) is None:
                problems.append(_("%(key)r is not a check id.") % {"key": check_id})
                continue
            try:
                cleaned[str(as_id(check_id))] = "/".join(parse_asset_key(key))
            except ValueError as exc:
                problems.append(_("Check %(id)s: %(problem)s") % {"id": check_id, "problem": exc})
        known = set(Check.objects.alive().filter(pk__in=[int(i) for i in cleaned]).values_list("pk", flat=True))
        problems += [_("Check %(id)s does not exist.") % {"id": i} for i in cleaned if int(i) not in known]
        if problems:
            raise serializers.ValidationError(problems)
        return cleaned

    def validate_datasources(self, ids: list[int]) -> list[Datasource]:
        found = Datasource.objects.in_bulk(ids)
        missing = [str(i) for i in ids if i not in found]
        if missing:
            raise serializers.ValidationError(_("Datasource %(ids)s does not exist.") % {"ids": ", ".join(missing)})
        return list(found.values())

    def validate(self, attrs):
        kind = attrs.get("kind") or getattr(self.instance, "kind", None)
        if kind != Integration.Kind.DAGSTER and (attrs.get("asset_keys") or getattr(self.instance, "asset_keys", None)):
            # A Dagster integration turned into an OpenLineage one keeps no asset keys.
            attrs["asset_keys"] = {}
        return attrs

    def create(self, validated):
        return self._save(Integration(created_by=self.context["request"].user), validated)

    def update(self, integration, validated):
        return self._save(integration, validated)

    def _save(self, integration: Integration, validated: dict) -> Integration:
        datasources = validated.pop("datasources", None)
        secret = validated.pop("secret", None)
        for key, value in validated.items():
            setattr(integration, key, value)
        if secret is not None:
            integration.secret = secret
        integration.save()
        if datasources is not None:
            integration.datasources.set(datasources)
        return integration


class IntegrationTestSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    message = serializers.CharField()


class DeliverySerializer(serializers.ModelSerializer):
    """A report sent or tried: to which integration, for which run and result, its body, and how
    each attempt went (errors carry no secret)."""

    class Meta:
        model = Delivery
        fields = [
            "id",
            "integration",
            "integration_name",
            "kind",
            "event",
            "run",
            "result",
            "path",
            "payload",
            "status",
            "attempt",
            "attempts",
            "error",
            "created_at",
            "sent_at",
        ]
        read_only_fields = fields
