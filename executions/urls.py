from django.urls import path
from rest_framework.routers import DefaultRouter

from . import dashboard, formula_preview, row_checks, views

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("runs", views.RunViewSet, basename="run")
router.register("results", views.ResultViewSet, basename="result")

urlpatterns = [
    path("checks/<int:pk>/history/", views.check_history, name="check-history"),
    path("checks/<int:pk>/false-alarms/", views.check_false_alarms, name="check-false-alarms"),
    path("formula/", formula_preview.formula_preview, name="formula-preview"),
    # The browser's YAML editor of row checks: validate as you type, try on a sample.
    path("row-checks/validate/", row_checks.validate, name="row-checks-validate"),
    path("row-checks/preview/", row_checks.preview, name="row-checks-preview"),
    path("row-checks/preview/<uuid:job_id>/", row_checks.preview_state, name="row-checks-preview-state"),
    # The documented download path has no trailing slash (it names a file).
    path("results/<int:pk>/error-rows.csv", views.ResultViewSet.as_view({"get": "error_rows_csv"}), name="result-csv"),
    # The browser app's dashboard (read-only; executions/dashboard.py). Before the router, whose
    # results/{pk}/ would otherwise take "summary" and "latest" for ids.
    path("results/summary/", dashboard.results_summary, name="results-summary"),
    path("results/latest/", dashboard.LatestResults.as_view(), name="results-latest"),
    *router.urls,
]
