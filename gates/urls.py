from django.urls import path
from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("batches", views.BatchViewSet, basename="batch")

urlpatterns = [
    path("gate/", views.gate_view, name="gate"),
    path("gated-table/", views.table_view, name="gated-table"),
    *router.urls,
]
