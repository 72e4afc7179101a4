"""API tokens as the admin lists them: DRF's Token, named without its key.

DRF's own `Token.__str__` is the raw key, which the admin would print in page titles, delete
confirmations and its change history (LogEntry.object_repr). This proxy names a token by its user
and the first characters of its key, enough to tell two apart and useless to sign in with.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from rest_framework.authtoken.models import Token

KEY_PREFIX_LENGTH = 4


class ApiToken(Token):
    class Meta:
        proxy = True
        verbose_name = "API token"
        verbose_name_plural = "API tokens"

    def __str__(self) -> str:
        return f"{self.user} ({self.key_prefix})"

    @property
    def key_prefix(self) -> str:
        return f"{self.key[:KEY_PREFIX_LENGTH]}…"

    @property
    def expires(self) -> datetime:
        return token_expiry(self)


def token_expiry(token: Token) -> datetime:
    """When a token stops authenticating: DQ_TOKEN_TTL seconds after it was made."""
    from datetime import timedelta

    return token.created + timedelta(seconds=settings.DQ_TOKEN_TTL)


class Preference(models.Model):
    """What a user chose for themselves: for now, the language of the browser app and the API.

    Empty means "follow the browser" (Accept-Language); dq_platform/language.py reads it.
    """

    class Language(models.TextChoices):
        FOLLOW_BROWSER = "", _("Follow the browser")
        ENGLISH = "en", "English"
        CHINESE = "zh-hans", "简体中文"

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference")
    language = models.CharField(max_length=10, choices=Language.choices, blank=True, default="")

    def __str__(self) -> str:
        return f"{self.user} ({self.language or 'browser'})"
