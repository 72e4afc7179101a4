"""Request size limit, applied before any parser reads a body.

Django's own DATA_UPLOAD_MAX_MEMORY_SIZE guards only `request.body` and form parsing; DRF's
parsers and the YAML import read the stream directly and would take any size. A declared length
over DQ_MAX_BODY_BYTES is refused here, at once, with a 413 in the API's error shape; a body sent
without a length (chunked) is cut at the limit by the WSGI stream Django wraps it in, and
`dq_platform.parsers.read_limited` refuses it there.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.utils import translation
from django.utils.translation import gettext as _

from .language import request_language


def too_large_message() -> str:
    limit = settings.DQ_MAX_BODY_BYTES
    return _("The request body is larger than the limit of %(limit)s bytes (DQ_MAX_BODY_BYTES).") % {
        "limit": f"{limit:,}"
    }


class BodySizeLimit:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > settings.DQ_MAX_BODY_BYTES:
            return too_large_response(request)
        return self.get_response(request)


def too_large_response(request) -> HttpResponse:
    # Refused before RequestLanguage runs: the answer takes the request's language itself.
    with translation.override(request_language(request)):
        return _too_large_response(request)


def _too_large_response(request) -> HttpResponse:
    if request.path.startswith("/api/"):
        return JsonResponse({"message": too_large_message(), "fields": {}}, status=413)
    return HttpResponse(too_large_message(), status=413, content_type="text/plain; charset=utf-8")
