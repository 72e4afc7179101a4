"""Token authentication whose tokens expire DQ_TOKEN_TTL seconds after they were made."""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from .models import token_expiry


class ExpiringTokenAuthentication(TokenAuthentication):
    """DRF's `Authorization: Token <key>`, refused once the token is older than DQ_TOKEN_TTL.

    First in DEFAULT_AUTHENTICATION_CLASSES: DRF answers an unauthenticated call with the first
    class's `WWW-Authenticate` header and a 401 (session authentication has none: a 403).
    """

    def authenticate_credentials(self, key):
        user, token = super().authenticate_credentials(key)
        if token_expiry(token) <= timezone.now():
            raise AuthenticationFailed(
                _("The token has expired. Get a new one with POST /api/v1/auth/token/ (username and password).")
            )
        return user, token
