from django.urls import path

from . import views

urlpatterns = [
    path("auth/token/", views.ObtainTokenView.as_view(), name="auth-token"),
    path("me/", views.MeView.as_view(), name="me"),
    path("auth/token/revoke/", views.RevokeTokenView.as_view(), name="auth-token-revoke"),
]
