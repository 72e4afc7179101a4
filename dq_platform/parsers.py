"""Request body parsers of the API (REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"])."""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, plus: a body nested deeper than Python's decoder can follow (a 50,000-deep
    array, say) is a 400 in the API's error shape, not a RecursionError and a 500 (issue 9, row 11)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error: the body is nested too deeply; send at most a few levels.") from None
