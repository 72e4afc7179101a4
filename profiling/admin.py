from django.contrib import admin

from .models import Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ("id", "datasource", "table", "status", "requested_by", "created_at", "finished_at")
    list_filter = ("status",)
    readonly_fields = [f.name for f in Profile._meta.fields]
