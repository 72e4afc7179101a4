"""One error shape for the whole API: `{"message": str, "fields": {field: [messages]}}`.

The SPA's HTTP client and the CLI read this shape; DRF's own shapes (a dict of field lists, a
`detail` string, a bare list) are folded into it here, once.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework.exceptions import ValidationError
from rest_framework.views import exception_handler as drf_exception_handler


def _flatten(detail: Any) -> list[str]:
    if isinstance(detail, dict):
        return [f"{key}: {msg}" for key, value in detail.items() for msg in _flatten(value)]
    if isinstance(detail, list):
        return [msg for item in detail for msg in _flatten(item)]
    return [str(detail)]


def _field_messages(detail: Any) -> Any:
    """Keep nested structure for nested fields (`mapping_columns.0.src_field`)."""
    if isinstance(detail, dict):
        return {key: _field_messages(value) for key, value in detail.items()}
    if isinstance(detail, list) and any(isinstance(item, (dict, list)) for item in detail):
        return [_field_messages(item) for item in detail]
    return _flatten(detail)


def _field_paths(fields: dict[str, Any], prefix: str = "") -> list[str]:
    """`{"params": {"src_table": [...]}}` → `["params.src_table"]`, for the summary message."""
    paths = []
    for key, value in fields.items():
        if isinstance(value, dict):
            paths.extend(_field_paths(value, f"{prefix}{key}."))
        else:
            paths.append(f"{prefix}{key}")
    return paths


def error_body(detail: Any, status_code: int) -> dict[str, Any]:
    if isinstance(detail, dict) and set(detail) != {"detail"}:
        fields = {k: _field_messages(v) for k, v in detail.items() if k != "non_field_errors"}
        general = _flatten(detail.get("non_field_errors", []))
        if general:
            message = " ".join(general)
        elif fields:
            message = _("Some fields are not valid: %(fields)s.") % {"fields": ", ".join(_field_paths(fields))}
        else:
            message = _("The request is not valid.")
        return {"message": message, "fields": fields}
    if isinstance(detail, dict):
        return {"message": str(detail["detail"]), "fields": {}}
    if isinstance(detail, list):
        return {"message": " ".join(_flatten(detail)), "fields": {}}
    return {"message": str(detail), "fields": {}}


def exception_handler(exc, context):
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    detail = exc.detail if isinstance(exc, ValidationError) else response.data
    response.data = error_body(detail, response.status_code)
    return response
