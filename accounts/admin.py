"""The admin's API token list: whose token, when made and when it expires, a key prefix, never
the key. DRF's own TokenProxy admin shows raw keys, which anyone with admin
access could sign in with; and since a token's key is its primary key, every admin link and
checkbox would carry it too. So the list links nothing by key: a token is revoked through its
user (a user has at most one token)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext as _
from rest_framework.authtoken.models import TokenProxy

from .models import ApiToken

admin.site.unregister(TokenProxy)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("user", "key_prefix", "created", "expires", "revoke")
    list_display_links = None
    actions = None  # the action checkboxes would hold each key
    search_fields = ("user__username",)
    ordering = ("-created",)

    def has_add_permission(self, request):
        return False  # users get tokens by signing in; an admin-made key would show on the page

    def has_change_permission(self, request, obj=None):
        return False  # revoking is the one change there is

    @admin.display(description="")
    def revoke(self, token: ApiToken) -> str:
        return format_html('<a href="{}">Revoke</a>', reverse("admin:accounts_apitoken_revoke", args=[token.user_id]))

    def get_urls(self):
        revoke = path(
            "user/<int:user_id>/revoke/",
            self.admin_site.admin_view(self.revoke_view),
            name="accounts_apitoken_revoke",
        )
        return [revoke, *super().get_urls()]

    def revoke_view(self, request, user_id: int):
        token = get_object_or_404(ApiToken.objects.select_related("user"), user_id=user_id)
        if not self.has_delete_permission(request, token):
            raise PermissionDenied
        if request.method == "POST":
            token.delete()
            self.message_user(request, _("%(user)s's API token is revoked.") % {"user": token.user}, messages.SUCCESS)
            return redirect("admin:accounts_apitoken_changelist")
        context = {**self.admin_site.each_context(request), "token": token, "opts": self.model._meta}
        return TemplateResponse(request, "admin/accounts/revoke_token.html", context)
