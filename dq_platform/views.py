from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import JsonResponse
from django.shortcuts import render
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView


@login_required
def home(request):
    """The signed-in landing page; the SPA shell replaces it once frontend/dist exists."""
    return render(request, "home.html")


def healthz(request):
    """Liveness for load balancers and `make run`'s readiness wait: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True})


class ObtainTokenView(APIView):
    """Exchange a username and password for an API token (`Authorization: Token <token>`)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes: list = []

    @extend_schema(
        request=AuthTokenSerializer,
        responses=inline_serializer("TokenResponse", {"token": serializers.CharField()}),
    )
    def post(self, request):
        serializer = AuthTokenSerializer(data=request.data, context={"request": request})
        serializer.is_valid(raise_exception=True)
        token, _ = Token.objects.get_or_create(user=serializer.validated_data["user"])
        return Response({"token": token.key})
