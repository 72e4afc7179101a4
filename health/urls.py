from django.urls import path

from . import views

urlpatterns = [
    path("health/", views.platform_health, name="health"),
    path("health/datasources/<int:pk>/", views.datasource_health, name="datasource-health"),
    path("health/datasources/<int:pk>/catalog/", views.refresh_catalog, name="datasource-catalog"),
    path("health/tables/", views.table_health, name="table-health"),
]
