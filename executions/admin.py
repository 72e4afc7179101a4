from django.contrib import admin

from .models import Result, Run, WorkerHeartbeat


class ResultInline(admin.TabularInline):
    model = Result
    fields = ["check_version", "status", "statistics_value", "comparison_value", "verdict", "message"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    """Read-only: runs and results are append-only records."""

    list_display = ["id", "status", "blocking", "trigger", "attempt", "biz_date", "worker", "created_at", "finished_at"]
    list_filter = ["status", "trigger", "blocking"]
    inlines = [ResultInline]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    """Read-only: which worker processes are alive, what they hold, when they were last heard of."""

    list_display = ["name", "queues", "run", "idle_since", "last_seen", "started_at"]

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False
