from django.urls import path
from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("rule-templates", views.RuleTemplateViewSet, basename="rule-template")
router.register("comparison-types", views.ComparisonTypeViewSet, basename="comparison-type")
router.register("checks", views.CheckViewSet, basename="check")

urlpatterns = [
    path("form-options/tables/", views.table_options, name="form-options-tables"),
    path("form-options/columns/", views.column_options, name="form-options-columns"),
    *router.urls,
]
