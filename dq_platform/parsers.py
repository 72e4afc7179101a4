"""Request body parsers of the API (REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"])."""

from __future__ import annotations

import io

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework import parsers
from rest_framework.exceptions import APIException, ParseError, ValidationError

from .middleware import too_large_message
from .text import unencodable_fields


class BodyTooLarge(APIException):
    status_code = 413
    default_code = "body_too_large"


def read_limited(stream) -> bytes:
    """The whole body, refused with a 413 past DQ_MAX_BODY_BYTES (dq_platform/middleware.py
    refuses a declared length earlier; this catches a body that declared none)."""
    limit = settings.DQ_MAX_BODY_BYTES
    data = stream.read(limit + 1) if stream is not None else b""
    if len(data) > limit:
        raise BodyTooLarge(too_large_message())
    return data


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, plus: a body nested deeper than Python's decoder can follow (a 50,000-deep
    array, say) is a 400 in the API's error shape, not a RecursionError and a 500; so is a string
    holding a lone surrogate or a NUL, naming its field."""

    def parse(self, stream, media_type=None, parser_context=None):
        body = io.BytesIO(read_limited(stream))
        try:
            data = super().parse(body, media_type, parser_context)
        except RecursionError:
            raise ParseError(_("JSON parse error: the body is nested too deeply; send at most a few levels.")) from None
        problems = unencodable_fields(data)
        if problems:
            # A `\ud800` escape is valid JSON but not text anything can store or send back.
            raise ValidationError(problems)
        return data
