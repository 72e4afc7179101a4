"""Django's own error answers (handler400/403/404/500), in the API's shape under /api/.

DRF answers the errors its views raise; these cover the rest: an unknown /api/ path, an
exception DRF does not handle (a 500), CSRF and suspicious requests outside DRF. Elsewhere an
unknown path gets the browser app, whose router shows its own not-found page (status 404).
"""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.http import HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import requires_csrf_token

from . import views


def _api(request) -> bool:
    return request.path.startswith("/api/")


def _json(message: str, status: int) -> JsonResponse:
    return JsonResponse({"message": message, "fields": {}}, status=status)


@requires_csrf_token
def bad_request(request, exception=None):
    if _api(request):
        return _json(_("The request is not valid."), 400)
    return HttpResponse(_("Bad request."), status=400, content_type="text/plain; charset=utf-8")


@requires_csrf_token
def permission_denied(request, exception=None):
    if _api(request):
        return _json(str(exception) if exception and str(exception) else _("You may not do this."), 403)
    return HttpResponse(_("Forbidden."), status=403, content_type="text/plain; charset=utf-8")


def not_found(request, exception=None):
    if _api(request):
        return _json(
            _("No API endpoint at %(path)s; the endpoints are listed at /api/docs/.") % {"path": request.path}, 404
        )
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    response = views.render_spa(request)  # the app's router shows its not-found page
    response.status_code = 404
    return response


@requires_csrf_token
def server_error(request):
    if _api(request):
        return _json(_("The server failed to answer this request; the error is in its log."), 500)
    return HttpResponse(
        _("The server failed to answer this request; the error is in its log."),
        status=500,
        content_type="text/plain; charset=utf-8",
    )
