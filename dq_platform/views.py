import json
from pathlib import Path

from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.db import connection
from django.http import JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.csrf import ensure_csrf_cookie

from .language import saved_language

SPA_MANIFEST = "spa-manifest.json"  # written by `vite build` (frontend/vite.config.ts)


def spa_assets() -> dict | None:
    """The built app's entry script, its CSS and the chunks to preload, from Vite's manifest.

    The manifest is found like any static file: frontend/dist while developing (STATICFILES_DIRS),
    STATIC_ROOT after collectstatic in production. None when the app has not been built.
    """
    path = finders.find(SPA_MANIFEST)
    try:
        if path:
            manifest = json.loads(Path(path).read_text(encoding="utf-8"))
        else:
            with staticfiles_storage.open(SPA_MANIFEST) as stream:
                manifest = json.load(stream)
    except (OSError, ValueError):
        return None
    entry = next((chunk for chunk in manifest.values() if chunk.get("isEntry")), None)
    if entry is None:
        return None
    return {
        "script": entry["file"],
        "css": entry.get("css", []),
        "preload": [manifest[name]["file"] for name in entry.get("imports", []) if name in manifest],
    }


@login_required
def home(request):
    """The browser app's shell, for `/` and its client-side routes (/checks/…, /runs/…)."""
    return render_spa(request)


@ensure_csrf_cookie  # the SPA's HTTP client reads the csrftoken cookie for its POST/PUT/DELETE
def render_spa(request):
    """The shell page for a signed-in user; also the body of an unknown path's 404
    (dq_platform/errors.py), where the app's router shows its not-found page.

    The signed-in user travels in the page (json_script), so the first screen needs no extra
    request. Without a build, a page says how to make one.
    """
    user = request.user
    context = {
        "assets": spa_assets(),
        "spa_user": {
            "username": user.get_username(),
            "is_staff": user.is_staff,
            "admin_url": reverse("admin:index") if user.is_staff else None,
            "logout_url": reverse("logout"),
            "api_docs_url": reverse("api-docs"),
            # The saved language ('' = follow the browser); the app starts in it (src/i18n).
            "language": saved_language(user) or "",
        },
    }
    return render(request, "spa.html" if context["assets"] else "home.html", context)


def healthz(request):
    """Liveness for load balancers and `make run`'s readiness wait: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True})
