"""Suggested checks' API, mounted under /api/v1/ (dq_platform/urls.py includes this module)."""

from django.urls import path

from . import suggestion_views

urlpatterns = [
    path("suggestions/", suggestion_views.suggestions, name="suggestions"),
    path("suggestions/accept/", suggestion_views.accept, name="suggestions-accept"),
    path("suggestions/reject/", suggestion_views.reject, name="suggestions-reject"),
    path("suggestions/rejected/", suggestion_views.rejections, name="suggestions-rejected"),
    path("suggestions/rejected/<int:pk>/", suggestion_views.withdraw_rejection, name="suggestions-rejected-detail"),
]
