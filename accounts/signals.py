"""A user's saved language travels in their session from sign-in on (dq_platform/language.py)."""

from __future__ import annotations

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from dq_platform.language import remember_in_session

from .models import Preference


@receiver(user_logged_in, dispatch_uid="accounts.language_into_session")
def language_into_session(sender, request, user, **kwargs):
    if request is None:
        return
    language = Preference.objects.filter(user=user).values_list("language", flat=True).first()
    remember_in_session(request, language or "")
