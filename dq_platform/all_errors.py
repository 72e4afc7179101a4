"""A form's errors in one answer, not in rounds.

DRF validates the fields first and runs the serializer's `validate()` (the checks across fields:
a datasource's configuration, a check's params against its template) only when every field
passed. A blank or taken name thus hid every other problem: the user fixed the name, saved, and
only then learnt the rest. `AllErrorsAtOnce` still runs `validate()` when the only fields that
failed are `independent_fields` (ones `validate()` does not read, like the name), and answers
their errors together with its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.exceptions import ValidationError
from rest_framework.fields import SkipField, empty, get_error_detail
from rest_framework.settings import api_settings


class AllErrorsAtOnce:
    """Mix into a Serializer before its base: `class S(AllErrorsAtOnce, serializers.ModelSerializer)`."""

    independent_fields: tuple[str, ...] = ("name",)

    def run_validation(self, data: Any = empty) -> Any:
        self._set_aside: dict[str, Any] = {}
        try:
            value = super().run_validation(data)
        except ValidationError as exc:
            raise ValidationError(_merged(self._set_aside, exc.detail)) from None
        if self._set_aside:
            raise ValidationError(self._set_aside)
        return value

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        """DRF's own field loop (Serializer.to_internal_value), keeping what passed when only
        independent fields failed, so that `validate()` runs on the rest."""
        if not isinstance(data, Mapping):
            return super().to_internal_value(data)
        attrs: dict[str, Any] = {}
        errors: dict[str, Any] = {}
        for field in self._writable_fields:
            validate_method = getattr(self, "validate_" + field.field_name, None)
            try:
                value = field.run_validation(field.get_value(data))
                if validate_method is not None:
                    value = validate_method(value)
            except ValidationError as exc:
                errors[field.field_name] = exc.detail
            except DjangoValidationError as exc:
                errors[field.field_name] = get_error_detail(exc)
            except SkipField:
                pass
            else:
                self.set_value(attrs, field.source_attrs, value)
        if errors and not set(errors) <= set(self.independent_fields):
            raise ValidationError(errors)
        self._set_aside = errors
        return attrs


def _merged(first: dict[str, Any], second: Any) -> dict[str, Any]:
    if not isinstance(second, dict):
        second = {api_settings.NON_FIELD_ERRORS_KEY: second if isinstance(second, list) else [second]}
    merged = dict(first)
    for key, messages in second.items():
        if key in merged and isinstance(merged[key], list) and isinstance(messages, list):
            merged[key] = [*merged[key], *messages]
        else:
            merged.setdefault(key, messages)
    return merged
