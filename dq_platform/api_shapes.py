"""JSON model fields as the API schema should describe them. A model's JSONField reaches the
schema as "any value", and the SPA's generated types as `unknown`; these fields read and write
the same JSON but tell drf-spectacular its shape."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

# A JSON scalar: what options, parameters and partitions hold.
SCALAR = {"oneOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}


def json_field(schema, name: str) -> type[serializers.JSONField]:
    """A JSONField class the schema describes as `schema` (a dict, or a serializer naming a
    component). A class, not an instance: DRF copies declared fields from their arguments, which
    would drop an annotation set on an instance."""
    return extend_schema_field(schema)(type(name, (serializers.JSONField,), {}))


# A template's inputs by field name; which fields and types depends on the template (rules/params.py).
ParamsField = json_field({"type": "object", "additionalProperties": {}}, "ParamsField")
OptionsField = json_field({"type": "object", "additionalProperties": {**SCALAR, "nullable": True}}, "OptionsField")
StringMapField = json_field({"type": "object", "additionalProperties": {"type": "string"}}, "StringMapField")
PartitionField = json_field(
    {"type": "object", "additionalProperties": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}, "PartitionField"
)
StringListField = json_field({"type": "array", "items": {"type": "string"}}, "StringListField")
