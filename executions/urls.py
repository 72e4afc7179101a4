from django.urls import path
from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("runs", views.RunViewSet, basename="run")
router.register("results", views.ResultViewSet, basename="result")

urlpatterns = [
    path("checks/<int:pk>/history/", views.check_history, name="check-history"),
    # The documented download path has no trailing slash (it names a file).
    path("results/<int:pk>/error-rows.csv", views.ResultViewSet.as_view({"get": "error_rows_csv"}), name="result-csv"),
    *router.urls,
]
