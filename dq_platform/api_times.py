"""DRF's date-time output (`DateTimeField.to_representation`) for the many values of a list page:
the lists that build rows from column values (rules/check_rows.py, watching/incident_rows.py)
format a few hundred date-times a page, and DRF looks up its settings and the time zone for every
one of them, which was most of the time those rows took."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from rest_framework import ISO_8601, serializers
from rest_framework.settings import api_settings


def formatter() -> Callable[[datetime | None], str | None]:
    """A function giving what a plain `serializers.DateTimeField()` gives, with the output format
    and the current time zone looked up once (call it once per response)."""
    field = serializers.DateTimeField()
    output_format = getattr(field, "format", api_settings.DATETIME_FORMAT)
    zone = field.default_timezone()
    if output_format is None or output_format.lower() != ISO_8601 or zone is None:
        return field.to_representation

    def iso(value):
        if not value:
            return None
        if isinstance(value, str) or value.utcoffset() is None:
            return field.to_representation(value)  # DRF's own handling of text and naive times
        try:
            text = value.astimezone(zone).isoformat()
        except OverflowError:
            return field.to_representation(value)  # DRF's own error
        return text[:-6] + "Z" if text.endswith("+00:00") else text

    return iso
