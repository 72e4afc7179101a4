from django.contrib import admin

from .models import Monitor, MonitorCheck


class MonitorCheckInline(admin.TabularInline):
    model = MonitorCheck
    extra = 0
    raw_id_fields = ["rule_check"]


@admin.register(Monitor)
class MonitorAdmin(admin.ModelAdmin):
    list_display = ["id", "datasource", "table", "kinds", "time_column", "schedule", "owner", "deleted_at"]
    list_filter = ["datasource"]
    raw_id_fields = ["schedule"]
    inlines = [MonitorCheckInline]
