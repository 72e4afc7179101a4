from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils.translation import gettext_lazy

from .connectors import ConnectorError, connector_for
from .models import Datasource


class DatasourceAdminForm(forms.ModelForm):
    # render_value=False: the stored password never reaches the page's HTML.
    password = forms.CharField(
        required=False,
        strip=False,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text=gettext_lazy(
            "Write-only. Leave blank to keep the stored password; tick “clear password” to remove it."
        ),
    )
    clear_password = forms.BooleanField(required=False, label=gettext_lazy("Clear password"))

    class Meta:
        model = Datasource
        fields = [
            "name",
            "type",
            "description",
            "host",
            "port",
            "database",
            "username",
            "path",
            "format",
            "options",
            "allowed_groups",
            "owners",
            "owner_groups",
        ]

    def clean(self):
        cleaned = super().clean()
        instance = self.instance
        for field in (
            "name",
            "type",
            "description",
            "host",
            "port",
            "database",
            "username",
            "path",
            "format",
            "options",
        ):
            if field in cleaned:
                setattr(instance, field, cleaned[field] if cleaned[field] is not None or field == "port" else "")
        if cleaned.get("clear_password"):
            instance.password = ""
        elif cleaned.get("password"):
            instance.password = cleaned["password"]
        for field, problems in instance.validate_config().items():
            target = field if field in self.fields else None
            for problem in problems:
                self.add_error(target, problem)
        if "port" in cleaned:
            cleaned["port"] = instance.port  # the type's default port when left empty
        return cleaned


class DeletedFilter(admin.SimpleListFilter):
    title = gettext_lazy("state")
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("alive", gettext_lazy("In use")), ("deleted", gettext_lazy("Deleted"))]

    def queryset(self, request, queryset):
        if self.value() == "alive":
            return queryset.filter(deleted_at__isnull=True)
        if self.value() == "deleted":
            return queryset.filter(deleted_at__isnull=False)
        return queryset


@admin.register(Datasource)
class DatasourceAdmin(admin.ModelAdmin):
    """Deleted datasources stay listed, marked "deleted" with the time, because their groups still
    decide who reads the runs that read them: an admin may narrow those groups here. Deleting
    from the admin is the same soft delete as the API's (a hard delete would lose those groups,
    and the runs' links to the datasource protect it anyway)."""

    form = DatasourceAdminForm
    list_display = ["name", "type", "location", "has_password", "groups", "deleted_at"]
    list_filter = [DeletedFilter, "type"]
    search_fields = ["name", "host", "database", "path"]
    filter_horizontal = ["allowed_groups", "owners", "owner_groups"]
    actions = ["test_connection"]
    fieldsets = [
        (None, {"fields": ["name", "type", "description"]}),
        (
            gettext_lazy("Database server"),
            {"fields": ["host", "port", "database", "username", "password", "clear_password"]},
        ),
        (gettext_lazy("Files"), {"fields": ["path", "format"]}),
        (gettext_lazy("Advanced"), {"fields": ["options", "allowed_groups"]}),
        (gettext_lazy("Owners: release batches, handle incidents"), {"fields": ["owners", "owner_groups"]}),
    ]

    @admin.display(boolean=True, description=gettext_lazy("Password set"))
    def has_password(self, obj: Datasource) -> bool:
        return obj.has_password

    @admin.display(description=gettext_lazy("Groups"))
    def groups(self, obj: Datasource) -> str:
        return ", ".join(g.name for g in obj.allowed_groups.all()) or "everyone"

    def get_deleted_objects(self, objs, request):
        # The confirmation page lists what goes with it: nothing, since it is only hidden.
        return [str(obj) for obj in objs], {}, set(), []

    def delete_model(self, request, obj):
        obj.soft_delete()

    def delete_queryset(self, request, queryset):
        for datasource in queryset.filter(deleted_at__isnull=True):
            datasource.soft_delete()

    @admin.action(description=gettext_lazy("Test connection"))
    def test_connection(self, request, queryset):
        for datasource in queryset:
            try:
                message = connector_for(datasource).test()
            except ConnectorError as exc:
                self.message_user(request, f"{datasource.name}: {exc}", messages.ERROR)
            else:
                self.message_user(request, f"{datasource.name}: {message}", messages.SUCCESS)
