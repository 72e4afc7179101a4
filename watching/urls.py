from django.urls import path
from rest_framework.routers import DefaultRouter

from . import views

router = DefaultRouter(trailing_slash=True)
router.include_root_view = False
router.register("schedules", views.ScheduleViewSet, basename="schedule")
router.register("alert-channels", views.AlertChannelViewSet, basename="alert-channel")
router.register("incidents", views.IncidentViewSet, basename="incident")
router.register("notifications", views.NotificationViewSet, basename="notification")

urlpatterns = [
    path("checks/<int:pk>/mute/", views.check_mute, name="check-mute"),
    path("muted-checks/", views.muted_checks_of_run, name="muted-checks-of-run"),
    *router.urls,
]
