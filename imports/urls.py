from django.urls import path

from . import views

urlpatterns = [
    path("imports/dolphinscheduler/", views.import_dolphinscheduler_view, name="import-dolphinscheduler"),
]
