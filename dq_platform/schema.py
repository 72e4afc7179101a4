"""The OpenAPI description's error answers: every operation documents the error shape for the
statuses it can give (dq_platform/api_errors.py), so clients and the schema fuzz (tests/
test_api_fuzz.py) know them. Set as DRF's DEFAULT_SCHEMA_CLASS."""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from drf_spectacular.plumbing import force_instance
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.permissions import AllowAny


class ErrorSerializer(serializers.Serializer):
    """`{"message", "fields"}`: what went wrong in words, and per field its messages."""

    message = serializers.CharField()
    fields = serializers.DictField(child=serializers.JSONField(), help_text="Field name → list of messages.")


ERROR_RESPONSES = {
    400: OpenApiResponse(ErrorSerializer, description="The request is not valid; `fields` names what to fix."),
    401: OpenApiResponse(ErrorSerializer, description="Not signed in (a missing, wrong or expired token)."),
    403: OpenApiResponse(ErrorSerializer, description="Signed in, but not allowed to do this."),
    404: OpenApiResponse(
        ErrorSerializer, description="No such object, not one you may see, or a page past the end of a list."
    ),
    413: OpenApiResponse(ErrorSerializer, description="The request body is larger than DQ_MAX_BODY_BYTES."),
}
BODY_METHODS = {"POST", "PUT", "PATCH"}


class AutoSchema(SpectacularAutoSchema):
    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        if direction == "response" and isinstance(force_instance(serializer), serializers.ModelSerializer):
            # A model's answer carries every field it declares: a model default (`required=False`)
            # says what a request may leave out, not what a response may lack. Described shapes
            # (plain serializers) keep their optional keys.
            schema["required"] = sorted(schema.get("properties", {}))
        return schema

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for code in self._error_codes():
            responses.setdefault(str(code), self._get_response_for_code(ERROR_RESPONSES[code], str(code)))
        return responses

    def _error_codes(self) -> list[int]:
        codes = [400]
        if not any(isinstance(p, AllowAny) for p in self.view.get_permissions()):
            codes += [401, 403]
        codes.append(404)  # an object in the path, a page past the end, an id in a filter
        if self.method in BODY_METHODS:
            codes.append(413)
        return codes
