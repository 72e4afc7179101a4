"""The API's sign-in: exchange a username and password for a token, and revoke one's own token."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.exceptions import Throttled, ValidationError
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from dq_platform.language import remember_in_session
from dq_platform.schema import ERROR_RESPONSES

from .lockout import locked_message, seconds_until_unlocked
from .models import Preference, token_expiry


class ObtainTokenView(APIView):
    """Exchange a username and password for an API token (`Authorization: Token <token>`).

    The token lasts DQ_TOKEN_TTL seconds (30 days by default); asking again before then returns
    the same token, after then a new one. Failed attempts are counted per username and address:
    the 10th within 15 minutes locks that pair out (429 with Retry-After), the right password too.
    """

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []

    @extend_schema(
        request=AuthTokenSerializer,
        responses={
            200: inline_serializer(
                "TokenResponse", {"token": serializers.CharField(), "expires": serializers.DateTimeField()}
            ),
            400: ERROR_RESPONSES[400],
            429: OpenApiResponse(
                ERROR_RESPONSES[400].response, description="Too many failed sign-ins; see Retry-After."
            ),
        },
    )
    def post(self, request):
        serializer = AuthTokenSerializer(data=request.data, context={"request": request})
        try:
            serializer.is_valid(raise_exception=True)
        except ValidationError:
            # django-axes flags the request (a DRF Request, so the middleware cannot see it).
            if getattr(request, "axes_locked_out", False):
                seconds = seconds_until_unlocked(request, {"username": request.data.get("username")})
                raise Throttled(wait=seconds, detail=locked_message(seconds)) from None
            raise
        user = serializer.validated_data["user"]
        token, _ = Token.objects.get_or_create(user=user)
        if token_expiry(token) <= timezone.now():
            token.delete()
            token = Token.objects.create(user=user)
        return Response({"token": token.key, "expires": token_expiry(token)})


class RevokeTokenView(APIView):
    """Revoke the caller's API token: it stops working at once; a new sign-in makes a new one."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None, 401: ERROR_RESPONSES[401]})
    def post(self, request):
        Token.objects.filter(user=request.user).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeSerializer(serializers.Serializer):
    username = serializers.CharField()
    is_staff = serializers.BooleanField()
    language = serializers.ChoiceField(choices=Preference.Language.choices, allow_blank=True)


class PreferenceSerializer(serializers.ModelSerializer):
    class Meta:
        model = Preference
        fields = ["language"]


class MeView(APIView):
    """The signed-in user and what they chose for themselves (the language, empty = the browser's)."""

    permission_classes = [IsAuthenticated]

    def _answer(self, request, preference: Preference | None) -> Response:
        return Response(
            {
                "username": request.user.get_username(),
                "is_staff": request.user.is_staff,
                "language": preference.language if preference else "",
            }
        )

    @extend_schema(responses={200: MeSerializer, 401: ERROR_RESPONSES[401]})
    def get(self, request):
        return self._answer(request, Preference.objects.filter(user=request.user).first())

    @extend_schema(
        request=PreferenceSerializer,
        responses={200: MeSerializer, 400: ERROR_RESPONSES[400], 401: ERROR_RESPONSES[401]},
    )
    def patch(self, request):
        preference, _ = Preference.objects.get_or_create(user=request.user)
        serializer = PreferenceSerializer(preference, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        serializer.save()
        remember_in_session(request, preference.language)
        return self._answer(request, preference)
