"""What a locked-out login gets: 429 with Retry-After, on the token endpoint, /login/ and the admin.

django-axes counts the failures (settings: AXES_*); this module says how long the lock still
holds and answers in the caller's terms: the API's error shape for /api/, a page for the forms.
"""

from __future__ import annotations

import math

from axes.helpers import get_client_username, get_cool_off
from axes.models import AccessAttempt
from django.db.models import Max
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import ngettext


def seconds_until_unlocked(request, credentials: dict | None = None) -> int:
    """The lock ends one cool-off after the failure that set it (failures during a lock are not
    counted, AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT=False), so that failure's time says when."""
    cool_off = get_cool_off(request)
    last_failure = AccessAttempt.objects.filter(
        username=get_client_username(request, credentials),
        ip_address=getattr(request, "axes_ip_address", None),
    ).aggregate(last=Max("attempt_time"))["last"]
    if last_failure is None:
        return math.ceil(cool_off.total_seconds())
    return max(1, math.ceil((last_failure + cool_off - timezone.now()).total_seconds()))


def locked_message(seconds: int) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return ngettext(
        "Too many failed sign-ins for this username from your address. Try again in %(minutes)s minute.",
        "Too many failed sign-ins for this username from your address. Try again in %(minutes)s minutes.",
        minutes,
    ) % {"minutes": minutes}


def lockout_response(request, original_response=None, credentials=None) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE: the answer to a login form post while its username is locked out."""
    seconds = seconds_until_unlocked(request, credentials)
    message = locked_message(seconds)
    if request.path.startswith("/api/"):
        response = JsonResponse({"message": message, "fields": {}}, status=429)
    else:
        response = render(request, "registration/locked_out.html", {"message": message}, status=429)
    response["Retry-After"] = str(seconds)
    return response
