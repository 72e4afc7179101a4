"""The project's URLs plus one API view that fails, to see what a 500 answers (tests only)."""

from django.urls import path

from dq_platform.urls import handler400, handler403, handler404, handler500, urlpatterns  # noqa: F401


def fails(request):
    raise RuntimeError("a bug, with SECRET_KEY-looking text in its message: not for users")


urlpatterns = [path("api/v1/test-failure/", fails), path("test-failure/", fails), *urlpatterns]
