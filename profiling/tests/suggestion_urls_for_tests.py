"""The platform's URLs plus the suggestions' API, as dq_platform/urls.py will mount it once the
profiling app is merged (until then the tests of suggestions use this URLconf)."""

from django.urls import include, path

from dq_platform.urls import urlpatterns as platform

urlpatterns = [path("api/v1/", include("profiling.suggestion_urls")), *platform]
