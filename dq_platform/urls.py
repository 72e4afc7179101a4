from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from . import views

api_v1 = [
    path("", include("accounts.urls")),
    path("", include("datasources.urls")),
    path("", include("rules.urls")),
    path("", include("executions.urls")),
    path("", include("watching.urls")),
    path("", include("gates.urls")),
    path("", include("monitors.urls")),
    path("", include("profiling.urls")),
    path("", include("profiling.suggestion_urls")),
    path("", include("health.urls")),
    path("", include("imports.urls")),
    path("", include("integrations.urls")),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/v1/", include(api_v1)),
    # The browser app's own routes (history mode): a reload or a shared link gets the shell too.
    re_path(
        r"^(?:health|checks|runs|results|datasources|templates|schedules|alert-channels|incidents|batches|tables|imports)(?:/.*)?$",
        views.home,
        name="spa",
    ),
]

# Under /api/ the error shape, elsewhere the browser app's not-found page (dq_platform/errors.py).
handler400 = "dq_platform.errors.bad_request"
handler403 = "dq_platform.errors.permission_denied"
handler404 = "dq_platform.errors.not_found"
handler500 = "dq_platform.errors.server_error"

admin.site.site_header = "Data quality platform"
admin.site.site_title = "Data quality admin"
